"""The CFPD dashboard's language panels (issue 41): each language's scenario-normalised
rates beside the others', a language × domain heat map per model, and the language
contrasts (`metrics.language_contrasts`) as a forest plot. Plain plotly JSON through
`analysis_app.panels.chart`, as every chart of the page; pure (no Django) apart from
`has_translations`, the cheap probe that keeps a database with one language from paying
for a second count."""

from __future__ import annotations

import pandas as pd
import plotly.colors

from analysis_app.panels import chart, layout

from .metrics.language_contrasts import language_order
from .metrics.rates import domain_rates

NOTE_POOLED = ("The other panels pool every language a question was asked in (a run launched with --languages en,zh "
               "counts both); pick languages in the Languages box to see one alone.")


def has_translations() -> bool:
    """Whether any CFPD question is in another language than the source (one indexed probe)."""
    from benchmarks_app.language_codes import SOURCE_LANGUAGE
    from benchmarks_app.models import Question

    return Question.objects.filter(cfpd__isnull=False).exclude(language=SOURCE_LANGUAGE).exists()


def language_rates(table: pd.DataFrame, sets) -> pd.DataFrame:
    """Per (model, domain, choice_count, language, category): the normalised rate, its
    scenarios and answers (`rates.domain_rates` split by language)."""
    return domain_rates(table, sets, by=["language"])


def heatmap_figure(rates: pd.DataFrame, shown: dict[str, str], model: str, source: str = "en") -> dict | None:
    """One model's rates: a row per language (the source first), a column per domain form,
    each cell the rate of the domain's shown category (`shown`: domain → category), printed
    in the cell; a cell the language was not asked there is empty."""
    rows = rates[(rates["model"] == model) & (rates["category"] == rates["domain"].map(shown))]
    if rows.empty:
        return None
    rows = rows.assign(form=[f"{d} ({c}) · {cat}" for d, c, cat in
                             zip(rows["domain"], rows["choice_count"], rows["category"])])
    grid = rows.pivot_table(index="language", columns="form", values="rate", aggfunc="mean")
    grid = grid.reindex(language_order(list(grid.index), source))
    trace = {"type": "heatmap", "z": grid.to_numpy(), "x": list(grid.columns), "y": list(grid.index),
             "zmin": 0.0, "zmax": 1.0, "colorscale": plotly.colors.get_colorscale("Viridis"),
             "texttemplate": "%{z:.0%}", "textfont": {"size": 11}, "colorbar": {"tickformat": ".0%"},
             "xgap": 1, "ygap": 1, "hovertemplate": "%{y} · %{x}: %{z:.1%}<extra></extra>"}
    return chart([trace], layout(f"{model}: each domain's shown category by language of the question (rows) "
                                 "and domain (columns)", height=max(300, 60 * len(grid.index) + 180),
                                 xaxis={"title": {"text": "domain (options) · category"}, "side": "bottom"},
                                 yaxis={"title": {"text": "language"}, "autorange": "reversed", "type": "category"}))
