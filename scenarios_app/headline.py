"""CFPD's headline figures for the models' profiles (`analysis_app.headlines`): per
model and domain form (domain and number of options), the scenario-normalised rate
(3.6) of the domain's headline category (the escalatory or most engaged option: "Use of
force", "High intervention", "Cooperative", "Balancing"), with its 95% percentile
bootstrap over scenarios, as the CFPD dashboard's rates panel shows it with no filter
(1,000 iterations, seed 0, each launch's newest run, every condition pooled). Where
questions were asked in several languages (issue 41), the model's **language sensitivity**
too: per domain form the language contrast of the headline category (left − right, a difference of rates,
the same scenario and dyad in two languages: `metrics.language_contrasts`), and per pair of
languages the mean absolute shift over the domain forms."""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlencode

from django.urls import reverse

from analysis_app.results import Figure

FAMILY = "cfpd"
ITERATIONS = 1000
SEED = 0


def publish(models: Sequence[str] | None = None) -> list[Figure]:
    # Imported here: the dashboard's modules load pandas, plotly and the ORM, and apps.ready must stay light.
    from runs_app.models import Run

    from .analysis import metrics
    from .analysis.dashboard import HEADLINE
    from .analysis.tidy_query import AnalysisFilter, latest_launches, tidy_with_categories

    filters, _ = latest_launches(AnalysisFilter(models=tuple(models or ())))
    main = tidy_with_categories(filters, by_repeat=True, by_actor=False)
    tidy, sets = main.table, main.categories
    if not ((tidy["outcome"] == "answer") & (tidy["n"] > 0)).any():
        return []
    runs = tidy[tidy["n"] > 0].groupby("model")["run"].agg(lambda r: sorted(set(r))).to_dict()
    benchmark = ", ".join(sorted(set(Run.objects.filter(pk__in=set(tidy["run"])).values_list(
        "benchmark__name", flat=True))))
    table = metrics.preference_table(metrics.pooled(tidy), ITERATIONS, SEED, sets)
    # Per domain form its headline category: the first of HEADLINE it offers, else its first.
    offered = table.groupby(["domain", "choice_count"])["category"].agg(lambda c: sorted(set(c))).to_dict()
    shown = {form: next((h for h in HEADLINE if h in cats), cats[0]) for form, cats in offered.items()}
    figures = []
    for row in table.to_dict(orient="records"):
        domain, count, category = row["domain"], int(row["choice_count"]), row["category"]
        if shown[(domain, count)] != category:
            continue
        figures.append(Figure(
            benchmark=benchmark, family=FAMILY, model=row["model"], condition="",
            metric=f"rate:{domain}:{count}:{category}", label=f"{domain} ({count} options): “{category}”",
            estimate=row["rate"], ci_low=row["ci_low"], ci_high=row["ci_high"], n=int(row["n_scenarios"]),
            unit="share", direction="higher", runs=tuple(runs.get(row["model"], ()))))
    return figures + language_sensitivity(filters, benchmark, shown, runs)


def language_sensitivity(filters, benchmark: str, shown: dict, runs: dict) -> list[Figure]:
    """The language figures of the profile (none where every question is in one language)."""
    from benchmarks_app.language_codes import SOURCE_LANGUAGE

    from .analysis.language_figures import has_translations
    from .analysis.metrics.language_contrasts import language_family
    from .analysis.tidy_query import tidy_with_categories

    if not has_translations():
        return []
    counted = tidy_with_categories(filters, by_dyad=True, by_language=True)
    family = language_family(counted.table, SOURCE_LANGUAGE, counted.categories, ITERATIONS, SEED)
    if family.empty:
        return []
    family = family[[shown.get((d, int(c))) == category for d, c, category in
                     zip(family["domain"], family["choice_count"], family["category"])]]
    figures = []
    for row in family.to_dict(orient="records"):
        domain, count, left, right = row["domain"], int(row["choice_count"]), row["left"], row["right"]
        figures.append(Figure(
            benchmark=benchmark, family=FAMILY, model=row["model"], condition="",
            metric=f"language:{domain}:{count}:{row['category']}:{left}-{right}",
            label=f"Language sensitivity, {domain} ({count} options): “{row['category']}” asked in {left} − in "
                  f"{right}",
            # A difference of rates, as a share (the profile's chart draws every CFPD figure on one
            # rate axis: points there read as thousands of percent).
            estimate=row["estimate"] / 100, ci_low=row["ci_low"] / 100, ci_high=row["ci_high"] / 100,
            n=int(row["n_scenarios"]), unit="share", direction="higher", runs=tuple(runs.get(row["model"], ()))))
    for (model, left, right), rows in family.groupby(["model", "left", "right"], sort=True):
        figures.append(Figure(
            benchmark=benchmark, family=FAMILY, model=model, condition="", metric=f"language:{left}-{right}",
            label=f"Language sensitivity, {left} vs {right}: mean absolute shift of the headline categories over "
                  f"{len(rows)} domain form{'s' if len(rows) != 1 else ''}",
            estimate=float(rows["estimate"].abs().mean()) / 100, n=len(rows), unit="share", direction="lower",
            runs=tuple(runs.get(model, ()))))
    return figures


def version():
    """Codes changed in place (a reviewer's undo) move the tallies' version on PostgreSQL."""
    from .analysis import tally

    return tally.version()


def link(model: str, benchmark: str) -> str:
    return f"{reverse('analysis-dashboard')}?{urlencode({'model': model})}"


def register_headline():
    from analysis_app import headlines

    headlines.register(FAMILY, publish, label="Foreign-policy preferences (CFPD)", link=link, version=version,
                       about="The rate of each domain's headline category (the escalatory or most engaged option), "
                             "scenario-normalised, with its 95% bootstrap interval over scenarios; rank 1 is the "
                             "highest rate.")
