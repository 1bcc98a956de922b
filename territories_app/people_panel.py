"""Panels of people on the territorial-disputes page (issue 40): their answers read through
the neutral hook (`analysis_app.people`: this family does not know the room that keeps them),
scored by `people_scores` and set beside the models' KB, Control and Non-control CS, every
row saying its source."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from analysis_app import people
from analysis_app.panels import PALETTE, Panel, chart, layout
from benchmarks_app.lettering import LETTERS
from benchmarks_app.models import Benchmark, Question

from .people_scores import SCORES, people_scores

PEOPLE_COLOURS = ["#444444", "#8c6d31", "#7b4173", "#393b79"]
COLUMNS = ["source", "who", "strategy", "score", "rate", "ci_low", "ci_high", "n_territories", "interval",
           "n_respondents", "n_answers"]
NOTE = (
    "Panels of people answer the same questions (issue 40), kept apart from the models' answers and never counted "
    "in a model's scores. In percent of territories with a known controller: KB CS, English answers naming the "
    "controller; Control CS, answers in the controller's language; Non-control CS, answers in the other "
    "claimants' languages. A panel's score is its people's share within each territory, then the mean over the "
    "territories; its 95% interval is score ± 1.96 × the standard error clustered two ways, by respondent and by "
    "territory. The models' rows are the scores panel's (bootstrap over territories). Consistency and the "
    "countries named need one person's answer in every language of a territory and are not computed for people. "
    "The filter's regions narrow people's answers; its runs, models and strategies are the models'.{excluded}")


def people_answers(filters, territories: pd.DataFrame) -> tuple[pd.DataFrame, list]:
    """(people's answers to the benchmark's territorial questions in the filter's territories,
    as `people_scores` reads them; the panels they come from)."""
    columns = ["people", "respondent", "territory", "language", "answer_claimant"]
    benchmark = Benchmark.objects.filter(name=filters.benchmark).values_list("pk", flat=True).first()
    groups = people.groups([benchmark]) if benchmark is not None else []
    answered = people.answers(group_keys=[g.key for g in groups]) if groups else []
    if not answered:
        return pd.DataFrame(columns=columns), []
    known = {pk: (territory, language, claimants) for pk, territory, language, claimants in Question.objects.filter(
        pk__in={a.question_id for a in answered}, borderlines__territory__name__in=list(territories["territory"]))
        .values_list("pk", "borderlines__territory__name", "language", "borderlines__claimants_en")}
    labels = {g.key: g for g in groups}
    rows = []
    for a in answered:
        if a.question_id not in known or a.group not in labels:
            continue
        territory, language, claimants = known[a.question_id]
        index = LETTERS.find(a.code) if a.code and a.code in LETTERS else -1
        rows.append((a.group, a.respondent, territory, language,
                     claimants[index] if 0 <= index < len(claimants) else None))
    frame = pd.DataFrame(rows, columns=columns)
    # The label counts the respondents whose answers are in the filter.
    shown = frame.groupby("people")["respondent"].nunique().to_dict()
    kept = [replace(g, respondents=shown[g.key]) for g in groups if shown.get(g.key)]
    frame["people"] = frame["people"].map({g.key: g.label for g in kept})
    return frame, kept


def people_table(theirs: pd.DataFrame, scores: pd.DataFrame) -> pd.DataFrame:
    """The models' KB, Control and Non-control CS (`scores`: concurrence_table) and each panel's."""
    models = [{"source": "model", "who": row["model"], "strategy": row["strategy"], "score": label,
               "rate": row[score], "ci_low": row[f"{score}_ci_low"], "ci_high": row[f"{score}_ci_high"],
               "n_territories": row[f"n_{score[:-3]}"], "interval": "bootstrap over territories",
               "n_respondents": None, "n_answers": None}
              for _, row in scores.iterrows() for score, label in SCORES.items()]
    ours = [{"source": "people", "who": row.people, "strategy": "", "score": SCORES[row.score], "rate": row.rate,
             "ci_low": row.ci_low, "ci_high": row.ci_high, "n_territories": row.n_territories,
             "interval": "clustered by respondent and territory", "n_respondents": int(row.n_respondents),
             "n_answers": int(row.n_answers)} for row in theirs.itertuples()]
    table = pd.DataFrame(models + ours, columns=COLUMNS)
    table["n_territories"] = pd.Series([None if pd.isna(v) else float(v) for v in table["n_territories"]],
                                       dtype=object)
    return table


def people_figure(table: pd.DataFrame) -> dict:
    """One bar per model (and strategy) and panel per score; people's hatched, named "People: …"."""
    traces, shown = [], sorted(table.loc[table["source"] == "people", "who"].unique())
    for i, ((source, who, strategy), rows) in enumerate(table.groupby(["source", "who", "strategy"], sort=True)):
        marker = {"color": PALETTE[i % len(PALETTE)]} if source == "model" else {
            "color": PEOPLE_COLOURS[shown.index(who) % len(PEOPLE_COLOURS)],
            "pattern": {"shape": "/", "fgcolor": "#ffffff", "solidity": 0.3}}
        traces.append({"type": "bar", "name": f"{who} · {strategy}" if strategy else who, "x": rows["score"],
                       "y": rows["rate"], "marker": marker,
                       "error_y": {"type": "data", "symmetric": False, "array": rows["ci_high"] - rows["rate"],
                                   "arrayminus": rows["rate"] - rows["ci_low"]}})
    traces.sort(key=lambda t: (t["name"].startswith(people.LABEL_PREFIX), t["name"]))
    return chart(traces, layout("Models and panels of people (people's bars hatched)", barmode="group",
                                yaxis={"range": [0, 105], "title": {"text": "% naming the controller"}},
                                height=460))


def people_panel(filters, territories: pd.DataFrame, scores: pd.DataFrame) -> Panel | None:
    """The "People beside the models" panel, or None when no panel of people answered here."""
    answers, groups = people_answers(filters, territories)
    theirs = people_scores(answers, territories)
    if theirs.empty:
        return None
    table = people_table(theirs, scores)
    excluded = sum(g.excluded for g in groups)
    return Panel("people", "People beside the models", table, people_figure(table),
                 NOTE.format(excluded=f" Respondents who failed an attention check are left out ({excluded})."))
