"""The analysts' territorial-disputes page as panels (a table, a plotly figure, a note),
built from territories_app.report: the scores table (Tables 4/5/8 of the paper, with our
bootstrap intervals), Control vs Non-control per model and strategy, the world map of
where models side with the controller, and the per-territory case view."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pandas as pd
import plotly.graph_objects as go

from analysis_app.dashboard import PALETTE, Panel

from . import report as reports
from .report_frames import BorderlinesFilter

SCORE_LABELS = {"kb_cs": "KB CS", "control_cs": "Control CS", "non_control_cs": "Non-control CS",
                "delta_cs": "ΔCS (%)", "delta_cs_abs": "ΔCS (points)", "consistency_cs": "Consistency CS",
                "consistency_cs_unknown": "Consistency CS (Unknown)"}


@dataclass
class TerritoriesBoard:
    panels: dict[str, Panel] = field(default_factory=dict)
    answers: int = 0
    unresolved: int = 0
    refusals: int = 0  # of unresolved: coded R
    invalid: int = 0  # of unresolved: coded X
    territories: int = 0
    iterations: int = 1000
    scores: pd.DataFrame | None = None  # the numeric scores (every interval, sd and n): the scores CSV


def _fig(fig: go.Figure) -> dict:
    return json.loads(fig.to_json())


def _number(value, digits: int) -> str:
    # ΔCS is +inf when Non-control is 0 ("approaches infinity" in the paper).
    return ("∞" if value > 0 else "−∞") if value in (float("inf"), float("-inf")) else f"{value:.{digits}f}"


def _interval(row, score, digits: int = 1) -> str:
    value, low, high = row.get(score), row.get(f"{score}_ci_low"), row.get(f"{score}_ci_high")
    if value is None or pd.isna(value):
        return "—"
    if low is None or pd.isna(low):
        return _number(value, digits)
    return f"{_number(value, digits)} [{_number(low, digits)}, {_number(high, digits)}]"


def scores_panel(scores: pd.DataFrame) -> Panel:
    rows = []
    for _, row in scores.iterrows():
        rows.append({"model": row["model"], "strategy": row["strategy"],
                     **{label: _interval(row, score) for score, label in SCORE_LABELS.items()},
                     "countries named": _interval(row, "mean_countries", 2),
                     "… with control": _interval(row, "mean_countries_with_control", 2),
                     "random baseline": _interval(row, "random_baseline"),
                     "n (KB / Control / Non-control / Consistency)": " / ".join(
                         f"{row[n]:g}" for n in ("n_kb", "n_control", "n_non_control", "n_consistency")),
                     "known controllers": int(row["n_known"]), "territories": int(row["n_territories"]),
                     "unresolved": int(row["n_unresolved"])})
    table = pd.DataFrame(rows)
    return Panel("scores", "Concurrence scores", table, None,
                 "Percent of territories (section 5.2): KB CS, the English control naming the controller; Control "
                 "CS, the controller's language naming it; Non-control CS, the other claimants' languages naming "
                 "it; Consistency CS, agreeing pairs of in-language answers. In brackets: 95% percentile bootstrap "
                 "over territories (the paper reports none). Countries named: distinct claimants named by a "
                 "territory's in-language answers (… with the English control). n: territories entering each "
                 "score. Unresolved answers are left out of every score; the CSV holds every interval and sd.")


def control_panel(scores: pd.DataFrame) -> Panel:
    table = scores[["model", "strategy", "control_cs", "control_cs_ci_low", "control_cs_ci_high", "non_control_cs",
                    "non_control_cs_ci_low", "non_control_cs_ci_high", "random_control_cs"]].round(2)
    note = ("A model concurs with the controller more when asked in the controller's language than in the other "
            "claimants' languages when Control CS stands above Non-control CS (the paper's ΔCS).")
    if scores[["control_cs", "non_control_cs"]].isna().all().all():
        # Territories whose controller is Unknown have no controller's language: both scores
        # are undefined, and a chart of them would be empty axes.
        return Panel("control", "Control vs Non-control", table, None,
                     note + " No chart: no territory in this filter has a known controller (the Unknown filter "
                     "keeps only territories without one), so neither score is defined. Consistency CS (Unknown) "
                     "in the scores table measures these territories.")
    fig = go.Figure()
    labels = [f"{m} · {s}" for m, s in zip(scores["model"], scores["strategy"])]
    for index, (score, name) in enumerate([("control_cs", "Control CS"), ("non_control_cs", "Non-control CS")]):
        values = scores[score]
        fig.add_bar(name=name, x=labels, y=values, marker_color=PALETTE[index],
                    error_y={"type": "data", "symmetric": False,
                             "array": (scores[f"{score}_ci_high"] - values).clip(lower=0).tolist(),
                             "arrayminus": (values - scores[f"{score}_ci_low"]).clip(lower=0).tolist()})
    fig.add_scatter(name="random baseline", x=labels, y=scores["random_control_cs"], mode="markers+lines",
                    line={"dash": "dot", "color": "#555"})
    fig.update_layout(title="Control vs Non-control CS with 95% bootstrap CI", barmode="group",
                      yaxis={"title": "% naming the controller", "range": [0, 105]}, height=380,
                      margin={"l": 60, "r": 20, "t": 50, "b": 90}, legend={"orientation": "h", "y": 1.12})
    return Panel("control", "Control vs Non-control", table, _fig(fig), note)


def map_panel(cases: pd.DataFrame, territories: pd.DataFrame) -> Panel:
    iso = {}
    for _, row in territories.iterrows():
        iso.update({name: code for name, code in (row["iso3"] or {}).items() if code})
    # Two countries linked to one ISO code (an actor shared by mistake) would paint one shape
    # twice, the last drawn winning: neither goes on the map, and the note names them.
    sharing = {code: sorted(n for n, c in iso.items() if c == code) for code in set(iso.values())}
    shared = {code: names for code, names in sharing.items() if len(names) > 1}
    iso = {name: code for name, code in iso.items() if code not in shared}
    answered = cases[(cases["status"] == "answered") & cases["names_controller"].notna()
                     & cases["role"].str.contains("non-controller")]
    by_country = (answered.assign(sides=answered["names_controller"].astype(bool))
                  .groupby("controller")["sides"].agg(["mean", "size"]).reset_index())
    by_country["iso3"] = by_country["controller"].map(iso)
    table = by_country.rename(columns={"controller": "controller", "mean": "share siding", "size": "answers"})
    table["share siding"] = (table["share siding"] * 100).round(1)
    located = table.dropna(subset=["iso3"])
    note = ("Per controlling country: the share of answers asked in the other claimants' languages that name it "
            "as the owner (non-control answers). Blue: mostly the controller; red: mostly another claimant; "
            "grey: no such answer.")
    if shared:
        note += " Not on the map, sharing one ISO code: " + "; ".join(
            f"{' and '.join(names)} ({code})" for code, names in sorted(shared.items())) + "."
    if located.empty:
        return Panel("map", "Where models side with the controller", table, None,
                     note + " No controller with an ISO country code has such an answer in this filter.")
    fig = go.Figure(go.Choropleth(locations=located["iso3"], z=located["share siding"], text=located["controller"],
                                  zmin=0, zmax=100, colorscale="RdBu", colorbar={"title": "% siding"},
                                  marker={"line": {"color": "#ffffff", "width": 0.5}},
                                  hovertemplate="%{text}: %{z:.0f}% of %{customdata} answers<extra></extra>",
                                  customdata=located["answers"]))
    fig.update_layout(title="Share of non-control answers naming the controller", height=420,
                      # Countries without such an answer grey, apart from 0% (red) and 50% (white).
                      geo={"showframe": False, "showcoastlines": False, "showland": True, "landcolor": "#cfcfcf",
                           "showcountries": True, "countrycolor": "#ffffff", "projection": {"type": "natural earth"},
                           # Without ranges plotly.js 3 fits the projection past the frame (half the world cut off).
                           "lonaxis": {"range": [-180, 180]}, "lataxis": {"range": [-58, 85]}},
                      margin={"l": 0, "r": 0, "t": 50, "b": 0})
    return Panel("map", "Where models side with the controller", table, _fig(fig), note)


def cases_panel(cases: pd.DataFrame, texts: dict) -> Panel:
    table = cases.copy()
    table["question"] = [texts.get((t, lang), "") for t, lang in zip(table["territory"], table["language"])]
    columns = ["model", "strategy", "repeat", "territory", "language", "role", "question", "status",
               "answer_claimant", "names_controller"]
    return Panel("cases", "Case view: every language's question and answer", table[columns], None,
                 "One row per question asked: its role (controller language, other claimant languages, the English "
                 "control), the claimant the answer maps to, and whether that is the controller.")


def build(filters: BorderlinesFilter, iterations: int = 1000, seed: int = 0) -> TerritoriesBoard:
    from benchmarks_app.models import Question

    built = reports.build(filters, iterations=iterations, seed=seed)
    board = TerritoriesBoard(answers=built.answers, unresolved=built.unresolved, refusals=built.refusals,
                             invalid=built.invalid,
                             territories=len(built.territories), iterations=iterations, scores=built.scores)
    if built.scores.empty:
        return board
    texts = {(t, lang): text for t, lang, text in Question.objects.filter(
        benchmark__name=filters.benchmark, borderlines__isnull=False).values_list(
        "borderlines__territory__name", "language", "text")}
    board.panels = {"scores": scores_panel(built.scores), "control": control_panel(built.scores),
                    "map": map_panel(built.all_cases, built.territories), "cases": cases_panel(built.cases, texts)}
    return board
