"""Figures computed by the worker, not inside a request: a page asks for one by its key
(`request`), shows it with the time it was computed when it is ready, and a placeholder
that fills in (the page polls `status`) while the worker computes it (`compute`, run by
`analysis_app.tasks.compute_figure`).

A kind names the function that computes it, taking the row's params (plain JSON values)
and returning plain JSON values. Each family registers its kinds from its AppConfig.ready()
(`register`); this module knows none of them."""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone

from .models import ComputedFigure

# kind -> the function, or its "module:function" path imported on first use (a kind may
# need heavy libraries that no other process should load at start-up). The families add
# theirs from their AppConfig.ready() (`register`).
KINDS: dict[str, Callable | str] = {
    # Every family's headline figures of every model (analysis_app.headlines): a bootstrap per family.
    "model-headlines": "analysis_app.headlines:compute_headlines",
}
# A row still pending or running this long after it was asked for is asked for again: its
# worker stopped, or no worker was running when it was asked for.
STALE_AFTER = timedelta(minutes=10)


def register(kind: str, function: Callable | str) -> None:
    """Make `kind` computable by `function` (a callable, or "module:function" imported on use)."""
    if KINDS.get(kind, function) != function:
        raise ValueError(f"computed figure kind {kind} is registered already")
    KINDS[kind] = function


def _function(kind: str) -> Callable:
    target = KINDS[kind]
    if isinstance(target, str):
        module, name = target.split(":")
        target = getattr(importlib.import_module(module), name)
    return target


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
    from . import tasks

    transaction.on_commit(lambda: tasks.compute_figure.delay(figure_id))


def compute(figure_id: int) -> bool:
    """Claim the row (zero rows updated: another worker has it, or it is done) and compute
    it with no transaction open; the result or the error is written in one update."""
    claimed = ComputedFigure.objects.filter(pk=figure_id, status=ComputedFigure.Status.PENDING).update(
        status=ComputedFigure.Status.RUNNING, started_at=timezone.now())
    if not claimed:
        return False
    row = ComputedFigure.objects.get(pk=figure_id)
    started = time.perf_counter()
    try:
        result = _function(row.kind)(**row.params)
    except Exception as exc:  # recorded on the row and shown on the page, never a silent blank
        ComputedFigure.objects.filter(pk=figure_id).update(
            status=ComputedFigure.Status.FAILED, error=f"{type(exc).__name__}: {exc}"[:2000],
            computed_at=timezone.now(), seconds=time.perf_counter() - started)
        raise
    ComputedFigure.objects.filter(pk=figure_id).update(
        status=ComputedFigure.Status.DONE, result=result, error="", computed_at=timezone.now(),
        seconds=time.perf_counter() - started)
    return True


def pending(keys: list[str]) -> int:
    """How many of these keys are not computed yet (the page's placeholder polls this)."""
    return ComputedFigure.objects.filter(key__in=keys, status__in=[ComputedFigure.Status.PENDING,
                                                                     ComputedFigure.Status.RUNNING]).count()
