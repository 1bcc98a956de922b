"""Sweeping runs: units whose message is really lost sent again (`sweep_run`), a
cancelled run's units in flight ended, and every open unit of every active run queued
again when a worker starts (`recover_active_runs`)."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, Min, Q
from django.utils import timezone

from . import progress_counts, queueing
from .models import Response, Run
from .run_control import cancel_pending_units
from .transitions import end_lost_of_cancelled, finish_run_if_complete


SWEEP_BATCH = 500  # units one sweep re-sends at most


def sweep_run(run_id: int, requeue_after: float | None = None, everything: bool = False) -> tuple[int, bool]:
    """Re-send the units of an active run whose message is really lost, oldest first, at
    most SWEEP_BATCH at a time:

    * running under an expired lease (its worker died);
    * pending and never sent;
    * pending, last sent more than `requeue_after` seconds ago, and passed by the queue:
      no unit sent at the same time or earlier is being worked on (running, or answered
      within `requeue_after`). Messages are taken about in the order they were sent, so
      while units sent with this one are still being answered, its message is waiting
      in the queue: re-sending a long run's backlog would only double the queue, again
      every `requeue_after` seconds. Once only units sent later are answered (or nothing
      is), the queue went past it: its message was lost.

    `everything` (a worker starting after a crash) re-sends every open unit, unbounded.
    Returns (how many were re-sent, whether the run is still active)."""
    run = Run.objects.filter(pk=run_id).first()
    if run is not None and run.status == Run.Status.CANCELLED and run.finished_at is None:
        return 0, _sweep_cancelled(run)
    if run is None or run.status not in (Run.Status.QUEUED, Run.Status.RUNNING):
        return 0, False
    now = timezone.now()
    requeue_after = settings.CFPD_REQUEUE_AFTER if requeue_after is None else requeue_after
    before = now - timedelta(seconds=requeue_after)
    lost = Q(status=Response.Status.RUNNING, lease_expires_at__lt=now) | Q(status=Response.Status.PENDING,
                                                                             enqueued_at__isnull=True)
    if everything:
        lost |= Q(status=Response.Status.PENDING)
    else:
        # The queue's front: the earliest send among the units being worked on now.
        front = run.responses.filter(Q(status=Response.Status.RUNNING, lease_expires_at__gte=now)
                                     | Q(answered_at__gt=before)).aggregate(m=Min("enqueued_at"))["m"]
        passed = Q(enqueued_at__lte=before) & (Q(enqueued_at__lt=front) if front is not None else Q())
        lost |= Q(status=Response.Status.PENDING) & passed
    stale = run.responses.filter(lost).order_by(F("enqueued_at").asc(nulls_first=True), "id")
    progress_counts.compact(run_id)  # the counters' rows appended since the last sweep, folded
    ids = list(stale.values_list("id", flat=True) if everything else stale.values_list("id", flat=True)[:SWEEP_BATCH])
    if ids:
        with transaction.atomic():
            queueing.enqueue(ids)
    finish_run_if_complete(run_id)
    run.refresh_from_db(fields=["status"])
    return len(ids), run.status in (Run.Status.QUEUED, Run.Status.RUNNING)


def _sweep_cancelled(run: Run) -> bool:
    """A cancelled run whose units in flight have not all ended: a unit whose worker died
    (its lease ran out) ends cancelled, pending units left by the cancel are marked, and
    the run is finished once none is left. Whether some unit is still open (so the
    sweep looks again later)."""
    end_lost_of_cancelled(run.pk, timezone.now())
    cancel_pending_units(run.pk)  # those `cancel_run` left to a worker (a very large run)
    finish_run_if_complete(run.pk)
    return run.responses.filter(status__in=[Response.Status.PENDING, Response.Status.RUNNING]).exists()

def recover_active_runs() -> int:
    """When a worker starts: queue again every open unit of every active run, since
    messages a killed worker had taken may be lost. Duplicates are harmless: a unit is
    claimed once. Returns how many units were queued."""
    total = 0
    # A cancelled run not yet finished still has units with a worker (see `cancel_run`).
    unfinished = Q(status__in=[Run.Status.QUEUED, Run.Status.RUNNING]) | Q(status=Run.Status.CANCELLED,
                                                                        finished_at__isnull=True)
    for run_id in Run.objects.filter(unfinished).values_list("pk", flat=True):
        count, active = sweep_run(run_id, everything=True)
        total += count
        if active:
            queueing.sweep_later(run_id)
    return total
