"""What the worker runs for a figure computed outside a request (`computed`): the kinds it
knows and `compute`, called by `analysis_app.tasks.compute_figure`.

A kind names the function that computes it, taking the row's params (plain JSON values)
and returning plain JSON values. Each family registers its kinds from its AppConfig.ready()
(`register`); this module knows none of them."""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable

from django.utils import timezone

from .models import ComputedFigure

# kind -> the function, or its "module:function" path imported on first use (a kind may
# need heavy libraries that no other process should load at start-up). The families add
# theirs from their AppConfig.ready() (`register`).
KINDS: dict[str, Callable | str] = {
    # Every family's headline figures of every model (analysis_app.headlines): a bootstrap per family.
    "model-headlines": "analysis_app.headlines:compute_headlines",
}


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
