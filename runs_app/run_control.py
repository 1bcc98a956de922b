"""Controlling a run once launched: cancelling it (its pending units at once, or a chunk
at a time by a worker for a very large run), its budget read and shown, and resuming it
(asking again what is missing, once its budget allows)."""

from __future__ import annotations

import time
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.db.models import Max, Min
from django.utils import timezone

from . import launch_plan, queueing, transitions
from .execution import spent
from .launching import LaunchInvalid, RunError
from .models import Response, Run
from .run_progress import progress
from .signals import run_finished


@dataclass
class Cancellation:
    """What a cancel did: pending units cancelled (or, `later`, to be cancelled by a
    worker), and units a worker had already taken."""

    pending: int
    in_flight: int
    later: bool = False


@transaction.atomic
def cancel_run(run: Run) -> Cancellation:
    """Stop new calls. Pending units are cancelled at once. A unit a worker has already
    taken (running) is left to end by itself: an answer that arrives is kept; a call that
    fails transiently, or that still waits for its model's slot after CFPD_SLOT_WAIT,
    ends cancelled, not retried (see `transitions.give_back`); a permanent error fails it.
    The run is finished (finished_at) only when its last such unit ends
    (`transitions.finish_run_if_complete`, or the sweep if that worker died)."""
    if run.status in (Run.Status.DONE, Run.Status.CANCELLED):
        raise RunError(f"run {run.pk} is {run.status}; nothing to cancel")
    transitions.cancel_run_status(run.pk)
    pending_units = run.responses.filter(status=Response.Status.PENDING)
    at_once = settings.CFPD_CANCEL_AT_ONCE
    later = pending_units.order_by().values("pk")[:at_once + 1].count() > at_once
    if later:
        # Too many to mark in this request (2.66 million took 2.5 minutes): no unit of a
        # cancelled run is claimed any more, so none is asked; a worker marks them
        # cancelled a chunk at a time (`cancel_pending_units`), starting now, and the
        # watchers go on at each tick should that worker stop.
        pending = progress(run).pending
        transaction.on_commit(lambda: queueing.publish(queueing.SWEEP, [run.pk]))
    else:
        pending = transitions.cancel_pending(run.pk)
    in_flight = run.responses.filter(status=Response.Status.RUNNING).count()
    if run.delivery == Run.Delivery.BATCH:
        # Its provider batches cancelled by a worker (a call to the provider), now and at every watcher tick.
        transaction.on_commit(lambda: queueing.publish(queueing.PROVIDER_BATCHES, [run.pk]))
    if in_flight:
        queueing.schedule_sweep(run.pk)  # ends the run should the worker holding a unit die
    elif not later:
        Run.objects.filter(pk=run.pk).update(finished_at=timezone.now())
    return Cancellation(pending=pending, in_flight=in_flight, later=later)


CANCEL_CHUNK = 100_000  # ids of a run's units marked cancelled per transaction


def cancel_pending_units(run_id: int, seconds: float | None = None) -> int:
    """Mark the pending units of a cancelled run cancelled, by ranges of CANCEL_CHUNK ids
    (a run's units have mostly consecutive ids), each range in its own transaction under
    the run's row lock, for about `seconds` (CFPD_CANCEL_SECONDS); how many it marked.
    Stops when the run is no longer cancelled (resumed) or another sweep holds its row."""
    seconds = settings.CFPD_CANCEL_SECONDS if seconds is None else seconds
    pending = Response.objects.filter(run_id=run_id, status=Response.Status.PENDING)
    span = pending.aggregate(lo=Min("id"), hi=Max("id"))
    if span["lo"] is None:
        return 0
    deadline = time.monotonic() + seconds
    low, marked = span["lo"], 0
    while low <= span["hi"]:
        with transaction.atomic():
            if not Run.objects.select_for_update(skip_locked=True).filter(
                    pk=run_id, status=Run.Status.CANCELLED).exists():
                break
            marked += transitions.cancel_pending_range(run_id, low, low + CANCEL_CHUNK)
        low += CANCEL_CHUNK
        if time.monotonic() > deadline:
            break
    return marked


UNCHANGED = object()


def read_budget(budget_usd, budget_units) -> dict:
    """New budget values for `resume_run`, checked like a launch's; UNCHANGED is left out,
    an empty value removes that budget."""
    errors, changes = {}, {}
    if budget_usd is not UNCHANGED:
        changes["budget_usd"] = launch_plan.money(budget_usd, "budget_usd", errors)
    if budget_units is not UNCHANGED:
        changes["budget_units"] = launch_plan.whole_number(budget_units, "budget_units", 1, launch_plan.MAX_WHOLE,
                                                           errors)
    if errors:
        raise LaunchInvalid(errors)
    return changes


def budget_state(run: Run) -> dict | None:
    """What the run spent against its budget, for the run page and the API; None without one."""
    if run.budget_usd is None and run.budget_units is None:
        return None
    spent_usd, spent_units = spent(run.pk)
    return {"budget_usd": float(run.budget_usd) if run.budget_usd is not None else None,
            "budget_units": run.budget_units, "spent_usd": float(spent_usd), "spent_units": spent_units,
            "reached": launch_plan.budget_reached(run.budget_usd, run.budget_units, spent_usd, spent_units)}


@transaction.atomic
def resume_run(run: Run, budget_usd=UNCHANGED, budget_units=UNCHANGED) -> int:
    """Ask again only what is missing: every unit that is not done. A paused run (its
    budget reached) continues only once the budget is raised above what it spent.
    The run's row is locked first, as `transitions.finish_run_if_complete` locks it before
    it counts the open units: a worker finishing the cancelled run's last unit cannot mark
    it done between this making units pending and its commit."""
    transitions.lock_run(run.pk)
    if run.llm_models.filter(is_external=True).exists():
        raise RunError(f"run {run.pk} holds imported answers; it cannot be resumed")
    changes = read_budget(budget_usd, budget_units)
    if changes:
        Run.objects.filter(pk=run.pk).update(**changes)
        for name, value in changes.items():
            setattr(run, name, value)
    spent_usd, spent_units = spent(run.pk)
    if launch_plan.budget_reached(run.budget_usd, run.budget_units, spent_usd, spent_units):
        raise RunError(f"run {run.pk} has spent US$ {spent_usd:.4f} and {spent_units} units of its budget "
                       f"({_budget_text(run)}); raise the budget to resume it")
    ids = transitions.reopen_missing(run.pk)
    running = run.responses.filter(status=Response.Status.RUNNING).exists()
    if not ids and not running:
        transitions.resume_run_status(run.pk, run.finished_at, done=True)
        run_finished.send_robust(sender=Run, run_id=run.pk)
        return 0
    transitions.resume_run_status(run.pk, None, done=False)
    queueing.enqueue(ids)
    queueing.schedule_sweep(run.pk)
    return len(ids)


def _budget_text(run: Run) -> str:
    parts = []
    if run.budget_usd is not None:
        parts.append(f"US$ {run.budget_usd}")
    if run.budget_units is not None:
        parts.append(f"{run.budget_units} units")
    return " or ".join(parts) or "none"
