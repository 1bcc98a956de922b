"""The one writer of a unit's and a run's status (issue 39): every change of
`Response.status` and `Run.status` is one function here, each the conditional UPDATE
the engine needs with the lock it needs; the engine, the workflows and provider batches
call them. `UNIT_TRANSITIONS` and `RUN_TRANSITIONS` are the allowed changes, each named
by the function that makes it (`tests/house/test_status_writers.py` walks them, and fails
when any other module writes a status).

A batch's answers and failures (running → done | failed) are written with the rest of
their fields in one statement, `answer_rows._update_rows` (one per batch in the worker's
hot path): `finish_units` here is its only caller, and `answered_row` / `failed_row` set
the status on the rows it writes.

A row's birth is not a transition: a launch's units are made pending, an import's rows
done or failed, an imported or synthetic run done (`launching.create_run`)."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.db.models import Case, F, Q, When
from django.utils import timezone

from . import worker_identity
from .answer_rows import _update_rows
from .models import Response, Run
from .signals import run_finished

U, R = Response.Status, Run.Status

# from-status → {to-status: the functions that make that change}
UNIT_TRANSITIONS: dict[str, dict[str, tuple[str, ...]]] = {
    U.PENDING: {U.PENDING: ("reopen_missing",),  # its attempts and error cleared
                U.RUNNING: ("claim", "take_for_batch"),
                U.CANCELLED: ("give_back", "cancel_follow_ups", "cancel_pending", "cancel_pending_range")},
    U.RUNNING: {U.RUNNING: ("claim",),  # a lease that ran out (its worker died), or the claim's own token
                U.PENDING: ("give_back",),
                U.DONE: ("finish_units",), U.FAILED: ("finish_units",),
                U.CANCELLED: ("end_lost_of_cancelled", "cancel_batch_units")},
    U.FAILED: {U.PENDING: ("reopen_missing",)},
    U.CANCELLED: {U.PENDING: ("reopen_missing",)},
    U.DONE: {},
}
RUN_TRANSITIONS: dict[str, dict[str, tuple[str, ...]]] = {
    R.QUEUED: {R.RUNNING: ("start_runs", "resume_run_status"), R.PAUSED: ("pause_run",),
               R.DONE: ("finish_run_if_complete", "resume_run_status"), R.CANCELLED: ("cancel_run_status",)},
    R.RUNNING: {R.RUNNING: ("resume_run_status",), R.PAUSED: ("pause_run",),
                R.DONE: ("finish_run_if_complete", "resume_run_status"), R.CANCELLED: ("cancel_run_status",)},
    R.PAUSED: {R.RUNNING: ("resume_run_status",), R.DONE: ("resume_run_status",),
               R.CANCELLED: ("cancel_run_status",)},
    # Resumed: asked again what is missing (failed or cancelled units).
    R.CANCELLED: {R.RUNNING: ("resume_run_status",), R.DONE: ("resume_run_status",)},
    R.DONE: {R.RUNNING: ("resume_run_status",), R.DONE: ("resume_run_status",)},
}

# Statuses a row is made in (not transitions): a launch's units pending, an import's done
# or failed; a launched run queued, an imported or synthetic run done.
UNIT_BIRTHS = (U.PENDING, U.DONE, U.FAILED)
RUN_BIRTHS = (R.QUEUED, R.DONE)
# The modules that may write a status (tests/house/test_status_writers.py): this one, and the
# batch's answers statement, which only `finish_units` calls.
STATUS_WRITERS = {"runs_app/transitions.py": "every transition",
                  "runs_app/answer_rows.py": "running → done | failed: the statement `finish_units` sends"}
# Functions here that set a status without being a transition of the tables: the rows
# `finish_units` writes, made in memory.
ROW_MAKERS = ("answered_row", "failed_row")


def of_runs(*statuses: str) -> Q:
    """Units of runs in these statuses, as a sub-select of the runs alone. Not
    `run__status__in`: Django turns a filter across a join into `id IN (SELECT … JOIN …)`
    with the unit's own conditions inside it, and PostgreSQL does not re-check those after
    an UPDATE waited for another transaction's lock on the row, so two claims meeting on
    one unit would both take it (tests/runs_app/test_claim_race.py)."""
    return Q(run_id__in=Run.objects.filter(status__in=statuses).values("pk"))


# ------------------------------------------------------------------ units

def of_these_runs(runs) -> Q:
    """The units' own runs, named as constants, beside their ids: on a database whose
    answers are partitioned by run (`partition_answers`) PostgreSQL then plans and locks
    those runs' partitions alone, not every partition with its indexes (docs/performance.md,
    the by-id cost). Nothing when no run is given."""
    runs = sorted(set(runs))
    return Q(run_id__in=runs) if runs else Q()


def claim(ids: list[int], token: str, lease_until: datetime, now: datetime, runs=()):
    """pending, or running under a lease that ran out, or under this `token` → running
    under `token`, in one conditional update whose conditions are all on the unit's row
    (see `of_runs`); an attempt counted unless the unit was this token's already. The
    claiming worker's name is written with it (`worker_identity`). `runs`: the units'
    runs (`of_these_runs`)."""
    Response.objects.filter(of_these_runs(runs), pk__in=ids).filter(
        Q(status=U.PENDING) | Q(status=U.RUNNING, lease_expires_at__lt=now)
        | Q(status=U.RUNNING, claim_token=token)).filter(
        of_runs(R.QUEUED, R.RUNNING)).update(
        status=U.RUNNING, claim_token=token,
        attempts=Case(When(claim_token=token, then=F("attempts")), default=F("attempts") + 1),
        lease_expires_at=lease_until, worker=worker_identity.name())


def take_for_batch(ids: list[int], batch, token: str) -> None:
    """pending → running under a provider batch's claim (`provider_batch.token`), no lease:
    the sweeps leave it alone. The units are the batch's run's."""
    Response.objects.filter(pk__in=ids, run_id=batch.run_id, status=U.PENDING).filter(
        of_runs(R.QUEUED, R.RUNNING)).update(
        status=U.RUNNING, claim_token=token, provider_batch=batch, lease_expires_at=None,
        attempts=F("attempts") + 1)


def give_back(response_id: int, token: str, run_id: int, **fields) -> bool:
    """running under `token` → pending (to be asked later), `fields` written with it. If
    its run was cancelled meanwhile, the unit ends cancelled instead: a cancelled run
    sends no more messages, so a pending unit of it would stay pending forever. Returns
    whether it is pending. `run_id`: the unit's run (`of_these_runs`)."""
    run = of_these_runs([run_id])
    Response.objects.filter(run, pk=response_id, claim_token=token).update(
        status=U.PENDING, claim_token="", lease_expires_at=None, **fields)
    # After the write, not before: `cancel_run` cancels pending units in one update, so
    # either it saw this unit pending, or this sees the run cancelled.
    cancelled = Response.objects.filter(run, of_runs(R.CANCELLED), pk=response_id,
                                        status=U.PENDING).update(status=U.CANCELLED)
    return not cancelled


def answered_row(row: Response, **fields) -> Response:
    """The row, in memory, as `finish_units` writes an answer: done, its claim ended."""
    for name, value in dict(status=U.DONE, claim_token="", lease_expires_at=None, **fields).items():
        setattr(row, name, value)
    return row


def failed_row(row: Response, **fields) -> Response:
    """The row, in memory, as `finish_units` writes a failure: failed, its claim ended."""
    for name, value in dict(status=U.FAILED, claim_token="", lease_expires_at=None, **fields).items():
        setattr(row, name, value)
    return row


def finish_units(rows: list[Response], token: str | None = None) -> set[int]:
    """running → done | failed: the rows made by `answered_row` / `failed_row`, in one
    statement (`answer_rows._update_rows`); with `token`, only those still running under
    that claim (the statement's own condition and row locks). The ids written."""
    return _update_rows(rows, token)


def cancel_follow_ups(ids: list[int]):
    """pending → cancelled: follow-ups just made whose run was cancelled meanwhile."""
    Response.objects.filter(of_runs(R.CANCELLED), pk__in=ids, status=U.PENDING).update(status=U.CANCELLED)


def cancel_pending(run_id: int) -> int:
    """pending → cancelled: every pending unit of a cancelled run; how many."""
    return Response.objects.filter(run_id=run_id, status=U.PENDING).update(status=U.CANCELLED)


def cancel_pending_range(run_id: int, low: int, high: int) -> int:
    """pending → cancelled: a cancelled run's pending units of ids [low, high); how many.
    The caller holds the run's row (`cancel_pending_units`)."""
    return Response.objects.filter(run_id=run_id, status=U.PENDING, id__gte=low, id__lt=high).update(
        status=U.CANCELLED)


def end_lost_of_cancelled(run_id: int, now: datetime):
    """running under a lease that ran out (its worker died) → cancelled, in a cancelled run."""
    Response.objects.filter(run_id=run_id, status=U.RUNNING, lease_expires_at__lt=now).update(
        status=U.CANCELLED, claim_token="", lease_expires_at=None)


def cancel_batch_units(batch, token: str):
    """running under a provider batch never sent → cancelled (its run was cancelled)."""
    Response.objects.filter(run_id=batch.run_id, provider_batch=batch, claim_token=token, status=U.RUNNING).update(
        status=U.CANCELLED, claim_token="")


def reopen_missing(run_id: int) -> list[int]:
    """Every unit of the run neither done nor running (failed, cancelled, pending) →
    pending, its attempts and error cleared; their ids. The caller holds the run's row
    (`lock_run`), as `finish_run_if_complete` does."""
    missing = Response.objects.filter(run_id=run_id).exclude(status__in=[U.DONE, U.RUNNING])
    ids = list(missing.values_list("id", flat=True))
    missing.update(status=U.PENDING, attempts=0, error_kind="", error_message="")
    return ids


# ------------------------------------------------------------------ runs

def lock_run(run_id: int):
    """The run's row locked for the rest of the transaction (on SQLite the transaction's
    IMMEDIATE start is the lock): what counts its open units and what reopens them
    take it first."""
    Run.objects.select_for_update().filter(pk=run_id).values_list("pk").first()


def start_runs(run_ids, now: datetime):
    """queued → running, with the time it started."""
    Run.objects.filter(pk__in=run_ids, status=R.QUEUED).update(status=R.RUNNING, started_at=now)


def pause_run(run_id: int):
    """queued | running → paused (its budget reached)."""
    Run.objects.filter(pk=run_id, status__in=[R.QUEUED, R.RUNNING]).update(status=R.PAUSED)


def cancel_run_status(run_id: int):
    """→ cancelled, not finished until its units in flight end (the caller refuses a run
    done or cancelled already)."""
    Run.objects.filter(pk=run_id).update(status=R.CANCELLED, finished_at=None)


def resume_run_status(run_id: int, finished_at: datetime | None, *, done: bool):
    """A resumed run → running, unfinished; or → done when nothing is left to ask
    (`finished_at` kept if it had one). The caller holds the run's row (`lock_run`)."""
    if done:
        Run.objects.filter(pk=run_id).update(status=R.DONE, finished_at=finished_at or timezone.now())
    else:
        Run.objects.filter(pk=run_id).update(status=R.RUNNING, finished_at=None)


def finish_run_if_complete(run_id: int):
    """Mark the run done once no unit is pending or running. A cancelled run is finished
    (its finished time written) once the last unit a worker had taken ends.

    The run's row is locked before its units are counted, and whatever makes units open
    again (`services.resume_run`) locks it first too: counting and marking in two
    statements without the lock let a resume commit in between (its units pending, the
    run running again), and the run was marked done over its pending units, whose
    messages then found a finished run and were dropped: the run stalled for good
    (tests/runs_app/test_finish_race.py). On SQLite the transaction's IMMEDIATE
    start is the lock.

    Units still open, seen without the lock, end the look at once (issue 45: a worker's
    batch paid a transaction, a row lock and three statements for it): nothing is written
    then, and the worker that ends the last of them looks again after its own write
    commits."""
    if Response.objects.filter(run_id=run_id, status__in=[U.PENDING, U.RUNNING]).exists():
        return
    finished = False
    with transaction.atomic():
        run = Run.objects.select_for_update().filter(pk=run_id).values("status", "finished_at").first()
        if run is None:
            return
        open_units = Response.objects.filter(run_id=run_id, status__in=[U.PENDING, U.RUNNING])
        if open_units.exists():
            return
        if run["status"] in (R.QUEUED, R.RUNNING):
            Run.objects.filter(pk=run_id).update(status=R.DONE, finished_at=timezone.now())
            finished = True
        elif run["status"] == R.CANCELLED and run["finished_at"] is None:
            Run.objects.filter(pk=run_id).update(finished_at=timezone.now())
    if finished:
        run_finished.send_robust(sender=Run, run_id=run_id)
