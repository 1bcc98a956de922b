"""The CFPD dashboard's language panels (issue 41): each language's scenario-normalised
rates beside the others', a language × domain heat map per model, and the language
contrasts (`metrics.language_contrasts`) as a forest plot. Plain plotly JSON through
`analysis_app.panels.chart`, as every chart of the page. `add_panels` files them on a
board (the dashboard calls it only where `has_translations`, the cheap probe that keeps a
database with one language from paying for a second count)."""

from __future__ import annotations

import pandas as pd
import plotly.colors

from analysis_app.metrics.cluster_contrast import floor_sentence
from analysis_app.panels import chart, layout
from benchmarks_app.language_codes import SOURCE_LANGUAGE, direction

from . import contrast_figures
from .metrics.contrasts import method_note
from .metrics.language_contrasts import language_family, language_order
from .metrics.rates import domain_rates, scenario_rates
from .tidy_query import tidy_with_categories
from .translation_scores import language_quality, quality_note

NOTE_POOLED = ("The other panels pool every language a question was asked in (a run launched with --languages en,zh "
               "counts both); pick languages in the Languages box to see one alone.")


def has_translations() -> bool:
    """Whether any CFPD question is in another language than the source (one indexed probe)."""
    from benchmarks_app.language_codes import SOURCE_LANGUAGE
    from benchmarks_app.models import Question

    return Question.objects.filter(cfpd__isnull=False).exclude(language=SOURCE_LANGUAGE).exists()


def translations_used(filters) -> list[tuple[str, dict]]:
    """(language, back-translation scores) of each approved translation whose questions
    the filter's answers were asked in."""
    from scenarios_app.models import ScenarioTranslation

    pairs = set(filters.responses().exclude(question__language=SOURCE_LANGUAGE).values_list(
        "question__cfpd__scenario_id", "question__language").distinct().order_by())
    scenarios = {scenario for scenario, _ in pairs}
    rows = ScenarioTranslation.objects.filter(
        scenario_id__in=scenarios, status=ScenarioTranslation.Status.APPROVED).values_list(
        "scenario_id", "language", "scores")
    return [(language, scores) for scenario, language, scores in rows if (scenario, language) in pairs]


def with_quality(rates: pd.DataFrame, quality: dict) -> pd.DataFrame:
    """The rates with each language's back-translation means beside them (empty for the
    source language and a language with no back-translation)."""
    chrf = {lang: q.chrf for lang, q in quality.items()}
    bert = {lang: q.bertscore_f1 for lang, q in quality.items()}
    return rates.assign(back_translation_chrf=rates["language"].map(chrf).astype(float),
                        back_translation_bertscore_f1=rates["language"].map(bert).astype(float))


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


EXCERPT_CHARS = 48  # of a scenario's text in a row label: a figure's axis, not the page


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """`text`'s opening, whitespace folded, cut at `limit` characters with an ellipsis."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def scenario_texts(labels) -> dict[tuple[str, str], str]:
    """(scenario label `bench/key.vN`, language) → the scenario's text in that language:
    the source version's template, and each approved translation's."""
    from ..models import Scenario, ScenarioTranslation

    wanted = {label.split(":", 1)[0] for label in labels}
    texts, bases = {}, {}
    for scenario in Scenario.objects.select_related("benchmark").filter(
            key__in={label.split("/", 1)[1].rsplit(".v", 1)[0] for label in wanted}):
        base = f"{scenario.benchmark.name}/{scenario.key}.v{scenario.version}"
        if base in wanted:
            bases[scenario.pk] = base
            texts[(base, SOURCE_LANGUAGE)] = scenario.template
    for translation in ScenarioTranslation.objects.filter(scenario_id__in=bases,
                                                          status=ScenarioTranslation.Status.APPROVED):
        texts[(bases[translation.scenario_id], translation.language)] = translation.template
    return texts


def scenario_language_figure(per_scenario: pd.DataFrame, shown: dict[str, str], model: str,
                             texts: dict[tuple[str, str], str], source: str = "en") -> dict | None:
    """One model's rate of each domain's shown category on each scenario asked in two
    languages or more: a row per (scenario, language), labelled with the language and the
    opening of the scenario in its own words (Chinese in Chinese, Arabic in Arabic; the
    slots as written), the full text on hover. `texts`: (`bench/key.vN`, language) → text."""
    rows = per_scenario[(per_scenario["model"] == model)
                        & (per_scenario["category"] == per_scenario["domain"].map(shown))]
    if rows.empty:
        return None
    rows = rows.assign(base=rows["scenario"].str.split(":", n=1).str[0])
    several = rows.groupby("scenario")["language"].transform("nunique") > 1
    rows = rows[several]
    if rows.empty:
        return None
    order = {lang: i for i, lang in enumerate(language_order(sorted(set(rows["language"])), source))}
    rows = rows.assign(rank=rows["language"].map(order)).sort_values(["scenario", "rank"])
    labels, hovers = [], []
    for scenario, language, base in zip(rows["scenario"], rows["language"], rows["base"]):
        text = texts.get((base, language), "")
        variant = scenario.split(":", 1)[1] if ":" in scenario else ""
        shown_text = excerpt(text) if text else scenario
        if text and direction(language) == "rtl":
            # An isolate (RLI … PDI): the Arabic runs right to left as one, after "ar · ".
            shown_text = f"\u2067{shown_text}\u2069"
        labels.append(f"{language} · {shown_text}")
        hovers.append(f"{scenario} [{language}]<br>{excerpt(text, 200) if text else '(text not found)'}"
                      f"{'' if variant == 'full' else f' ({variant})'}")
    # Each row label once: a row whose label an earlier row has (two scenarios, or two variants
    # of one, opening alike) gets its scenario's key and variant.
    seen: set[str] = set()
    for i, label in enumerate(labels):
        if label in seen:
            labels[i] = f"{label} ({rows['scenario'].iloc[i].split('/', 1)[-1]})"
        seen.add(labels[i])
    palette = plotly.colors.qualitative.Safe
    traces = []
    for language in sorted(order, key=order.get):
        mine = [i for i, lang in enumerate(rows["language"]) if lang == language]
        traces.append({"type": "scatter", "mode": "markers", "name": language,
                       "x": [float(rows["rate"].iloc[i]) for i in mine], "y": [labels[i] for i in mine],
                       "customdata": [hovers[i] for i in mine], "marker": {"size": 10,
                                                                           "color": palette[order[language] % len(palette)]},
                       "hovertemplate": "%{customdata}<br>rate %{x:.0%}<extra></extra>"})
    return chart(traces, layout(f"{model}: each scenario asked in two languages or more, in its own words "
                                "(the domain's shown category)", height=max(300, 26 * len(labels) + 160),
                                xaxis={"title": {"text": "rate"}, "range": [-0.05, 1.05], "tickformat": ".0%"},
                                yaxis={"autorange": "reversed", "type": "category", "automargin": True,
                                       "categoryorder": "array", "categoryarray": labels},
                                margin={"l": 20}))


def add_panels(add, board, filters, iterations: int, seed: int, adjust: str, headlines) -> None:
    """The rates by language of the question (a language × domain heat map of the heatmap's
    model) and the language contrasts (the same scenario and dyad in two languages), when
    the filter holds answers in two languages or more. `add` files a panel on the board;
    `headlines(table, category)` is the dashboard's domain → category shown."""
    counted = tidy_with_categories(filters, by_dyad=True, by_language=True)
    table, sets = counted.table, counted.categories
    languages = sorted(set(table.loc[(table["n"] > 0) & (table["outcome"] == "answer"), "language"]))
    if len(languages) < 2:
        return
    quality = language_quality(translations_used(filters), languages, SOURCE_LANGUAGE)
    rates = with_quality(language_rates(table, sets), quality)
    shown = headlines(rates, board.category)
    add("languages", "Languages: rates by the language of the question", rates,
        lambda t: heatmap_figure(t, shown, board.heatmap_model, SOURCE_LANGUAGE),
        f"Scenario-normalised rates per language ({', '.join(languages)}), every model in the table; the heat map "
        f"shows {board.heatmap_model} (pick another in Heatmap model): each domain's headline category (or the one "
        f"picked above), a row per language. " + NOTE_POOLED + quality_note(quality, SOURCE_LANGUAGE))
    per_scenario = scenario_rates(table, sets, by=["language"])
    several = per_scenario.groupby("scenario")["language"].transform("nunique") > 1
    texts = scenario_texts(set(per_scenario.loc[several, "scenario"]))
    add("language_scenarios", "Languages by scenario: each translated scenario in its own words", per_scenario,
        lambda t: scenario_language_figure(t, shown, board.heatmap_model, texts, SOURCE_LANGUAGE),
        f"Each scenario asked in two languages or more, a row per language labelled with the scenario's opening in "
        f"that language (its full text on hover); the dot is {board.heatmap_model}'s rate of the domain's headline "
        f"category (or the one picked above) on that scenario, its dyads pooled. " + NOTE_POOLED)
    patterns = max(iterations, 10_000)
    family = language_family(table, SOURCE_LANGUAGE, sets, iterations, seed, adjust, patterns=patterns)
    drawn = contrast_figures.forest_rows(family, headlines(family, board.category)) if len(family) else family
    add("language_contrasts", "Language contrasts: the same scenario and dyad in two languages", family,
        lambda t: contrast_figures.forest_figure(t, headlines(t, board.category), adjust),
        method_note(adjust, iterations, patterns)
        + f" Pairs: each language against the source language ({SOURCE_LANGUAGE}, left) and any two others; on each "
          "scenario the rates are the means over the dyads asked in both languages (contrast_report --kind "
          "language writes the same table)."
        + (floor_sentence(drawn["n_scenarios"], "scenarios") if len(drawn)
           else " No chart: no language contrast in this filter rests on two scenarios or more.")
        + quality_note(quality, SOURCE_LANGUAGE))
