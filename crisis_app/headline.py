"""The free-form crisis family's headline figures for the models' profiles
(`analysis_app.headlines`): per benchmark, scorer, model and temperature, the
inconsistency of the base tellings (level 0) as the crisis page's temperature curve
draws it: the mean over runs of each run's mean of its group means, with the 95%
percentile bootstrap over runs (1,000 iterations, seed 0). Lower is more consistent, and
ranks first. A scorer that failed a check (`instrument_state`) publishes its figures
withheld: shown with the reason, not ranked."""

from __future__ import annotations

import math
from collections.abc import Sequence
from urllib.parse import urlencode

from django.db.models import Count, Max
from django.urls import reverse

from analysis_app.results import Figure

FAMILY = "freeform"
ITERATIONS = 1000
SEED = 0


def _condition(temperature) -> str:
    return "the model's own temperature" if temperature is None or math.isnan(temperature) else (
        f"temperature {temperature:g}")


def publish(models: Sequence[str] | None = None) -> list[Figure]:
    # Imported here: the report reads pandas and the ORM, and apps.ready must stay light.
    from . import instrument_state, queries
    from . import report as reports
    from .queries import CrisisFilter

    figures = []
    for benchmark in queries.freeform_benchmarks():
        names = queries.scorer_names(benchmark)
        failed = instrument_state.notices(names)  # their figures are published withheld: not results
        for scorer in names:
            rows = queries.group_rows(CrisisFilter(benchmark=benchmark, scorers=(scorer,),
                                                   models=tuple(models or ())))
            per_run = reports.per_run_frame(rows)
            if per_run.empty:
                continue
            curve = reports.curve_frame(per_run, n_bootstrap=ITERATIONS, seed=SEED)
            base = per_run[per_run["level"] == reports.BASE_LEVEL]
            runs = base.groupby(["model", "temperature"], dropna=False)["run"].agg(lambda r: sorted(set(r)))
            runs = {(m, _condition(t)): r for (m, t), r in runs.items()}
            for row in curve.to_dict(orient="records"):
                condition = _condition(row["temperature"])
                figures.append(Figure(
                    benchmark=benchmark, family=FAMILY, model=row["model"], condition=condition,
                    metric=f"inconsistency:{scorer}", label=f"Inconsistency of the base tellings ({scorer})",
                    estimate=row["mean"], ci_low=row["ci_low"], ci_high=row["ci_high"], n=int(row["runs"]),
                    unit="score", direction="lower", runs=tuple(runs.get((row["model"], condition), ())),
                    withheld=failed.get(scorer, "")))
    return figures


def version():
    """Scores are added (and replaced) without a new answer: their newest id and count; and a
    scorer marked as failed withholds its figures (`instrument_state.version`)."""
    from . import instrument_state
    from .models import GroupScore

    return (*GroupScore.objects.aggregate(m=Max("pk"), n=Count("pk")).values(), instrument_state.version())


def link(model: str, benchmark: str) -> str:
    return f"{reverse('crisis-dashboard')}?{urlencode({'benchmark': benchmark, 'model': model})}"


def register_headline():
    from analysis_app import headlines

    headlines.register(FAMILY, publish, label="Free-form crisis simulations", link=link, version=version,
                       about="Inconsistency of the base tellings per scorer and temperature (0 the same answer "
                             "every time), with its 95% bootstrap interval over runs; rank 1 is the most consistent "
                             "(the lowest).")
