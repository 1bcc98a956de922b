"""BorderLines' headline figures for the models' profiles (`analysis_app.headlines`):
per benchmark, model and strategy, the concurrence scores of `borderlines_report` and
the territories page (KB, Control, Non-control and Consistency CS, in percent, with their
95% percentile bootstrap over territories at the page's defaults: 1,000 iterations,
seed 0), each from the runs the page counts (each model and strategy's newest run)."""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlencode

from django.urls import reverse

from analysis_app.results import Figure

FAMILY = "borderlines"
ITERATIONS = 1000
SEED = 0
# (score, label, the column counting the territories that enter it)
SCORES = [("kb_cs", "KB CS: the English control names the controller", "n_kb"),
          ("control_cs", "Control CS: the controller's language names it", "n_control"),
          ("non_control_cs", "Non-control CS: the other claimants' languages name it", "n_non_control"),
          ("consistency_cs", "Consistency CS: in-language answers agree", "n_consistency")]


def publish(models: Sequence[str] | None = None) -> list[Figure]:
    # Imported here: the report reads pandas and the ORM, and apps.ready must stay light.
    from benchmarks_app.models import Benchmark

    from .report import build
    from .report_frames import BorderlinesFilter, answer_frame

    figures = []
    for benchmark in Benchmark.objects.filter(family=FAMILY).order_by("name").values_list("name", flat=True):
        filters = BorderlinesFilter(benchmark=benchmark, models=tuple(models or ()))
        scores = build(filters, iterations=ITERATIONS, seed=SEED, paired=False).scores
        if scores.empty:
            continue
        answers = answer_frame(filters)  # the runs the scores count (newest run per model and strategy)
        runs = answers.groupby(["model", "strategy"])["run"].agg(lambda r: sorted(set(r))).to_dict()
        for row in scores.to_dict(orient="records"):
            for score, label, n in SCORES:
                figures.append(Figure(
                    benchmark=benchmark, family=FAMILY, model=row["model"], condition=row["strategy"],
                    metric=score, label=label, estimate=row[score], ci_low=row[f"{score}_ci_low"],
                    ci_high=row[f"{score}_ci_high"], n=int(row[n] or 0), unit="percent", direction="higher",
                    runs=tuple(runs.get((row["model"], row["strategy"]), ()))))
    return figures


def link(model: str, benchmark: str) -> str:
    return f"{reverse('territories-dashboard')}?{urlencode({'benchmark': benchmark, 'model': model})}"


def register_headline():
    from analysis_app import headlines

    headlines.register(FAMILY, publish, label="Territorial disputes (BorderLines)", link=link,
                       about="Concurrence scores per strategy, in percent of territories, with their 95% bootstrap "
                             "interval over territories; rank 1 is the highest score.")
