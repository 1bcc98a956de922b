"""The CFPD dashboard's filters from query parameters (the URL keeps them, so a view can be shared).
Each value goes through `cfpd_site.params`, so a bad one is a `BadParameter` naming the
field and the reason (the views answer 400), never an error deep in a query; so is a run
or model that does not exist."""

from __future__ import annotations

from analysis_app.params import adjustment, check_known
from cfpd_site import params
from cfpd_site.params import BadParameter  # noqa: F401 (the views catch it from here)

from .tidy_query import AnalysisFilter

MAX_ITERATIONS = 10_000
MAX_SEED = 2**32 - 1  # numpy seeds are non-negative; a 32-bit range is plenty to pick one


def parse(query) -> tuple[AnalysisFilter, dict]:
    """The filter and the display options (iterations, seed, category, heatmap model, the
    contrasts' correction)."""
    filters = AnalysisFilter(
        runs=params.integers(query, "run"),
        models=params.texts(query, "model"),
        domains=params.texts(query, "domain"),
        choice_counts=params.integers(query, "choices", minimum=2, maximum=3),
        actors=tuple(sorted({a.upper() for a in params.texts(query, "actor")})),
        focus_complete=params.flag(query, "focus"),
    )
    options = {
        "iterations": params.integer(query, "iterations", default=1000, minimum=100, maximum=MAX_ITERATIONS),
        "seed": params.integer(query, "seed", default=0, minimum=0, maximum=MAX_SEED),
        "category": params.text(query, "category"),
        "heatmap_model": params.text(query, "heatmap_model"),
        "adjust": adjustment(query),
    }
    check_known(filters.runs, filters.models)
    return filters, options


def panels(query) -> tuple[str, ...] | None:
    """The panels asked for (`panel`, repeated), or None for all."""
    return params.texts(query, "panel", max_length=40) or None
