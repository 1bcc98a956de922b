"""Dashboard filters from query parameters (the URL keeps them, so a view can be shared)."""

from __future__ import annotations

from django.http import QueryDict

from .tidy_query import AnalysisFilter

MAX_ITERATIONS = 10_000


class BadParameter(ValueError):
    pass


def _ints(values, name):
    try:
        return tuple(sorted({int(v) for v in values if v != ""}))
    except ValueError:
        raise BadParameter(f"{name} must be whole numbers, got {', '.join(values)}") from None


def _strings(values):
    return tuple(sorted({v.strip() for v in values if v.strip()}))


def parse(query: QueryDict) -> tuple[AnalysisFilter, dict]:
    """The filter and the display options (iterations, seed, category, heatmap model)."""
    filters = AnalysisFilter(
        runs=_ints(query.getlist("run"), "run"),
        models=_strings(query.getlist("model")),
        domains=_strings(query.getlist("domain")),
        choice_counts=_ints(query.getlist("choices"), "choices"),
        actors=tuple(a.upper() for a in _strings(query.getlist("actor"))),
        focus_complete=query.get("focus") in ("1", "on", "true"),
    )
    iterations = _ints([query.get("iterations", "1000")], "iterations")[0]
    seed = _ints([query.get("seed", "0")], "seed")[0]
    if not 100 <= iterations <= MAX_ITERATIONS:
        raise BadParameter(f"iterations must be between 100 and {MAX_ITERATIONS}")
    options = {"iterations": iterations, "seed": seed, "category": query.get("category", ""),
               "heatmap_model": query.get("heatmap_model", "")}
    return filters, options
