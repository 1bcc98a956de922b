"""The analysts' territorial-disputes page as panels (a table, a plotly figure, a note),
built from territories_app.report: the scores table (Tables 4/5/8 of the paper, with our
bootstrap intervals), Control vs Non-control per model and strategy, the world map of
where models side with the controller, and the per-territory case view."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime

import pandas as pd
import plotly.graph_objects as go
from django.utils import timezone

from analysis_app import forest
from analysis_app.chart_text import chart_title
from analysis_app.metrics.cluster_contrast import floor_sentence
from analysis_app.metrics.multiplicity import SHORT_NAMES
from analysis_app.panels import PALETTE, Panel

from . import contrasts as contrast_metrics
from . import report as reports
from .people_panel import people_panel
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
    contrasts: pd.DataFrame | None = None  # the paired contrasts at full precision: the contrasts CSV
    computed_at: datetime = field(default_factory=timezone.now)  # shown: the page may be a cached build


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
    fig.update_layout(title=chart_title("Control vs Non-control CS with 95% bootstrap CI"), barmode="group",
                      yaxis={"title": "% naming the controller", "range": [0, 105]}, height=380,
                      margin={"l": 60, "r": 20, "t": 50, "b": 90}, legend={"orientation": "h", "y": 1, "yanchor": "bottom"})
    return Panel("control", "Control vs Non-control", table, _fig(fig), note)


def map_panel(cases: pd.DataFrame, territories: pd.DataFrame) -> Panel:
    """A marker at each territory (its own coordinates: territories_app.locations), coloured
    by the share of its non-control answers naming the controller. The controller's
    whole country was shaded before: a shoal or an island group was invisible, and two
    territories of one controller were one colour."""
    answered = cases[(cases["status"] == "answered") & cases["names_controller"].notna()
                     & cases["role"].str.contains("non-controller")]
    by_territory = (answered.assign(sides=answered["names_controller"].astype(bool))
                    .groupby("territory")["sides"].agg(["mean", "size"]))
    rows = []
    for _, territory in territories.iterrows():
        share, count = (by_territory.loc[territory["territory"]] if territory["territory"] in by_territory.index
                        else (None, 0))
        where = territory["location"] if isinstance(territory["location"], (tuple, list)) else None  # NaN in a frame
        rows.append({"territory": territory["territory"], "controller": territory["controller"] or "Unknown",
                     "share siding": None if share is None else round(float(share) * 100, 1),
                     "answers": int(count), "latitude": where[0] if where else None,
                     "longitude": where[1] if where else None})
    table = pd.DataFrame(rows, columns=["territory", "controller", "share siding", "answers", "latitude",
                                        "longitude"])
    note = ("Each disputed territory at its own location: the share of the answers asked in the other claimants' "
            "languages that name its controller as the owner (non-control answers). Blue: mostly the controller; "
            "red: mostly another claimant; grey: no such answer (its controller is Unknown, or nobody answered).")
    unplaced = table[table["latitude"].isna()]["territory"].tolist()
    if unplaced:
        note += (" Not on the map, no coordinates known (set them in the admin): " + ", ".join(unplaced) + ".")
    placed = table.dropna(subset=["latitude", "longitude"])
    if placed.empty:
        return Panel("map", "Where models side with the controller", table, None,
                     note + " No chart: no territory in this filter has coordinates.")
    scored = placed[placed["share siding"].notna()]
    unscored = placed[placed["share siding"].isna()]
    traces = []
    if not unscored.empty:
        traces.append(go.Scattergeo(
            name="no non-control answer", lat=unscored["latitude"].tolist(), lon=unscored["longitude"].tolist(), mode="markers",
            text=unscored["territory"].tolist(), customdata=unscored["controller"].tolist(),
            marker={"size": 10, "color": "#9a9a9a", "line": {"color": "#333", "width": 1}},
            hovertemplate="%{text} (controller %{customdata}): no non-control answer<extra></extra>"))
    if not scored.empty:
        traces.append(go.Scattergeo(
            name="share naming the controller", lat=scored["latitude"].tolist(), lon=scored["longitude"].tolist(), mode="markers",
            text=scored["territory"].tolist(), customdata=scored[["controller", "answers"]].to_numpy().tolist(),
            marker={"size": 14, "color": scored["share siding"].tolist(), "cmin": 0, "cmax": 100, "colorscale": "RdBu",
                    "line": {"color": "#222", "width": 1}, "colorbar": {"title": {"text": "% naming<br>controller"}}},
            hovertemplate="%{text}: %{marker.color:.0f}% of %{customdata[1]} answers name %{customdata[0]}"
                          "<extra></extra>"))
    fig = go.Figure(traces)
    fig.update_layout(title=chart_title("Share of non-control answers naming the controller, per territory"), height=460,
                      showlegend=not unscored.empty, legend={"orientation": "h", "y": -0.02},
                      geo={"showframe": False, "showcoastlines": True, "coastlinecolor": "#9a9a9a",
                           "showland": True, "landcolor": "#ececec", "showcountries": True, "countrycolor": "#ffffff",
                           "projection": {"type": "natural earth"},
                           # Without ranges plotly.js 3 fits the projection past the frame (half the world cut off).
                           "lonaxis": {"range": [-180, 180]}, "lataxis": {"range": [-58, 85]}},
                      margin={"l": 0, "r": 0, "t": 50, "b": 0})
    return Panel("map", "Where models side with the controller", table, _fig(fig), note)


def contrasts_panel(table: pd.DataFrame, adjust: str, iterations: int) -> Panel:
    """The paired contrasts clustered by territory, with their forest plot (or why none)."""
    note = contrast_metrics.method_note(adjust, iterations, reports.PAGE_PATTERNS) + (
        " The chart draws the contrasts with an interval (two territories or more), smallest adjusted p first, at "
        "most 40; the table and its CSV hold every contrast and the method of each p-value.")
    figure = None
    if table.empty:
        note += (" No chart: no territory in this filter has a known controller with both a Control answer (the "
                 "controller's language, resolved) and a resolved Non-control answer, nor a resolved English answer "
                 "from two models (KB CS); territories whose controller is Unknown have neither.")
    else:
        drawn = table.assign(label=[contrast_metrics.label(row) for _, row in table.iterrows()])
        figure = forest.forest_figure(
            drawn, "Paired contrasts by territory (points), 95% cluster-bootstrap intervals",
            "← right higher · left higher → (points)", "n_territories", "territories",
            correction=SHORT_NAMES[adjust])
        if figure is None:
            note += (" No chart: every contrast in this filter rests on one territory, and an interval needs two "
                     "(resampling one territory always gives the same value).")
        else:  # of the drawn contrasts (with an interval), those too few clusters keep from significance
            note += floor_sentence(table.loc[table["n_territories"] >= 2, "n_territories"], "territories")
    return Panel("contrasts", "Paired contrasts: Control vs Non-control within territory, model vs model",
                 table.round({"estimate": 3, "ci_low": 3, "ci_high": 3, "se_clustered": 3}), figure, note)


def cases_panel(cases: pd.DataFrame, texts: dict) -> Panel:
    table = cases.copy()
    table["question"] = [texts.get((t, lang), "") for t, lang in zip(table["territory"], table["language"])]
    columns = ["model", "strategy", "repeat", "territory", "language", "role", "question", "status",
               "answer_claimant", "names_controller"]
    return Panel("cases", "Case view: every language's question and answer", table[columns], None,
                 "One row per question asked: its role (controller language, other claimant languages, the English "
                 "control), the claimant the answer maps to, and whether that is the controller.")


def build(filters: BorderlinesFilter, iterations: int = 1000, seed: int = 0, adjust: str = "bh") -> TerritoriesBoard:
    from benchmarks_app.models import Question

    built = reports.build(filters, iterations=iterations, seed=seed, adjust=adjust)
    board = TerritoriesBoard(answers=built.answers, unresolved=built.unresolved, refusals=built.refusals,
                             invalid=built.invalid,
                             territories=len(built.territories), iterations=iterations, scores=built.scores,
                             contrasts=built.contrasts)
    if built.scores.empty:
        return board
    texts = {(t, lang): text for t, lang, text in Question.objects.filter(
        benchmark__name=filters.benchmark, borderlines__isnull=False).values_list(
        "borderlines__territory__name", "language", "text")}
    board.panels = {"scores": scores_panel(built.scores),
                    **({"people": found} if (found := people_panel(filters, built.territories, built.scores)) else {}),
                    "control": control_panel(built.scores),
                    "contrasts": contrasts_panel(built.contrasts, adjust, iterations),
                    "map": map_panel(built.all_cases, built.territories), "cases": cases_panel(built.cases, texts)}
    return board
