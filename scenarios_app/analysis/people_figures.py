"""Panels of people on the CFPD dashboard (issue 40): the table of the "People beside the
models" panel (the models' rates as the rates panel has them, each panel of people's from
`metrics.people`, every row saying its source) and its chart, people's bars hatched and named
"People: …". Plain plotly JSON through `analysis_app.panels.chart`, as every chart of the page."""

from __future__ import annotations

import pandas as pd

from analysis_app import forest
from analysis_app.metrics.multiplicity import NAMES, SHORT_NAMES
from analysis_app.panels import chart, layout
from analysis_app.people import LABEL_PREFIX

from . import metrics
from .metrics import people as people_metrics
from .tidy_query import people_answers

PEOPLE_COLOURS = ["#444444", "#8c6d31", "#7b4173", "#393b79"]
RATE_AXIS = {"range": [0, 1.05], "tickformat": ".0%"}
KEYS = ["domain", "choice_count", "category", "rate", "ci_low", "ci_high", "n_scenarios"]

METHOD = (
    "Panels of people answer the same questions (issue 40); their answers are kept apart from the models' and are "
    "never counted in a model's figures. A panel's rate is normalised over scenarios as a model's is (its people's "
    "share within each scenario, then the mean over the scenarios they answered); its 95% interval is rate ± 1.96 "
    "× the standard error clustered two ways, by respondent and by scenario (Cameron, Gelbach and Miller 2011), "
    "since one person answers several scenarios. The models' rows are the rates panel's (bootstrap over "
    "scenarios, {iterations} iterations, seed {seed}). Respondents who failed an attention check are left out"
    "{excluded}. The filter's domains, choice counts and actors narrow people's answers; its runs, models and "
    "conditions are the models'.")


def _form(rows):
    return [f"{d} ({c}) · {cat}" for d, c, cat in zip(rows["domain"], rows["choice_count"], rows["category"])]


def people_table(answers: pd.DataFrame, models: pd.DataFrame, sets) -> pd.DataFrame:
    """The models' rows (`models`: the rates panel's table) and each panel of people's
    (`answers`: `tidy_query.people_answers`), with `source` and `who` columns."""
    theirs = people_metrics.people_rates(answers, sets)
    table = pd.concat([
        models[["model"] + KEYS].rename(columns={"model": "who"}).assign(source="model",
                                                                        interval="bootstrap over scenarios"),
        theirs.rename(columns={"people": "who"})[["who"] + KEYS + ["n_respondents", "n_answers"]]
        .assign(source="people", interval="clustered by respondent and scenario")], ignore_index=True)
    table = table[["source", "who"] + KEYS + ["interval", "n_respondents", "n_answers"]]
    for column in ("n_respondents", "n_answers"):  # counts of people; none on a model's row (not 0, not 3.000)
        table[column] = pd.Series([None if pd.isna(v) else int(v) for v in table[column]], dtype=object)
    return table


def method_note(groups, iterations: int, seed: int) -> str:
    excluded = sum(group.excluded for group in groups)
    return METHOD.format(iterations=iterations, seed=seed,
                         excluded=(f" ({excluded} respondent{'s' if excluded != 1 else ''} of the panels shown)"
                                   if excluded else " (no respondent of the panels shown failed one)"))


def people_figure(table: pd.DataFrame, colours) -> dict:
    """The models' rates and each panel of people's side by side, one bar each; people's bars
    grey or brown and hatched, named "People: …" in the legend, their error bars the
    interval clustered by respondent and scenario."""
    traces = []
    panels_shown = sorted(table.loc[table["source"] == "people", "who"].unique())
    for (source, who), rows in table.groupby(["source", "who"], sort=True):
        colour = colours.get(who) if source == "model" else PEOPLE_COLOURS[panels_shown.index(who)
                                                                           % len(PEOPLE_COLOURS)]
        marker = {"color": colour}
        if source == "people":
            marker["pattern"] = {"shape": "/", "fgcolor": "#ffffff", "solidity": 0.3}
        traces.append({"type": "bar", "name": who, "x": _form(rows), "y": rows["rate"], "marker": marker,
                       "error_y": {"type": "data", "symmetric": False, "array": rows["ci_high"] - rows["rate"],
                                   "arrayminus": rows["rate"] - rows["ci_low"]}})
    # models first, then people, as the table lists them
    traces.sort(key=lambda t: (t["name"].startswith(LABEL_PREFIX), t["name"]))
    return chart(traces, layout("Models and panels of people by domain (people's bars hatched)", barmode="group",
                                  yaxis=RATE_AXIS, height=520))


def add_panel(add, board, filters, by_actor, pooled, per_scenario, sets, iterations: int, seed: int, colours):
    """Each panel of people beside the models on the board; no panel of people: none on the
    board. Returns people's answers in the filter (for `add_more`), or None."""
    found = people_answers(filters)
    answers = found.answers
    if filters.focus_complete and len(answers):
        answers = answers[answers["scenario"].isin(by_actor()[0])]
    if answers.empty:
        return None
    models = (board.panels["rates"].table if "rates" in board.panels
              else metrics.preference_table(pooled, iterations, seed, sets, per_scenario=per_scenario))
    add("people", "People beside the models", people_table(answers, models, sets),
        lambda t: people_figure(t, colours), method_note(found.groups, iterations, seed))
    return answers


COUNTRY_KEYS = ["domain", "choice_count", "qualified_actor", "category", "rate", "ci_low", "ci_high", "n_scenarios"]


def people_country_table(answers: pd.DataFrame, models: pd.DataFrame, actors, sets) -> pd.DataFrame:
    """The models' rates per qualified actor (`models`: the per-country panel's table, no
    interval) and each panel of people's, normalised the same way, with its interval clustered
    by respondent and scenario; `source` and `who` columns as `people_table`'s."""
    ours = answers[answers["qualified_actor"].isin(list(actors))]
    theirs = people_metrics.people_rates(ours, sets, by=["qualified_actor"])
    table = pd.concat([
        models.rename(columns={"model": "who"}).assign(source="model", ci_low=float("nan"), ci_high=float("nan"),
                                                        interval="none (the per-country panel's rates)"),
        theirs.rename(columns={"people": "who"}).assign(source="people",
                                                         interval="clustered by respondent and scenario")],
        ignore_index=True)
    table = table[["source", "who"] + COUNTRY_KEYS + ["interval", "n_respondents", "n_answers"]]
    table["n_respondents"] = pd.Series([None if pd.isna(v) else int(v) for v in table["n_respondents"]], dtype=object)
    table["n_answers"] = pd.Series([None if pd.isna(v) else int(v) for v in table["n_answers"]], dtype=object)
    return table


def people_country_figure(table: pd.DataFrame, category: str, colours) -> dict:
    """`category` per qualified actor: the models' bars and each panel's, hatched, with its interval."""
    rows = table[table["category"] == category]
    panels_shown = sorted(rows.loc[rows["source"] == "people", "who"].unique())
    traces = []
    for (source, who), part in rows.groupby(["source", "who"], sort=True):
        marker = {"color": colours.get(who) if source == "model"
                  else PEOPLE_COLOURS[panels_shown.index(who) % len(PEOPLE_COLOURS)]}
        trace = {"type": "bar", "name": who, "marker": marker, "y": part["rate"],
                 "x": [f"{a} · {d} ({c})" for a, d, c in zip(part["qualified_actor"], part["domain"],
                                                            part["choice_count"])]}
        if source == "people":
            marker["pattern"] = {"shape": "/", "fgcolor": "#ffffff", "solidity": 0.3}
            trace["error_y"] = {"type": "data", "symmetric": False, "array": part["ci_high"] - part["rate"],
                                "arrayminus": part["rate"] - part["ci_low"]}
        traces.append(trace)
    traces.sort(key=lambda t: (t["name"].startswith(LABEL_PREFIX), t["name"]))
    return chart(traces, layout(f"“{category}” by qualified actor, models and panels of people (people's bars "
                                "hatched)", barmode="group", yaxis=RATE_AXIS, height=480))


def contrast_figure(table: pd.DataFrame, shown: dict[str, str], adjust: str) -> dict | None:
    """The shared forest plot of each domain's shown category (people − model, points)."""
    rows = table[table["category"] == table["domain"].map(shown)]
    if rows.empty:
        return None
    rows = rows.assign(label=[f"{r.people} − {r.model} · {r.domain} ({r.choice_count}) · {r.category}"
                              for r in rows.itertuples()])
    return forest.forest_figure(rows, "People minus each model (points), 95% intervals clustered by respondent "
                                      "and scenario", "← model higher · people higher → (points)", "n_scenarios",
                                "scenarios", correction=SHORT_NAMES[adjust])


COUNTRY_NOTE = (
    "Rates of “{category}” by qualified actor ({actors}): the models' as the per-country panel has them (no "
    "interval there), each panel of people's normalised the same way (its people's share within each scenario "
    "asked for the actor, then the mean over those scenarios) with its 95% interval clustered by respondent and "
    "scenario. The table has every category.")
CONTRAST_NOTE = (
    "Each panel of people minus each model, on the scenarios both answered: both rates normalised over those "
    "scenarios, their difference in points; 95% interval = difference ± 1.96 × SE, the SE clustered two ways, by "
    "respondent and by scenario (statsmodels' weighted least squares of the answers on a people/model indicator, "
    "a model's scenario rate one observation of its scenario, so the scenarios both answered pair the two rates); "
    "p from the normal distribution, adjusted by {correction} across the table. The chart shows each domain's "
    "headline category (or the one picked above).")


def add_more(add, board, answers: pd.DataFrame | None, by_actor, shown_actors, per_scenario, sets, adjust: str,
             colours, headlines) -> None:
    """Each panel of people per qualified actor, and people minus each model (after `add_panel`;
    `headlines(table)`: each domain's category the charts show); none without people's answers."""
    if answers is None:
        return
    models = (board.panels["countries"].table if "countries" in board.panels
              else metrics.country_rates(by_actor()[1], shown_actors, sets))
    table = people_country_table(answers, models, shown_actors, sets)
    if (table["source"] == "people").any():
        add("people_countries", "People beside the models, per country", table,
            lambda t: people_country_figure(t, board.category, colours),
            COUNTRY_NOTE.format(category=board.category, actors=", ".join(shown_actors)))
    contrasts = people_metrics.people_model_contrasts(answers, per_scenario, sets, adjust)
    if len(contrasts):
        add("people_contrasts", "People minus each model", contrasts,
            lambda t: contrast_figure(t, headlines(t), adjust), CONTRAST_NOTE.format(correction=NAMES[adjust]))
