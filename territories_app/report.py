"""The BorderLines scores of the answers in the database: the concurrence table (with
bootstrap intervals over territories) and the per-territory case view."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
from django.db.models import Exists, OuterRef, Q

from benchmarks_app.models import Benchmark
from runs_app.models import Response, Run

from . import concurrence, contrasts
from .family import NAME as FAMILY
from .report_frames import BorderlinesFilter, answer_frame, territory_frame

# The report's columns, in the order `borderlines_report` writes them.
REPORT_COLUMNS = ["model", "strategy", "kb_cs", "control_cs", "non_control_cs", "delta_cs", "delta_cs_abs",
                  "consistency_cs", "consistency_cs_unknown", "mean_countries", "mean_countries_with_control",
                  "random_baseline", "n_known", "n_territories"]
CASE_COLUMNS = ["model", "strategy", "repeat", "territory", "language", "role", "status", "answer_claimant",
                "names_controller"]


@dataclass
class BorderlinesReport:
    scores: pd.DataFrame  # concurrence.output_columns()
    cases: pd.DataFrame  # concurrence.case_view's columns, in the languages picked
    territories: pd.DataFrame
    answers: int
    unresolved: int  # answers placed on no claimant: with reviewers, refusals (R) and invalid (X) together
    # Every language's case: the map reads the scores' answers, not the case view's languages.
    all_cases: pd.DataFrame | None = None
    refusals: int = 0  # of `unresolved`: coded R
    invalid: int = 0  # of `unresolved`: coded X (names no claimant, refuses nothing)
    # Paired contrasts clustered by territory (territories_app.contrasts.COLUMNS), one family.
    contrasts: pd.DataFrame | None = None
    adjust: str = "bh"


def _concurrence_territories(territories: pd.DataFrame) -> pd.DataFrame:
    return territories[["territory", "controller", "claimants", "claimant_languages"]]


# Monte Carlo sign patterns past 20 territories on a page: a tenth of the module's default,
# still p down to 1e-4 (the same choice as CFPD's contrasts panel).
PAGE_PATTERNS = 10_000


def build(filters: BorderlinesFilter, iterations: int = 1000, seed: int = 0, adjust: str = "bh",
          paired: bool = True) -> BorderlinesReport:
    """The scores, the case view and (unless `paired` is False) the paired contrasts,
    adjusted with `adjust` ("bh" or "holm")."""
    territories = territory_frame(filters)
    answers = answer_frame(filters, territories)
    plain = _concurrence_territories(territories)
    scored = answers.drop(columns=["run", "code"])
    scores = concurrence.concurrence_table(scored, plain, iterations=iterations, seed=seed)
    all_cases = concurrence.case_view(scored, plain)
    cases = all_cases[all_cases["language"].isin(filters.languages)] if filters.languages else all_cases
    table = (contrasts.contrasts(concurrence.territory_scores(scored, plain), iterations=iterations, seed=seed,
                                 method=adjust, patterns=PAGE_PATTERNS) if paired else None)
    return BorderlinesReport(scores=scores, cases=cases.reset_index(drop=True), territories=territories,
                             answers=len(answers), unresolved=int(answers["answer_claimant"].isna().sum()),
                             all_cases=all_cases, refusals=int((answers["code"] == "R").sum()),
                             invalid=int((answers["code"] == "X").sum()), contrasts=table, adjust=adjust)


class BenchmarkChoiceError(ValueError):
    """No BorderLines benchmark, or more than one, fits what the report was given; the
    message names the candidates and the fix."""


def _names(benchmarks) -> str:
    return ", ".join(sorted(benchmarks)) or "none; import one with import_borderlines"


def report_benchmark(name: str | None, runs=(), models=()) -> str:
    """The BorderLines benchmark a report is of: `name` when given; else the one the runs
    (or else the models' runs) were of; else the only one there is. Runs of a benchmark of
    another family are refused; several candidates are listed, to pick with --benchmark."""
    family = FAMILY
    every = set(Benchmark.objects.filter(family=family).values_list("name", flat=True))
    if name:
        if name not in every:
            raise BenchmarkChoiceError(f"no BorderLines benchmark named {name!r} (BorderLines benchmarks: "
                                       f"{_names(every)})")
        return name
    if runs:
        found = Run.objects.filter(pk__in=runs).select_related("benchmark")
        other = sorted(f"run {r.pk} is of the {r.benchmark.get_family_display()} benchmark {r.benchmark.name!r}"
                       for r in found if r.benchmark.family != family)
        if other:
            raise BenchmarkChoiceError("; ".join(other) + "; pick runs of a BorderLines benchmark")
        candidates = {r.benchmark.name: [] for r in found}
        for r in found:
            candidates[r.benchmark.name].append(f"run {r.pk}")
        given = "--run " + ", ".join(map(str, runs))
    elif models:
        # A run lists its models; answers imported or made by hand may name a model the run does not list.
        answered = Response.objects.filter(run=OuterRef("pk"), model__name__in=models)
        found = (Run.objects.filter(benchmark__family=family)
                 .filter(Q(llm_models__name__in=models) | Exists(answered)).distinct()
                 .select_related("benchmark").order_by("pk"))
        candidates = {}
        for r in found:
            candidates.setdefault(r.benchmark.name, []).append(f"run {r.pk}")
        given = "--model " + ", ".join(models)
        if not candidates:
            raise BenchmarkChoiceError(f"{given} has no run of a BorderLines benchmark (BorderLines benchmarks: "
                                       f"{_names(every)}); launch one, or name the benchmark with --benchmark")
    else:
        candidates = {benchmark: [] for benchmark in every}
        given = "no --run, --model or --benchmark"
        if not candidates:
            raise BenchmarkChoiceError(f"no BorderLines benchmark (BorderLines benchmarks: {_names(every)})")
    if len(candidates) == 1:
        return next(iter(candidates))
    listed = "; ".join(f"{benchmark} ({', '.join(found)})" if found else benchmark
                       for benchmark, found in sorted(candidates.items()))
    raise BenchmarkChoiceError(f"{given} fits {len(candidates)} BorderLines benchmarks: {listed}; "
                               "name one with --benchmark")
