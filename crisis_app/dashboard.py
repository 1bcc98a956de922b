"""The analysts' crisis-inconsistency page as panels (a table, a plotly figure, a note),
built from crisis_app.report on the stored group scores of one scorer:

* summary: the report's rows (what `inconsistency_report` writes for this filter);
* boxes: per model and temperature, the box of the base tellings' group means, with the
  mean over runs and its 95% bootstrap CI as a marker and error bar;
* curve: per model the temperature curve (level 0, CI band) with the level-1 and level-2
  ablations as horizontal bands: is the inconsistency at a temperature above what
  meaning-preserving rewrites cause?
* groups: one row per scored group (the report's --per-run rows, with the group's id);
* pairs: one group's pairs, its most and least divergent pairs shown side by side;
* contrasts: paired differences between temperatures and between models, by question, as
  a forest plot (crisis_app.contrasts).

`resolve` picks the default benchmark and scorer and raises BadParameter for names that
do not exist; views and the API call `resolve` and then `build`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
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
from . import queries
from . import report as reports
from .dashboard_params import BadParameter, Options
from .queries import CrisisFilter

PANEL_ORDER = ["summary", "boxes", "curve", "contrasts", "groups", "pairs"]
# Monte Carlo sign patterns past 20 clusters on a page (as CFPD's and the territories' pages).
PAGE_PATTERNS = 10_000
LEVEL_DASH = {1: "dash", 2: "dot"}


@dataclass
class SideBySide:
    """One pair of answers: which pair, its value, and each answer cut around its scored section."""

    kind: str  # "most" or "least"
    pair: reports.DivergentPair
    answers: list[dict]  # {"sample", "response", "missing", "span"}


@dataclass
class CrisisBoard:
    benchmark: str | None
    scorer: str | None
    scorers: list[str] = field(default_factory=list)
    panels: dict[str, Panel] = field(default_factory=dict)
    groups: int = 0
    runs: int = 0
    iterations: int = 1000
    seed: int = 0
    per_run: pd.DataFrame | None = None
    summary: pd.DataFrame | None = None
    boxes: pd.DataFrame | None = None
    curve: pd.DataFrame | None = None
    bands: pd.DataFrame | None = None
    contrasts: pd.DataFrame | None = None  # crisis_app.contrasts.COLUMNS at full precision: the CSV and API
    group: queries.Group | None = None
    pairs: pd.DataFrame | None = None
    side_by_side: list[SideBySide] = field(default_factory=list)
    computed_at: datetime = field(default_factory=timezone.now)  # shown: the page may be a cached build

    @property
    def empty(self):
        return not self.groups


def _fig(fig: go.Figure) -> dict:
    return json.loads(fig.to_json())


def _rgba(hex_colour: str, alpha: float) -> str:
    red, green, blue = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({red},{green},{blue},{alpha})"


def _layout(fig: go.Figure, title: str, **extra):
    # The title (wrapped, room of its own) and the legend (up to two rows) beneath it, above the plot.
    layout = {"title": chart_title(title), "template": "plotly_white",
              "height": 460, "margin": {"l": 60, "r": 20, "t": 100, "b": 60},
              "legend": {"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0}}
    fig.update_layout(**{**layout, **extra})


def resolve(filters: CrisisFilter) -> tuple[CrisisFilter, list[str]]:
    """The filter with its benchmark and scorer filled in (the benchmark scored last; the
    first scorer with scores in it, BERTScore first), and the scorers to choose from.
    Names that do not exist raise BadParameter."""
    problems = queries.unknown_names(filters)
    if problems:
        name, reason = next(iter(problems.items()))
        raise BadParameter(name, reason)
    benchmark = filters.benchmark or queries.default_benchmark()
    scorers = queries.scorer_names(benchmark)
    scorer = filters.scorers or (tuple(scorers[:1]) if scorers else ())
    return replace(filters, benchmark=benchmark, scorers=scorer), scorers


def summary_panel(summary: pd.DataFrame) -> Panel:
    # The numbers before the names that rarely vary (the CSV keeps the command's order).
    shown = ["model", "variant", "level", "move", "continuation", "temperature", "explicit", "runs", "mean", "sd",
             "ci_low", "ci_high", "n_samples", "n_pairs", "simulation", "scorer"]
    return Panel("summary", "Inconsistency per condition", reports.for_csv(summary)[shown].reset_index(drop=True), None,
                 "One row per model, variant, move, continuation and temperature: the mean over runs of each run's "
                 "mean over pairs, the sd of the run means (— for one run) and a 95% percentile bootstrap interval "
                 "over runs; n_samples and n_pairs are totals over runs. The CSV is what inconsistency_report "
                 "writes for this filter.")


def boxes_panel(boxes: pd.DataFrame, per_run: pd.DataFrame) -> Panel:
    fig = go.Figure()
    base = per_run[per_run["level"] == reports.BASE_LEVEL]
    for index, model in enumerate(sorted(boxes["model"].unique())):
        colour = PALETTE[index % len(PALETTE)]
        groups = base[base["model"] == model].sort_values("temperature")
        fig.add_box(name=model, legendgroup=model, x=[f"{model} · T={t:g}" for t in groups["temperature"]],
                    y=groups["mean"].tolist(), boxpoints="all", jitter=0.3, pointpos=0, marker_color=colour,
                    customdata=groups["group"].tolist(),
                    hovertemplate="group %{customdata}: %{y:.3f}<extra>" + model + "</extra>")
        rows = boxes[boxes["model"] == model]
        fig.add_scatter(name=f"{model}: mean over runs, 95% CI", legendgroup=model, mode="markers",
                        x=[f"{model} · T={t:g}" for t in rows["temperature"]], y=rows["mean"].tolist(),
                        marker={"symbol": "diamond", "size": 11, "color": "#222", "line": {"color": colour,
                                                                                          "width": 2}},
                        error_y={"type": "data", "symmetric": False, "color": "#222", "thickness": 2,
                                 "array": (rows["ci_high"] - rows["mean"]).clip(lower=0).tolist(),
                                 "arrayminus": (rows["mean"] - rows["ci_low"]).clip(lower=0).tolist()})
    _layout(fig, "Inconsistency per model and temperature (base tellings)",
            yaxis={"title": "inconsistency (group mean over pairs)", "rangemode": "tozero"},
            xaxis={"title": "model · temperature", "type": "category", "automargin": True})
    return Panel("boxes", "Inconsistency per model and temperature", reports.for_csv(boxes).reset_index(drop=True),
                 _fig(fig),
                 "Each point is one group's mean inconsistency over its pairs of answers (the samples of one run, "
                 "model, level-0 variant, move and temperature); the box spans its quartiles. The diamond is the "
                 "mean over runs of each run's mean, its bar the 95% bootstrap interval over runs.")


def _curve_table(curve: pd.DataFrame, bands: pd.DataFrame) -> pd.DataFrame:
    points = curve.assign(series="temperature curve (level 0)", variants="level 0",
                          temperature=[f"{t:g}" for t in curve["temperature"]])
    lines = bands.assign(series=[f"level {level} band" for level in bands["level"]],
                         temperature=bands["temperatures"])
    columns = ["model", "series", "temperature", "variants", "groups", "runs", "mean", "sd", "ci_low", "ci_high"]
    return pd.concat([points.reindex(columns=columns), lines.reindex(columns=columns)], ignore_index=True)


def curve_panel(curve: pd.DataFrame, bands: pd.DataFrame) -> Panel:
    fig = go.Figure()
    models = sorted(set(curve["model"]) | set(bands["model"]))
    temperatures = curve["temperature"].tolist() or [0.0, 1.2]
    left, right = min(temperatures) - 0.05, max(temperatures) + 0.05
    for index, model in enumerate(models):
        colour = PALETTE[index % len(PALETTE)]
        points = curve[curve["model"] == model].sort_values("temperature")
        if not points.empty:
            xs = points["temperature"].tolist()
            fig.add_scatter(name=f"{model}: 95% CI", legendgroup=model, showlegend=False, hoverinfo="skip",
                            x=xs + xs[::-1], y=points["ci_high"].tolist() + points["ci_low"].tolist()[::-1],
                            fill="toself", fillcolor=_rgba(colour, 0.18), line={"width": 0}, mode="lines")
            fig.add_scatter(name=f"{model}: level 0 by temperature", legendgroup=model, x=xs,
                            y=points["mean"].tolist(), mode="lines+markers", line={"color": colour, "width": 2},
                            marker={"size": 8},
                            hovertemplate="T=%{x:g}: %{y:.3f}<extra>" + model + "</extra>")
        for _, band in bands[bands["model"] == model].iterrows():
            level = int(band["level"])
            label = f"{model}: level {level} ({band['variants']})"
            fig.add_scatter(name=label + " 95% CI", legendgroup=f"{model}-{level}", showlegend=False,
                            x=[left, right, right, left, left],
                            y=[band["ci_low"], band["ci_low"], band["ci_high"], band["ci_high"], band["ci_low"]],
                            fill="toself", fillcolor=_rgba(colour, 0.12 if level == 1 else 0.08),
                            line={"width": 1, "color": _rgba(colour, 0.5), "dash": LEVEL_DASH[level]},
                            mode="lines", hoverinfo="skip")
            fig.add_scatter(name=label, legendgroup=f"{model}-{level}", x=[left, right],
                            y=[band["mean"], band["mean"]], mode="lines",
                            line={"color": colour, "width": 2, "dash": LEVEL_DASH[level]},
                            hovertemplate=f"level {level}: %{{y:.3f}} (T={band['temperatures']})<extra>{model}</extra>")
    levels = sorted({int(level) for level in bands["level"]}) if not bands.empty else []
    drawn = " and ".join(f"level-{level}" for level in levels)
    _layout(fig, "Temperature curve (level 0)" + (f" against the {drawn} ablations" if levels else
                                                  ": no ablation band in this filter"),
            xaxis={"title": "temperature", "range": [left, right], "zeroline": False},
            yaxis={"title": "inconsistency", "rangemode": "tozero"})
    note = ("Solid: each model's mean inconsistency of its base tellings (level 0) at each temperature, with "
            "the 95% bootstrap band over runs. Dashed: the level-1 variants (meaning-preserving rewrites); "
            "dotted: the level-2 variants (meaningful changes), each the mean with its 95% interval drawn "
            "across the temperatures, pooled over the temperatures they were sampled at (in the table). Where "
            "the curve stands above the dashed band, sampling at that temperature alone varies the decisions "
            "more than rewording the prompt does.")
    missing = [level for level in (1, 2) if level not in levels]
    if missing:
        # The chart would otherwise promise bands it does not draw.
        note += (" No " + " or ".join(f"level-{level}" for level in missing) + " band here: no scored group of "
                 + ("those variants" if len(missing) > 1 else "that level's variants") + " is in this filter (the "
                 "runs asked only " + ("the base tellings" if not levels else f"levels 0 and {levels[0]}") + "); "
                 "launch the benchmark with its rewritten variants and score them to draw "
                 + ("them" if len(missing) > 1 else "it") + ".")
    if curve.empty:
        note += " No level-0 curve: no base telling is scored in this filter, only the bands."
    return Panel("curve", "Temperature curve and ablation bands", _curve_table(curve, bands), _fig(fig), note)


def contrasts_panel(table: pd.DataFrame, per_run: pd.DataFrame, adjust: str, iterations: int) -> Panel:
    """Temperature and model contrasts with their forest plot, or the sentence saying why none."""
    note = contrast_metrics.method_note(adjust, iterations, PAGE_PATTERNS) + (
        " The chart draws the contrasts with an interval (two clusters or more), smallest adjusted p first, at most "
        "40; the table and its CSV hold every contrast.")
    figure = None
    if table.empty:
        temperatures = {contrast_metrics.temperature_name(t) for t in per_run["temperature"]}
        models = set(per_run["model"])
        note += (f" No chart: this filter holds {len(models)} model{'s' if len(models) != 1 else ''} and "
                 f"{len(temperatures)} temperature{'s' if len(temperatures) != 1 else ''} ("
                 + ", ".join(sorted(temperatures)) + "), and no model was scored at two temperatures on the same "
                 "question nor two models at one temperature on the same question: launch the benchmark at a second "
                 "temperature or with a second model and score it.")
    else:
        drawn = table.assign(label=[contrast_metrics.label(row) for _, row in table.iterrows()])
        figure = forest.forest_figure(drawn, "Paired inconsistency contrasts, 95% cluster-bootstrap intervals",
                                      "← right more inconsistent · left more inconsistent →", "n_clusters",
                                      "clusters", unit="", digits=3, correction=SHORT_NAMES[adjust])
        if figure is None:
            note += (" No chart: every contrast in this filter rests on one question, and an interval needs two "
                     "(resampling one cluster always gives the same value).")
        else:  # of the drawn contrasts (with an interval), those too few clusters keep from significance
            note += floor_sentence(table.loc[table["n_clusters"] >= 2, "n_clusters"], "clusters")
    return Panel("contrasts", "Contrasts: between temperatures and between models, paired by question",
                 table.round({"estimate": 4, "ci_low": 4, "ci_high": 4, "se_clustered": 4}), figure, note)


def groups_panel(per_run: pd.DataFrame) -> Panel:
    table = per_run.reindex(columns=["group", "model", "variant", "level", "move", "continuation", "temperature",
                                     "run", "mean", "n_samples", "n_pairs", "explicit", "simulation", "scorer"])
    return Panel("groups", "Scored groups", reports.for_csv(table.sort_values("mean", ascending=False, kind="stable")
                                                            .reset_index(drop=True)), None,
                 "One row per group (the samples of one run, model, question and temperature), the most "
                 "inconsistent first; pick one by its group number to read its answers below. The CSV is what "
                 "inconsistency_report --per-run writes.")


def _pairs_table(group: queries.Group, divergent) -> pd.DataFrame:
    from .inconsistency import pair_indices

    score = group.score
    ids = [a.response for a in group.answers]
    rows = []
    for k, ((i, j), value) in enumerate(zip(pair_indices(score.n_samples), score.pair_values)):
        mark = "most divergent" if divergent and k == divergent[0].pair else (
            "least divergent" if divergent and k == divergent[1].pair else "")
        rows.append({"pair": k, "i": i, "j": j, "response_i": ids[i] if i < len(ids) else None,
                     "response_j": ids[j] if j < len(ids) else None, "inconsistency": float(value), "shown": mark})
    return pd.DataFrame(rows, columns=["pair", "i", "j", "response_i", "response_j", "inconsistency", "shown"])


def pairs_panel(group: queries.Group, pairs: pd.DataFrame, divergent) -> Panel:
    fig = go.Figure()
    if not pairs.empty:
        colours = ["#d1495b" if s == "most divergent" else "#2f8f4e" if s == "least divergent" else "#9aa5b1"
                   for s in pairs["shown"]]
        fig.add_bar(name="pairs", x=[f"({i}, {j})" for i, j in zip(pairs["i"], pairs["j"])],
                    y=pairs["inconsistency"].tolist(), marker_color=colours,
                    hovertemplate="pair %{x}: %{y:.3f}<extra></extra>")
        fig.add_hline(y=group.score.mean, line_dash="dash", line_color="#333",
                      annotation_text=f"group mean {group.score.mean:.3f}", annotation_position="top left")
    _layout(fig, "Each pair's inconsistency (red: most divergent, green: least)",
            xaxis={"title": "pair of samples (i, j)", "type": "category"},
            yaxis={"title": "inconsistency", "rangemode": "tozero"}, showlegend=False, height=340,
            margin={"l": 60, "r": 20, "t": 60, "b": 60})
    note = ("Pairs (i, j) of the group's samples, row-major as stored. Below, the most and the least divergent pair "
            "side by side; the scored section is highlighted.")
    if not divergent:
        note += " This group's stored pair values do not match its sample count: no pair can be shown."
    return Panel("pairs", "Most and least divergent answers", pairs, _fig(fig) if not pairs.empty else None, note)


def _side(kind: str, pair: reports.DivergentPair, group: queries.Group) -> SideBySide:
    answers = []
    for sample in (pair.first, pair.second):
        answer = group.answers[sample] if sample < len(group.answers) else queries.Answer(None, None)
        span = reports.scored_span(answer.text, group.spec) if answer.text is not None else None
        answers.append({"sample": sample, "response": answer.response, "missing": answer.text is None,
                        "span": span})
    return SideBySide(kind, pair, answers)


def build(filters: CrisisFilter, options: Options = Options()) -> CrisisBoard:
    """The page for a resolved filter (see `resolve`)."""
    board = CrisisBoard(benchmark=filters.benchmark, scorer=filters.scorers[0] if filters.scorers else None,
                        iterations=options.iterations, seed=options.seed)
    rows = queries.group_rows(filters) if filters.scorers else []
    if not rows:
        return board
    per_run = reports.per_run_frame(rows, extra_columns=("group",))
    settings = {"n_bootstrap": options.iterations, "seed": options.seed}
    board.per_run = per_run
    board.summary = reports.summary_frame(per_run, **settings)
    board.boxes = reports.box_frame(per_run, **settings)
    board.curve = reports.curve_frame(per_run, **settings)
    board.bands = reports.band_frame(per_run, **settings)
    board.contrasts = contrast_metrics.contrasts(per_run, iterations=options.iterations, seed=options.seed,
                                                 method=options.adjust, patterns=PAGE_PATTERNS)
    board.groups, board.runs = len(per_run), int(per_run["run"].nunique())
    board.panels["summary"] = summary_panel(board.summary)
    if not board.boxes.empty:
        board.panels["boxes"] = boxes_panel(board.boxes, per_run)
    if not board.curve.empty or not board.bands.empty:
        board.panels["curve"] = curve_panel(board.curve, board.bands)
    board.panels["contrasts"] = contrasts_panel(board.contrasts, per_run, options.adjust, options.iterations)
    board.panels["groups"] = groups_panel(per_run)
    chosen = options.group or int(per_run.sort_values(["mean", "group"], ascending=[False, True])["group"].iloc[0])
    board.group = queries.group(chosen)
    if board.group is not None:
        divergent = reports.divergent_pairs(board.group.score.pair_values, board.group.score.n_samples)
        board.pairs = _pairs_table(board.group, divergent)
        board.panels["pairs"] = pairs_panel(board.group, board.pairs, divergent)
        if divergent:
            board.side_by_side = [_side("most", divergent[0], board.group), _side("least", divergent[1], board.group)]
    return board
