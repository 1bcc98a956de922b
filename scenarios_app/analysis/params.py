"""The CFPD dashboard's filters from query parameters (the URL keeps them, so a view can be shared).
Each value goes through `kit.params`, so a bad one is a `BadParameter` naming the
field and the reason (the views answer 400), never an error deep in a query; so is a run,
model, domain, qualified actor or category that does not exist (a mistyped one would
otherwise show an empty or default view as if it were the answer, and cost a build of its own)."""

from __future__ import annotations

from analysis_app.params import adjustment, check_known
from kit import params
from kit.params import BadParameter
from benchmarks_app.models import Question
from runs_app.models import LLMModel

from ..models import ActionCategory, Actor, Domain
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
        languages=tuple(sorted(set(params.texts(query, "language")))),
    )
    options = {
        "iterations": params.integer(query, "iterations", default=1000, minimum=100, maximum=MAX_ITERATIONS),
        "seed": params.integer(query, "seed", default=0, minimum=0, maximum=MAX_SEED),
        "category": params.text(query, "category"),
        "heatmap_model": params.text(query, "heatmap_model"),
        "adjust": adjustment(query),
    }
    check_known(filters.runs, filters.models)
    heatmap_model = options["heatmap_model"]
    if heatmap_model and not LLMModel.objects.filter(name=heatmap_model).exists():
        raise BadParameter("heatmap_model", f"{heatmap_model!r} is not registered")
    _check_named(filters.domains, Domain.objects.values_list("slug", flat=True), "domain")
    _check_named(filters.actors, Actor.objects.values_list("code", flat=True), "actor", "qualified actor")
    _check_named(filters.languages, question_languages(), "language", "language of a CFPD question")
    if options["category"]:
        _check_named((options["category"],), ActionCategory.objects.values_list("name", flat=True).distinct(),
                     "category")
    return filters, options


def question_languages():
    """The languages CFPD's questions are written in (BCP 47 codes)."""
    return (Question.objects.filter(cfpd__isnull=False).values_list("language", flat=True).distinct()
            .order_by("language"))


def _check_named(values, known, field: str, what: str = "") -> None:
    """Each of `values` among `known` (a query of the names that exist), or a BadParameter
    naming the unknown ones and, when they are few, the known ones."""
    if not values:
        return
    known = sorted(set(known))
    wrong = [v for v in values if v not in known]
    if wrong:
        listed = f" (known: {', '.join(known)})" if len(known) <= 20 else ""
        raise BadParameter(field, f"{', '.join(map(repr, wrong))} {'is' if len(wrong) == 1 else 'are'} not a known "
                                  f"{what or field}{listed}")


def panels(query) -> tuple[str, ...] | None:
    """The panels asked for (`panel`, repeated), or None for all."""
    return params.texts(query, "panel", max_length=40) or None
