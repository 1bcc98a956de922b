"""The CFPD dashboard: each panel is a table from the pure metrics, a plotly figure drawn
from that same table, and a CSV of it. Views and the API call `build`; the tables come
from `tidy_query` (counted in the database) and `metrics` (pandas); the panels and the
charts' common look are `analysis_app.panels`."""

from __future__ import annotations

import functools
import hashlib
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import datetime

import pandas as pd
import plotly.colors
from django.core.cache import cache
from django.db import connection, connections
from django.utils import timezone

from analysis_app import panels as shared
from analysis_app.metrics.cluster_contrast import floor_sentence
from analysis_app import people
from analysis_app.panels import PALETTE, Panel, chart, layout
from scenarios_app.taxonomy import FOCUS_ACTORS

from . import contrast_figures, language_figures, metrics, people_figures, position_figures, tally
from .metrics import contrasts as contrast_metrics
from .metrics import position as position_metrics
from .tidy_query import AnalysisFilter, Superseded, latest_launches, position_answers, tidy_counts, tidy_with_categories

ITERATIONS = 1000
# The category each domain's per-country and heatmap views show first (the paper's
# figures 6-11 plot these): the most escalatory or most engaged option.
HEADLINE = ["Use of force", "High intervention", "Cooperative", "Balancing"]


@dataclass
class Dashboard:
    filters: AnalysisFilter
    coverage: dict
    panels: dict[str, Panel] = field(default_factory=dict)
    iterations: int = ITERATIONS
    seed: int = 0
    seconds: float = 0.0
    categories: list[str] = field(default_factory=list)
    category: str = ""
    heatmap_model: str = ""
    models: list[str] = field(default_factory=list)
    # Earlier launches of a selection left out because no run was picked (`latest_launches`).
    superseded: list[Superseded] = field(default_factory=list)
    computed_at: datetime = field(default_factory=timezone.now)
    cached: bool = False
    cache_key: str = ""  # where `build_cached` keeps it (the page keeps its rendered panels beside it)

    @property
    def empty(self):
        return not self.panels


def _bar(name, x, y, colour, **extra) -> dict:
    return {"type": "bar", "name": name, "x": x, "y": y, "marker": {"color": colour}, **extra}


def _colour(models):
    return {model: PALETTE[i % len(PALETTE)] for i, model in enumerate(sorted(models))}


def _form(rows):
    """'Escalation (2) · Use of force': a domain form and category, the x of most charts."""
    return [f"{d} ({c}) · {cat}" for d, c, cat in zip(rows["domain"], rows["choice_count"], rows["category"])]


def _upper(values, floor=0.05):
    """Top of a rate axis that starts at 0: a fifth above the largest value, so that small
    rates (refusals of a few percent) are visible rather than flat on a 0-100 % axis."""
    top = pd.Series(values, dtype=float).max()
    return max(floor, float(top) * 1.2) if pd.notna(top) else 1.0


RATE_AXIS = {"range": [0, 1.05], "tickformat": ".0%"}


def rates_figure(table: pd.DataFrame, colours) -> dict:
    """Figure 5: normalised rate by domain form and category, one bar per model, CI bars."""
    traces = [_bar(model, _form(rows), rows["rate"], colours[model],
                   error_y={"type": "data", "symmetric": False, "array": rows["ci_high"] - rows["rate"],
                            "arrayminus": rows["rate"] - rows["ci_low"]})
              for model, rows in table.groupby("model", sort=True)]
    return chart(traces, layout("Normalised response rate with 95% bootstrap CI", barmode="group",
                                  yaxis=RATE_AXIS, height=520))


def _headlines(table: pd.DataFrame, category: str) -> dict[str, str]:
    """Per domain the category its charts show: the one picked when the domain offers it,
    else the domain's headline (HEADLINE), else its first."""
    offered = table.groupby("domain")["category"].agg(lambda c: sorted(set(c))).to_dict()
    return {domain: category if category in cats else next((h for h in HEADLINE if h in cats), cats[0])
            for domain, cats in offered.items()}


def actions_figure(table: pd.DataFrame, category: str, colours) -> dict:
    """Each codified action's rate of its domain's headline category, one bar per model.
    Horizontal, so that the long action labels read on one line each instead of
    overlapping under the axis; each bar prints its rate, so that a 0 % reads as 0 %
    rather than an empty slot, and an action a model has no answer for is left out of
    that model's bars (the hover says which)."""
    shown = _headlines(table, category)
    rows = table[table["category"] == table["domain"].map(shown)]
    labels = sorted({f"{a} · {d} ({c}) · {cat}" for a, d, c, cat in
                     zip(rows["action"], rows["domain"], rows["choice_count"], rows["category"])})
    traces = [_bar(model, part["rate"], [f"{a} · {d} ({c}) · {cat}" for a, d, c, cat in
                                         zip(part["action"], part["domain"], part["choice_count"], part["category"])],
                   colours[model], orientation="h", text=[f"{rate:.0%}" for rate in part["rate"]],
                   textposition="outside", cliponaxis=False, hovertemplate="%{y}<br>" + str(model) + ": %{x:.1%}"
                   "<extra></extra>")
              for model, part in rows.groupby("model", sort=True)]
    models = rows["model"].nunique()
    return chart(traces, layout("Rate of each domain's headline category by codified action", barmode="group",
                                  xaxis={"range": [0, 1.12], "tickformat": ".0%"},
                                  yaxis={"categoryorder": "array", "categoryarray": labels[::-1],
                                         "autorange": True},
                                  bargap=0.25, height=max(360, 120 + len(labels) * (14 + 12 * models))))


def repeats_figure(table: pd.DataFrame, colours) -> dict:
    # mean ± sd is cut at 0 and 100 %, the rate's own bounds: a bar past them was cut off
    # by the axis and read as an error of the chart.
    traces = [_bar(model, _form(rows), rows["mean"], colours[model],
                   error_y={"type": "data", "symmetric": False,
                            "array": (rows["sd"].fillna(0)).clip(upper=1 - rows["mean"]).clip(lower=0),
                            "arrayminus": (rows["sd"].fillna(0)).clip(upper=rows["mean"]).clip(lower=0)},
                   customdata=rows["n_repeats"], hovertemplate="%{x}: %{y:.1%} (%{customdata} repeats)")
              for model, rows in table.groupby("model", sort=True)]
    return chart(traces, layout("Mean rate across repeats, ± one standard deviation (cut at 0 and 100 %)", barmode="group",
                                  yaxis=RATE_AXIS, height=480))


def repeat_rates_figure(table: pd.DataFrame, colours) -> dict:
    """Each sampling pass (run, repeat) as a dot: the spread the sd summarises."""
    traces = [{"type": "scatter", "name": model, "x": _form(rows), "y": rows["rate"], "mode": "markers",
               "marker": {"color": colours[model], "size": 8, "opacity": 0.7},
               "customdata": [f"run {r}, repeat {p}" for r, p in zip(rows["run"], rows["repeat"])],
               "hovertemplate": "%{x}<br>%{customdata}: %{y:.1%}"}
              for model, rows in table.groupby("model", sort=True)]
    return chart(traces, layout("Each repeat's rate (one dot per run and repeat)", yaxis=RATE_AXIS, height=480))


def country_figure(table: pd.DataFrame, category: str, colours) -> dict:
    rows = table[table["category"] == category]
    traces = [_bar(model, [f"{a} · {d} ({c})" for a, d, c in
                           zip(part["qualified_actor"], part["domain"], part["choice_count"])],
                   part["rate"], colours[model])
              for model, part in rows.groupby("model", sort=True)]
    return chart(traces, layout(f"“{category}” by qualified actor", barmode="group", yaxis=RATE_AXIS,
                                  height=460))


def heatmap_figure(table: pd.DataFrame, category: str, model: str) -> dict:
    """The colour scale spans the data's own range (a fixed 0-1 scale left every cell of a
    typical table near-white); each cell also prints its rate."""
    grid = table.pivot_table(index="qualified_actor", columns="opposing_actor", values="rate", aggfunc="mean")
    values = pd.Series(grid.to_numpy().ravel(), dtype=float).dropna()
    low, high = (float(values.min()), float(values.max())) if len(values) else (0.0, 1.0)
    if high - low < 0.01:
        low, high = max(0.0, low - 0.05), min(1.0, high + 0.05)
    trace = {"type": "heatmap", "z": grid.to_numpy(), "x": list(grid.columns), "y": list(grid.index),
             "zmin": low, "zmax": high, "colorscale": plotly.colors.get_colorscale("Viridis"), "texttemplate": "%{z:.0%}",
             "textfont": {"size": 10}, "colorbar": {"tickformat": ".0%"}, "xgap": 1, "ygap": 1,
             "hovertemplate": "%{y} vs %{x}: %{z:.0%}<extra></extra>"}
    return chart([trace], layout(f"{model}: “{category}” by qualified actor (rows) and opposing actor (columns)",
                                   height=max(320, 28 * len(grid.index) + 140),
                                   xaxis={"title": {"text": "opposing actor"}, "side": "bottom"},
                                   yaxis={"title": {"text": "qualified actor"}, "autorange": "reversed"}))


def entropy_figure(table: pd.DataFrame, colours) -> dict:
    traces = [_bar(model, [f"{d} ({c})" for d, c in zip(rows["domain"], rows["choice_count"])], rows["entropy"],
                   colours[model])
              for model, rows in table.groupby("model", sort=True)]
    return chart(traces, layout("Mean entropy per scenario (bits, refusals removed)", barmode="group",
                                  yaxis={"range": [0, _upper(table["entropy"], floor=0.1)]}))


def refusal_figure(table: pd.DataFrame, by: str, title: str, colours) -> dict | None:
    """Refusal rates are a few percent: the axis runs from 0 to a fifth above the largest.
    No chart when no model refused (bars all at 0 % read as a broken chart): the panel's
    note says so (`no_refusals_note`)."""
    if not (table["refusal_rate"].fillna(0) > 0).any():
        return None
    traces = [_bar(model, rows[by], rows["refusal_rate"], colours[model],
                   text=[f"{rate:.1%}" for rate in rows["refusal_rate"]], textposition="outside", cliponaxis=False)
              for model, rows in table.groupby("model", sort=True)]
    return chart(traces, layout(title, barmode="group",
                                  yaxis={"range": [0, _upper(table["refusal_rate"])], "tickformat": ".1%"}))


def no_refusals_note(table: pd.DataFrame) -> str:
    """The sentence in place of a refusal chart with nothing on it."""
    if len(table) and not (table["refusal_rate"].fillna(0) > 0).any():
        answers = int(table["answer"].sum() + table["refusal"].sum()) if {"answer", "refusal"} <= set(table) else None
        counted = f" of {answers} coded answers" if answers else ""
        return (f" No chart: no model refused any{counted} in this filter (every refusal rate is 0 %); "
                "the table has the counts.")
    return ""


def differences_figure(table: pd.DataFrame) -> dict:
    """Mean paired difference (model A − model B) with its bootstrap CI, one colour per
    pair, one row per domain form and category. Every difference is a solid dot (hollow
    circles could not be read); those Holm's correction keeps significant are large and
    dark, the others smaller and lighter, and each significant one is marked ★ beside it."""
    traces = []
    labels = sorted(set(_form(table)))
    for i, ((a, b), rows) in enumerate(table.groupby(["model_a", "model_b"], sort=True)):
        significant = rows["significant"].astype(bool).tolist()
        traces.append({
            "type": "scatter", "name": f"{a} − {b}", "y": _form(rows), "x": rows["diff"], "mode": "markers+text",
            "orientation": "h",
            "marker": {"color": PALETTE[i % len(PALETTE)], "size": [13 if s else 10 for s in significant],
                       "opacity": [1.0 if s else 0.6 for s in significant], "symbol": "circle"},
            "text": ["★" if s else "" for s in significant], "textposition": "top center",
            "error_x": {"type": "data", "symmetric": False, "array": rows["ci_high"] - rows["diff"],
                        "arrayminus": rows["diff"] - rows["ci_low"], "thickness": 1.5},
            "customdata": rows["p_adjusted"],
            "hovertemplate": "%{y}: %{x:+.1%} (Holm p = %{customdata:.3f})<extra>" + f"{a} − {b}</extra>"})
    top = max(0.05, float(table[["ci_low", "ci_high"]].abs().max().max()) * 1.15)
    zero = {"type": "line", "y0": 0, "y1": 1, "yref": "y domain", "x0": 0, "x1": 0, "xref": "x",
            "line": {"color": "#888", "width": 1}}  # what plotly's add_vline(x=0) draws
    pairs = table.groupby(["model_a", "model_b"]).ngroups
    return chart(traces, layout("Paired difference of rates (model A − model B), 95% CI; ★ large dots: significant "
                                  "after Holm", xaxis={"range": [-top, top], "tickformat": "+.0%",
                                                        "title": {"text": "← model B higher · model A higher →"}},
                                  yaxis={"categoryorder": "array", "categoryarray": labels[::-1]},
                                  scattermode="group", scattergap=0.4,
                                  height=max(360, 140 + len(labels) * (18 + 10 * pairs)), shapes=[zero]))


def robustness_figure(table: pd.DataFrame, colours) -> dict | None:
    """Rate on all scenarios (x) against the rate on the focus-complete ones (y), a dot per
    model, domain form and category: dots on the diagonal are robust to the subset."""
    keys = ["model", "domain", "choice_count", "category"]
    both = (table[table["subset"] == "all"].merge(table[table["subset"] == "focus-complete"], on=keys,
                                                   suffixes=("_all", "_focus")))
    if both.empty:
        return None
    traces = [{"type": "scatter", "name": "same rate", "x": [0, 1], "y": [0, 1], "mode": "lines",
               "line": {"color": "#aaa", "dash": "dot"}, "hoverinfo": "skip"}]
    traces += [{"type": "scatter", "name": model, "x": rows["rate_all"], "y": rows["rate_focus"], "mode": "markers",
                "marker": {"color": colours[model], "size": 9, "opacity": 0.8}, "text": _form(rows),
                "hovertemplate": "%{text}<br>all: %{x:.1%} · focus-complete: %{y:.1%}"}
               for model, rows in both.groupby("model", sort=True)]
    return chart(traces, layout("Rate on every scenario against the focus-complete scenarios",
                                  xaxis={"range": [-0.02, 1.02], "tickformat": ".0%",
                                         "title": {"text": "all scenarios"}},
                                  yaxis={"range": [-0.02, 1.02], "tickformat": ".0%",
                                         "title": {"text": "scenarios asked for all five focus actors"}},
                                  height=460))


def _pick(wanted: str, available: list[str], preferred: list[str]) -> str:
    if wanted in available:
        return wanted
    return next((c for c in preferred if c in available), available[0] if available else "")


def data_version() -> tuple:
    """`analysis_app.panels.data_version`, and on PostgreSQL every change to a CFPD
    answer's status or code (`tally.version`: a finished call, an undo, a deleted run), so
    an answer coded while an analyst reads is on the next load; on SQLite changes that add
    no row show within `CACHE_SECONDS`."""
    return (tally.version(), *shared.data_version(), people.version())


def build_cached(filters: AnalysisFilter, fresh: bool = False, **options) -> Dashboard:
    """`build`, kept in the cache (Redis with REDIS_URL, else in-process) for this filter
    and data version: at the paper's scale a build takes seconds, a cached one milliseconds."""
    key = "cfpd:dashboard:" + hashlib.sha256(
        repr((data_version(), filters, sorted(options.items()))).encode()).hexdigest()
    board = None if fresh else cache.get(key)
    if board is not None:
        board.cached = True
        return board
    board = build(filters, **options)
    board.cache_key = key
    cache.set(key, board, shared.CACHE_SECONDS)
    return board


# Two builds at once each hold two threads (one waits for the other: `_then`).
_BACKGROUND = ThreadPoolExecutor(max_workers=4, thread_name_prefix="dashboard-count")


def _meanwhile(function, *args, **kwargs) -> Callable:
    """Start `function` on a thread of its own, with its own database connection, and go
    on; the returned callable waits for its result. The database then counts on the other
    core while this thread works in pandas (the per-country count is a third of a cold
    build at the paper's scale). Only on PostgreSQL outside a transaction: another
    connection would not see an open transaction's writes (a test case's, say), and
    SQLite's in-memory test database is one connection. Elsewhere it runs at once."""
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        result = function(*args, **kwargs)
        return lambda: result

    def run():
        try:
            return function(*args, **kwargs)
        finally:
            connections.close_all()  # this thread's own connection

    return _BACKGROUND.submit(run).result


# What `build(panels=…)` takes ("repeats" and "refusals" add two panels each, "people" three), and the
# order the page shows the panels in.
PANELS = ("rates", "people", "actions", "repeats", "countries", "heatmap", "entropy", "refusals", "differences",
          "contrasts", "flips", "position", "robustness", "languages")
ORDER = ("rates", "people", "people_countries", "people_contrasts", "actions", "repeats", "repeat_rates",
         "countries", "heatmap", "entropy", "refusals", "refusals_by_country", "differences", "contrasts", "flips",
         "languages", "language_scenarios", "language_contrasts", "position", "position_rates", "robustness")


POSITION_METHOD = (
    "Observed: the share of answers choosing the option shown at each position (A, B, C …). Expected from "
    "content: for each answer, the share of the model's answers of that scenario (whatever the order) choosing "
    "the option shown there, averaged over the answers; where each option sat at each position equally often (the "
    "balanced design, when a scenario is asked a multiple of n times) it is 1/n. Test: a stratified "
    "permutation test (the orders shown reshuffled among the model's answers within each scenario, {permutations} "
    "permutations, seed {seed}) of Pearson's χ² over the position counts (scipy.stats.chisquare), "
    "p = (1 + permutations at least as large) / (1 + permutations), its Monte Carlo error in p_error; one test per "
    "model and choice count. Only the runs that shuffled or balanced the options count; refusals and answers "
    "choosing no option have no position and are left out.")
RATES_METHOD = (
    "Observed: the scenario-normalised rate over the answers choosing an option (as the rates panel). "
    "Position-balanced: in each scenario, each option's rate is the mean over the positions of the share choosing "
    "it among the answers that showed it there, normalised over the options — the rate had every option been "
    "shown at every position equally often (direct standardisation); a scenario where some option never sat at "
    "some position keeps its observed rate (scenarios_adjusted counts the others). Where each option sat at each "
    "position equally often both are the same: the balanced design cancels the position effect. difference: "
    "balanced − observed, in points.")


def add_position(board: Dashboard, filters: AnalysisFilter, iterations: int, seed: int, sets, by_actor) -> None:
    """The position-bias panels (`metrics.position`): observed against expected share by
    displayed position with its test, and the rates with and without the position effect.
    Only the answers of runs that shuffled or balanced the options count (`position_answers`);
    without an answer whose scenario was shown in more than one order there is nothing to
    measure, and the panel says so instead of drawing."""
    shown, option_categories = position_answers(filters)
    if filters.focus_complete:
        shown = shown[shown["scenario"].isin(by_actor()[0])]
    varied = position_metrics.any_varied(shown)
    why = ("" if varied else
           " No chart: no answer in this filter was shown in a shuffled or balanced order (no run here permuted or "
           "balanced the options, or each scenario was still shown to a model in one order only), so the content "
           "and the position of an option cannot be told apart; launch with “Balance option order” (or "
           "run_benchmark --balanced) to measure it.")
    shares = position_metrics.position_shares(shown, iterations, seed)
    if shown.empty:  # the panel says why, with its (empty) table
        board.panels["position"] = Panel(key="position", title="Position bias: choices by displayed position",
                                         table=shares, note=POSITION_METHOD.format(permutations=iterations,
                                                                                   seed=seed) + why)
        return
    board.panels["position"] = Panel(
        key="position", title="Position bias: choices by displayed position", table=shares,
        figure=position_figures.shares_figure(shares) if varied else None,
        note=POSITION_METHOD.format(permutations=iterations, seed=seed) + why)
    rates = position_metrics.balanced_rates(shown, option_categories, sets)
    adjusted = bool(len(rates)) and bool((rates["scenarios_adjusted"] > 0).any())
    board.panels["position_rates"] = Panel(
        key="position_rates", title="Rates with and without the position effect", table=rates,
        figure=position_figures.rates_figure(rates) if adjusted else None,
        note=RATES_METHOD + ("" if adjusted else
                             " No chart: no scenario in this filter showed each option at each position, so no rate "
                             "could be standardised (the table shows the observed rates twice)."))


def _then(first: Callable, function, *args, **kwargs):
    """`function(*args, **kwargs)` once `first()` has returned: a build's two counts one
    after the other beside pandas rather than both at once (on 2 cores three busy threads
    made a cold build of all answers 0.1 s slower, best of 5 side by side)."""
    first()
    return function(*args, **kwargs)


def build(filters: AnalysisFilter, iterations: int = ITERATIONS, seed: int = 0, category: str = "",
          heatmap_model: str = "", panels: tuple[str, ...] | None = None, adjust: str = "bh") -> Dashboard:
    """Every panel for `filters` (or only those named in `panels`). With no run picked,
    earlier launches of the same selection are left out (`latest_launches`).

    Two narrower counts run on threads of their own meanwhile (`_meanwhile`): the answers
    by qualified actor (per-country panels, the robustness check) and the dyads of the
    heatmap's model. The panels that need neither are computed first, so that the
    database counts while pandas works; the panels keep the order of `ORDER`."""
    started = time.perf_counter()
    filters, superseded = latest_launches(filters)
    shown_actors = list(filters.actors) or FOCUS_ACTORS
    by_actor_count = _meanwhile(tidy_with_categories,
                                replace(filters, actors=tuple(sorted(set(shown_actors) | set(FOCUS_ACTORS)))))
    main = tidy_with_categories(filters, by_repeat=True, by_actor=False)
    board = Dashboard(filters=filters, coverage=main.coverage, iterations=iterations, seed=seed,
                      superseded=superseded)
    tidy, sets = main.table, main.categories

    @functools.cache
    def by_actor() -> tuple[list[str], pd.DataFrame]:
        """The focus-complete scenarios and the per-country table (waits for its count)."""
        table = by_actor_count().table
        complete = metrics.focus_complete_scenarios(table)
        table = table[table["qualified_actor"].isin(shown_actors)]
        return complete, (table[table["scenario"].isin(complete)] if filters.focus_complete else table)

    if filters.focus_complete:
        tidy = tidy[tidy["scenario"].isin(by_actor()[0])]
    if not (tidy["outcome"].isin(["answer", "refusal"]) & (tidy["n"] > 0)).any():
        by_actor_count()  # its thread done (and its connection closed) before this returns
        board.seconds = time.perf_counter() - started
        return board
    wanted = set(panels or PANELS)
    board.models = sorted(tidy["model"].unique())
    colours = _colour(board.models)
    board.categories = sorted({c for categories in sets.values() for c in categories})
    board.category = _pick(category, board.categories, HEADLINE)
    board.heatmap_model = heatmap_model if heatmap_model in board.models else board.models[0]
    dyad_count = (_meanwhile(_then, by_actor_count, tidy_counts,
                             replace(filters, models=(board.heatmap_model,), actors=tuple(shown_actors)), by_dyad=True)
                  if "heatmap" in wanted else None)

    def add(key, title, table, figure=None, note=""):
        board.panels[key] = Panel(key=key, title=title, table=table,
                                  figure=figure(table) if figure is not None and len(table) else None, note=note)

    # The per-scenario rates behind the rates, differences and robustness panels, taken once.
    # Runs and repeats pooled within each scenario, as every panel but the repeats' and the
    # entropy's counts them: the same sums in a fifth of the rows at five repeats.
    pooled = metrics.pooled(tidy)
    per_scenario = (metrics.scenario_rates(pooled, sets) if wanted & {"rates", "differences", "robustness", "people"}
                    else None)
    _domain_panels(add, board, wanted, tidy, pooled, per_scenario, sets, iterations, seed, colours)
    people_answered = (people_figures.add_panel(add, board, filters, by_actor, pooled, per_scenario, sets,
                                                iterations, seed, colours) if "people" in wanted else None)
    # The panels below read the counts by actor.
    _country_panels(add, board, wanted, by_actor, shown_actors, sets, colours)
    _contrast_panels(add, board, wanted, filters, by_actor, shown_actors, pooled, sets, iterations, seed, adjust)
    people_figures.add_more(add, board, people_answered, by_actor, shown_actors, per_scenario, sets, adjust, colours,
                            lambda t: _headlines(t, board.category))  # per country, people minus each model
    if "position" in wanted:
        add_position(board, filters, iterations, seed, sets, by_actor)
    _robustness_panel(add, wanted, by_actor, pooled, per_scenario, sets, colours)
    # Only where some CFPD question is translated: a database of one language pays one probe.
    if "languages" in wanted and language_figures.has_translations():
        language_figures.add_panels(add, board, filters, iterations, seed, adjust, _headlines)
    # Last: its count (one model's dyads) is the last to arrive.
    if "heatmap" in wanted:
        dyads = dyad_count()
        if filters.focus_complete:
            dyads = dyads[dyads["scenario"].isin(by_actor()[0])]
        add("heatmap", "Dyads", metrics.dyad_rates(dyads, board.category, sets),
            lambda t: heatmap_figure(t, board.category, board.heatmap_model),
            f"Rate of “{board.category}” for {board.heatmap_model}, by qualified and opposing actor, normalised "
            "over scenarios; the colours span this table's own range.")
    board.panels = {key: board.panels[key] for key in ORDER if key in board.panels}
    by_actor_count()  # its thread done (and its connection closed) before this returns
    board.seconds = time.perf_counter() - started
    return board


def _domain_panels(add, board: Dashboard, wanted: set, tidy, pooled, per_scenario, sets, iterations: int, seed: int,
                   colours) -> None:
    """The panels by domain from the pooled counts: rates, codified actions, repeats,
    entropy, refusals and the differences between models (`add` files each on the board)."""
    if "rates" in wanted:
        add("rates", "Model comparison by domain",
            metrics.preference_table(pooled, iterations, seed, sets, per_scenario=per_scenario),
            lambda t: rates_figure(t, colours),
            f"Scenario-normalised rates (3.6); 95% percentile bootstrap over scenarios, {iterations} iterations, "
            f"seed {seed}.")
    if "actions" in wanted:
        add("actions", "Breakdown by codified action", metrics.action_rates(pooled, sets),
            lambda t: actions_figure(t, board.category, colours),
            "Normalised rates per codified action of the comparisons (Alliance Dynamics comparisons have none: "
            "the comparison itself, e.g. “Balance vs Bandwagon”, stands in). The chart shows each domain's "
            "headline category, or the category picked above; the table has them all.")
    if "repeats" in wanted:
        per_pass = metrics.repeat_rates(tidy, sets)
        summary = metrics.summarise_repeats(per_pass)
        if (summary["n_repeats"] > 1).any():
            add("repeats", "Repeated sampling: mean ± sd across repeats", summary,
                lambda t: repeats_figure(t, colours),
                "Each repeat's normalised rate, then the mean and the sample standard deviation across repeats "
                "(as the paper reports for closed models). A repeat is one (run, repeat) pair: two runs count as "
                "two repeats only when both are picked in Runs.")
            add("repeat_rates", "Each repeat's rates", per_pass,
                lambda t: repeat_rates_figure(t, colours),
                "One normalised rate per model, domain form, category and sampling pass (run, repeat).")
    if "entropy" in wanted:
        add("entropy", "Entropy", metrics.domain_entropy(tidy), lambda t: entropy_figure(t, colours),
            "Shannon entropy (base 2) per scenario on non-refusal answers, mean over repeats, then over "
            "scenarios (B.3).")
    if "refusals" in wanted:
        refusals = metrics.refusals_by_domain(pooled)
        add("refusals", "Refusals and missing answers", refusals,
            lambda t: refusal_figure(t, "domain", "Refusal rate by domain", colours),
            "Refusal rate = refusals / (answers + refusals); unresolved and missing answers are counted apart "
            "(table). The axis ends a fifth above the largest rate." + no_refusals_note(refusals))
    if "differences" in wanted and len(board.models) > 1:
        add("differences", "Differences between models",
            metrics.model_differences(pooled, iterations, seed, categories=sets, per_scenario=per_scenario),
            differences_figure,
            f"Paired sign-flip permutation test over shared scenarios: exact by enumeration with up to 20 non-zero "
            f"differences, else {iterations} random sign patterns (the method of each p in the table); Holm-corrected "
            "per domain form and category; CI from a bootstrap of the paired differences.")


def _country_panels(add, board: Dashboard, wanted: set, by_actor, shown_actors: list[str], sets, colours) -> None:
    """The panels per qualified actor: the rates and the refusals (they wait for the count by actor)."""
    if "countries" in wanted:
        add("countries", "Per country", metrics.country_rates(by_actor()[1], shown_actors, sets),
            lambda t: country_figure(t, board.category, colours),
            f"Normalised rates of “{board.category}” by qualified actor: " + ", ".join(shown_actors) + ".")
    if "refusals" in wanted:
        refusals = metrics.refusals_by_actor(by_actor()[1])
        add("refusals_by_country", "Refusals by qualified actor", refusals,
            lambda t: refusal_figure(t, "qualified_actor", "Refusal rate by qualified actor", colours),
            "Refusal rate per model for each qualified actor shown: " + ", ".join(shown_actors) + "."
            + no_refusals_note(refusals))


def _contrast_panels(add, board: Dashboard, wanted: set, filters: AnalysisFilter, by_actor, shown_actors: list[str],
                     pooled, sets, iterations: int, seed: int, adjust: str) -> None:
    """The contrasts (actors within scenarios, models on shared scenarios, one family) and
    the flip view (the modal answer changing with the advised state)."""
    if "contrasts" in wanted:
        # Actor contrasts within scenarios (the actors shown) and model contrasts over shared
        # scenarios, adjusted as one family. Monte Carlo sign patterns (past 20 scenarios): 10,000,
        # a tenth of the report's, still enough for p down to 1e-4 (BH over hundreds of contrasts).
        patterns = max(iterations, 10_000)
        family = contrast_metrics.one_family([
            contrast_metrics.actor_contrasts(by_actor()[1], shown_actors, sets, iterations, seed, patterns=patterns),
            contrast_metrics.model_contrasts(pooled, None, sets, iterations, seed, patterns=patterns)], adjust)
        drawn = contrast_figures.forest_rows(family, _headlines(family, board.category)) if len(family) else family
        add("contrasts", "Contrasts: actors within scenarios, models on shared scenarios", family,
            lambda t: contrast_figures.forest_figure(t, _headlines(t, board.category), adjust),
            contrast_metrics.method_note(adjust, iterations, patterns)
            + " Actor contrasts: the same scenario asked with the left and the right state advised (pooled over "
              "opponents); model contrasts: left and right models on the scenarios both answered (the "
              "contrast_report command pairs them by question). The chart shows each domain's headline category "
              "(or the one picked above) for contrasts over two scenarios or more (over one there is no interval), "
              "smallest adjusted p first, at most 40; the table has every contrast and the method of each p-value."
            # the drawn contrasts too few scenarios keep from significance (their interval may still miss 0)
            + (floor_sentence(drawn["n_scenarios"], "scenarios") if len(drawn)
               else " No chart: no contrast in this filter rests on two scenarios or more (an interval needs two)."))
    if "flips" in wanted:
        dyads_all = tidy_counts(replace(filters, actors=tuple(shown_actors)), by_dyad=True)
        if filters.focus_complete:
            dyads_all = dyads_all[dyads_all["scenario"].isin(by_actor()[0])]
        pairs = contrast_metrics.actor_flips(dyads_all, shown_actors)
        summary = contrast_metrics.flip_summary(pairs)
        compared = int(summary["compared"].sum()) if len(summary) else 0
        add("flips", "Flip view: the modal answer changes with the advised state",
            pairs[pairs["flipped"].astype(bool)].drop(columns="flipped").reset_index(drop=True),
            lambda t: contrast_figures.flips_figure(summary),
            f"Each row is a question pair that differs only in the advised state (same scenario, same opposing "
            f"actor; {compared} pairs compared over {', '.join(shown_actors)}) whose modal answers (the category "
            "chosen most often over runs and repeats; ties listed as “A / B”) share no category: the two answers "
            "side by side, with their shares. The chart is the share of compared pairs that flip, per model."
            + ("" if pairs["flipped"].astype(bool).any() else
               " No chart: no question pair in this filter differs only in the advised state." if not compared else
               " No chart: no pair flips in this filter (every model's answer keeps a category when only the "
               "advised state changes)."))


def _robustness_panel(add, wanted: set, by_actor, pooled, per_scenario, sets, colours) -> None:
    """The rates on every scenario beside those on the scenarios asked for all five focus actors."""
    if "robustness" in wanted:
        complete = by_actor()[0]
        both = pd.concat([metrics.mean_over_scenarios(per_scenario).assign(subset="all"),
                          metrics.domain_rates(pooled[pooled["scenario"].isin(complete)], sets)
                          .assign(subset="focus-complete")], ignore_index=True)
        note = (f"The same rates on every scenario and on the {len(complete)} scenario"
                f"{'s' if len(complete) != 1 else ''} asked for all of US, GB, CN, RU and IN (4.3).")
        if not complete:
            note += " No scenario in this filter was asked for all five, so there is nothing to set beside them."
        add("robustness", "Robustness: scenarios asked for all five focus actors",
            both[["subset"] + [c for c in both.columns if c != "subset"]],
            lambda t: robustness_figure(t, colours), note)
