"""BorderLines answers read from the database into the frames `concurrence` scores.

One row per answer: model, strategy (the condition's name), repeat, territory,
language, answer_claimant (the claimant's English name, or None when the answer could
not be placed: unresolved, a refusal R, or an invalid answer X that names no claimant
and refuses nothing), and its code (to count refusals and invalid answers apart). A
failed call or an unanswered unit is no row
(a question not asked, as concurrence reads it). With no run picked, each (model,
strategy) is read from its newest run only: two launches are not repeats.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from benchmarks_app.lettering import LETTERS
from runs_app.models import Response, Run

from .locations import location
from .models import Claimant, Territory

ANSWER_COLUMNS = ["model", "strategy", "repeat", "territory", "language", "answer_claimant", "run", "code"]
TERRITORY_COLUMNS = ["territory", "controller", "claimants", "claimant_languages", "region", "iso3", "location"]


@dataclass(frozen=True)
class BorderlinesFilter:
    benchmark: str = "borderlines"
    runs: tuple[int, ...] = ()
    models: tuple[str, ...] = ()
    strategies: tuple[str, ...] = ()
    regions: tuple[str, ...] = ()
    claimants: tuple[str, ...] = ()  # English names: territories where one of them is a claimant
    languages: tuple[str, ...] = ()  # the case view's languages
    unknown_only: bool = False
    extra: dict = field(default_factory=dict, compare=False)


def territory_frame(filters: BorderlinesFilter) -> pd.DataFrame:
    """The benchmark's territories as concurrence reads them (plus region and, per
    claimant, the ISO alpha-3 code of its actor where it has one, for the map)."""
    territories = (Territory.objects.filter(benchmark__name=filters.benchmark, is_current=True)
                   .select_related("controller").order_by("position", "name"))
    if filters.regions:
        territories = territories.filter(region__in=filters.regions)
    if filters.unknown_only:
        territories = territories.filter(controller__isnull=True)
    claimants: dict[int, list] = {}
    for claimant in (Claimant.objects.filter(territory__in=territories)
                     .select_related("country__actor").order_by("territory_id", "position")):
        claimants.setdefault(claimant.territory_id, []).append(claimant.country)
    rows = []
    for territory in territories:
        countries = claimants.get(territory.pk, [])
        names = [c.name for c in countries]
        if filters.claimants and not set(filters.claimants) & set(names):
            continue
        rows.append({
            "territory": territory.name,
            "controller": territory.controller.name if territory.controller_id else None,
            "claimants": names,
            "claimant_languages": {c.name: (c.language or None) for c in countries},
            "region": territory.region,
            "iso3": {c.name: (c.actor.iso_alpha3 if c.actor_id and c.actor.iso_alpha3 else None) for c in countries},
            # (latitude, longitude) for the map's marker, or None (territories_app.locations)
            "location": location(territory.name, territory.latitude, territory.longitude),
        })
    return pd.DataFrame(rows, columns=TERRITORY_COLUMNS)


def _newest_runs(responses) -> dict[tuple[str, str], int]:
    """(model, strategy) -> the newest run holding its answers (finished runs first)."""
    pairs = responses.values_list("model__name", "condition__name", "run_id").distinct().order_by()
    runs = {run.pk: run for run in Run.objects.filter(pk__in={p[2] for p in pairs}).only("pk", "status", "created_at")}
    newest: dict[tuple[str, str], int] = {}
    for model, strategy, run_id in pairs:
        run, best = runs[run_id], runs.get(newest.get((model, strategy)))
        key = (run.status == Run.Status.DONE, run.created_at, run.pk)
        if best is None or key > (best.status == Run.Status.DONE, best.created_at, best.pk):
            newest[(model, strategy)] = run_id
    return newest


def answer_frame(filters: BorderlinesFilter, territories: pd.DataFrame | None = None) -> pd.DataFrame:
    """The coded answers of the benchmark's BorderLines questions, one row per answer."""
    responses = Response.objects.answers().filter(question__benchmark__name=filters.benchmark,
                                                  question__borderlines__isnull=False, status=Response.Status.DONE)
    if filters.runs:
        responses = responses.filter(run_id__in=filters.runs)
    if filters.models:
        responses = responses.filter(model__name__in=filters.models)
    if filters.strategies:
        responses = responses.filter(condition__name__in=filters.strategies)
    if territories is not None:
        responses = responses.filter(question__borderlines__territory__name__in=list(territories["territory"]))
    keep = None if filters.runs else _newest_runs(responses)
    rows = []
    for model, strategy, run_id, repeat, territory, language, claimants, code in responses.values_list(
            "model__name", "condition__name", "run_id", "repeat", "question__borderlines__territory__name",
            "question__language", "question__borderlines__claimants_en", "code").iterator(chunk_size=5000):
        if keep is not None and keep.get((model, strategy)) != run_id:
            continue
        index = LETTERS.find(code) if code and code in LETTERS else -1
        claimant = claimants[index] if 0 <= index < len(claimants) else None
        # Answers from picked runs are told apart by run: two runs' repeat 0 are two passes.
        rows.append({"model": model, "strategy": strategy, "repeat": repeat if keep is not None else
                     f"{run_id}:{repeat}", "territory": territory, "language": language,
                     "answer_claimant": claimant, "run": run_id, "code": code})
    return pd.DataFrame(rows, columns=ANSWER_COLUMNS)
