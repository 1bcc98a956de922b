"""Figures computed by the worker, not inside a request: a page asks for one by its key
(`request`), shows it with the time it was computed when it is ready, and a placeholder
that fills in (the page polls `status`) while the worker computes it (`compute`, run by
`analysis_app.tasks.compute_figure`).

What the worker runs — the kinds and `compute` — lives in `computing`, below the task that
calls it; this module, which queues that task, is above both. Its `register`, `KINDS` and
`compute` are computing's, named here too for the families and the pages."""

from __future__ import annotations

from datetime import timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone

from . import tasks
from .computing import KINDS, compute, register  # noqa: F401  (the families' and pages' entry points)
from .models import ComputedFigure

# A row still pending or running this long after it was asked for is asked for again: its
# worker stopped, or no worker was running when it was asked for.
STALE_AFTER = timedelta(minutes=10)


def request(key: str, kind: str, params: dict, *, retry_after: timedelta | None = None) -> ComputedFigure:
    """The row for `key`, created (and queued for the worker) when there is none. A
    failed row, or a done one older than `retry_after`, is queued again; so is a pending
    one nobody took within `STALE_AFTER`."""
    if kind not in KINDS:
        raise ValueError(f"no such kind of computed figure: {kind}")
    now = timezone.now()
    row = ComputedFigure.objects.filter(key=key).first()
    if row is None:
        try:
            with transaction.atomic():
                row = ComputedFigure.objects.create(key=key, kind=kind, params=params, requested_at=now)
        except IntegrityError:  # another request created it first: it is queued already
            return ComputedFigure.objects.get(key=key)
        _enqueue(row.pk)
        return row
    again = (row.status == ComputedFigure.Status.FAILED
             or (row.status == ComputedFigure.Status.DONE and retry_after is not None
                 and row.computed_at is not None and now - row.computed_at > retry_after)
             or (row.status in (ComputedFigure.Status.PENDING, ComputedFigure.Status.RUNNING)
                 and now - row.requested_at > STALE_AFTER))
    if again:
        # Conditional, so that two requests seeing the same stale row queue it once.
        if ComputedFigure.objects.filter(pk=row.pk, status=row.status, requested_at=row.requested_at).update(
                status=ComputedFigure.Status.PENDING, requested_at=now):
            _enqueue(row.pk)
        row.refresh_from_db()
    return row


def _enqueue(figure_id: int):
    transaction.on_commit(lambda: tasks.compute_figure.delay(figure_id))


def pending(keys: list[str]) -> int:
    """How many of these keys are not computed yet (the page's placeholder polls this)."""
    return ComputedFigure.objects.filter(key__in=keys, status__in=[ComputedFigure.Status.PENDING,
                                                                     ComputedFigure.Status.RUNNING]).count()
