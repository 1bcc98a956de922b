"""The analysts' dashboard: each panel is a table from the pure metrics, a plotly figure
drawn from that same table, and a CSV of it. Views and the API call `build`; the tables
come from `tidy_query` (counted in the database) and `metrics` (pandas)."""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field, replace
from datetime import datetime

import pandas as pd
import plotly.graph_objects as go
from django.core.cache import cache
from django.db.models import Max
from django.utils import timezone

from analysis_app import metrics
from analysis_app.tidy_query import AnalysisFilter, tidy_counts, tidy_with_categories
from encoding_app.models import Code, ReviewTask
from runs_app.models import Response
from scenarios_app.taxonomy import FOCUS_ACTORS

ITERATIONS = 1000
# The category each domain's per-country and heatmap views show first (the paper's
# figures 6-11 plot these): the most escalatory or most engaged option.
HEADLINE = ["Use of force", "High intervention", "Cooperative", "Balancing"]
PALETTE = ["#1f5fa8", "#d1495b", "#2f8f4e", "#edae49", "#6d4c9f", "#00798c", "#8c564b", "#7f7f7f"]


@dataclass
class Panel:
    key: str
    title: str
    table: pd.DataFrame
    figure: dict | None = None
    note: str = ""


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
    computed_at: datetime = field(default_factory=timezone.now)
    cached: bool = False

    @property
    def empty(self):
        return not self.panels


def _plain(fig: go.Figure) -> dict:
    """The figure as plain JSON values (plotly's own encoder turns numpy arrays into lists),
    ready for the page's `json_script`, the cache and the API."""
    return json.loads(fig.to_json())


def _layout(title, **extra):
    return {"title": {"text": title, "font": {"size": 14}}, "margin": {"l": 50, "r": 20, "t": 40, "b": 80},
            "legend": {"orientation": "h", "y": -0.25}, "height": 380, "template": "plotly_white", **extra}


def _colour(models):
    return {model: PALETTE[i % len(PALETTE)] for i, model in enumerate(sorted(models))}


def rates_figure(table: pd.DataFrame, colours) -> dict:
    """Figure 5: normalised rate by domain form and category, one bar per model, CI bars."""
    fig = go.Figure()
    for model, rows in table.groupby("model", sort=True):
        x = [f"{d} ({c}) · {cat}" for d, c, cat in zip(rows["domain"], rows["choice_count"], rows["category"])]
        fig.add_bar(name=model, x=x, y=rows["rate"], marker_color=colours[model],
                    error_y={"type": "data", "symmetric": False, "array": rows["ci_high"] - rows["rate"],
                             "arrayminus": rows["rate"] - rows["ci_low"]})
    fig.update_layout(**_layout("Normalised response rate with 95% bootstrap CI", barmode="group",
                                yaxis={"range": [0, 1], "tickformat": ".0%"}, height=520,
                                margin={"l": 50, "r": 20, "t": 40, "b": 200}, legend={"orientation": "h", "y": 1.08}))
    return _plain(fig)


def country_figure(table: pd.DataFrame, category: str, colours) -> dict:
    rows = table[table["category"] == category]
    fig = go.Figure()
    for model, part in rows.groupby("model", sort=True):
        x = [f"{a} · {d} ({c})" for a, d, c in zip(part["qualified_actor"], part["domain"], part["choice_count"])]
        fig.add_bar(name=model, x=x, y=part["rate"], marker_color=colours[model])
    fig.update_layout(**_layout(f"“{category}” by qualified actor", barmode="group",
                                yaxis={"range": [0, 1], "tickformat": ".0%"}, height=460,
                                margin={"l": 50, "r": 20, "t": 40, "b": 150}, legend={"orientation": "h", "y": 1.1}))
    return _plain(fig)


def heatmap_figure(table: pd.DataFrame, category: str, model: str) -> dict:
    grid = table.pivot_table(index="qualified_actor", columns="opposing_actor", values="rate", aggfunc="mean")
    fig = go.Figure(go.Heatmap(z=grid.to_numpy(), x=list(grid.columns), y=list(grid.index), zmin=0, zmax=1,
                               colorscale="Blues", hovertemplate="%{y} vs %{x}: %{z:.0%}<extra></extra>"))
    fig.update_layout(**_layout(f"{model}: “{category}” by qualified actor (rows) and opposing actor (columns)",
                                height=max(320, 28 * len(grid.index) + 120)))
    return _plain(fig)


def entropy_figure(table: pd.DataFrame, colours) -> dict:
    fig = go.Figure()
    for model, rows in table.groupby("model", sort=True):
        fig.add_bar(name=model, x=[f"{d} ({c})" for d, c in zip(rows["domain"], rows["choice_count"])],
                    y=rows["entropy"], marker_color=colours[model])
    fig.update_layout(**_layout("Mean entropy per scenario (bits, refusals removed)", barmode="group"))
    return _plain(fig)


def refusal_figure(table: pd.DataFrame, colours) -> dict:
    fig = go.Figure()
    for model, rows in table.groupby("model", sort=True):
        fig.add_bar(name=model, x=rows["domain"], y=rows["refusal_rate"], marker_color=colours[model])
    fig.update_layout(**_layout("Refusal rate by domain", barmode="group", yaxis={"tickformat": ".0%"}))
    return _plain(fig)


def _pick(wanted: str, available: list[str], preferred: list[str]) -> str:
    if wanted in available:
        return wanted
    return next((c for c in preferred if c in available), available[0] if available else "")


CACHE_SECONDS = 60


def data_version() -> tuple:
    """Moves whenever an answer, a code or a reviewer's item is added (newest ids, read from
    the primary keys: instant). Changes that add no row (a failed call, an undo) show within
    `CACHE_SECONDS`."""
    return (Response.objects.aggregate(m=Max("pk"))["m"], Code.objects.aggregate(m=Max("pk"))["m"],
            ReviewTask.objects.aggregate(m=Max("pk"))["m"])


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
    cache.set(key, board, CACHE_SECONDS)
    return board


def build(filters: AnalysisFilter, iterations: int = ITERATIONS, seed: int = 0, category: str = "",
          heatmap_model: str = "", panels: tuple[str, ...] | None = None) -> Dashboard:
    """Every panel for `filters` (or only those named in `panels`)."""
    started = time.perf_counter()
    main = tidy_with_categories(filters, by_repeat=True, by_actor=False)
    board = Dashboard(filters=filters, coverage=main.coverage, iterations=iterations, seed=seed)
    tidy, sets = main.table, main.categories
    shown_actors = list(filters.actors) or FOCUS_ACTORS
    # Per-country figures and the robustness check need actors: a second, narrower count
    # over the actors shown and the five focus actors only.
    by_actor = tidy_with_categories(replace(filters, actors=tuple(sorted(set(shown_actors) | set(FOCUS_ACTORS)))))
    complete = metrics.focus_complete_scenarios(by_actor.table)
    if filters.focus_complete:
        tidy = tidy[tidy["scenario"].isin(complete)]
    actor_table = by_actor.table[by_actor.table["qualified_actor"].isin(shown_actors)]
    if filters.focus_complete:
        actor_table = actor_table[actor_table["scenario"].isin(complete)]
    if not (tidy["outcome"].isin(["answer", "refusal"]) & (tidy["n"] > 0)).any():
        board.seconds = time.perf_counter() - started
        return board
    wanted = set(panels or ("rates", "actions", "repeats", "countries", "heatmap", "entropy", "refusals",
                            "differences", "robustness"))
    board.models = sorted(tidy["model"].unique())
    colours = _colour(board.models)
    board.categories = sorted({c for categories in sets.values() for c in categories})
    board.category = _pick(category, board.categories, HEADLINE)

    if "rates" in wanted:
        rates = metrics.preference_table(tidy, iterations, seed, sets)
        board.panels["rates"] = Panel("rates", "Model comparison by domain", rates, rates_figure(rates, colours),
                                      f"Scenario-normalised rates (3.6); 95% percentile bootstrap over scenarios, "
                                      f"{iterations} iterations, seed {seed}.")
    if "actions" in wanted:
        board.panels["actions"] = Panel("actions", "Breakdown by codified action", metrics.action_rates(tidy, sets))
    if "repeats" in wanted:
        summary = metrics.repeat_summary(tidy, sets)
        if (summary["n_repeats"] > 1).any():
            board.panels["repeats"] = Panel("repeats", "Repeated sampling: mean ± sd across repeats", summary,
                                            note="Each repeat's normalised rate, then the mean and the sample "
                                                 "standard deviation across repeats (as the paper reports for "
                                                 "closed models).")
            board.panels["repeat_rates"] = Panel("repeat_rates", "Each repeat's rates",
                                                 metrics.repeat_rates(tidy, sets))
    if "countries" in wanted:
        countries = metrics.country_rates(actor_table, shown_actors, sets)
        board.panels["countries"] = Panel("countries", "Per country", countries,
                                          country_figure(countries, board.category, colours) if len(countries)
                                          else None,
                                          "Normalised rates by qualified actor: " + ", ".join(shown_actors) + ".")
    if "heatmap" in wanted:
        board.heatmap_model = heatmap_model if heatmap_model in board.models else board.models[0]
        dyads = tidy_counts(replace(filters, models=(board.heatmap_model,), actors=tuple(shown_actors)),
                            by_dyad=True)
        if filters.focus_complete:
            dyads = dyads[dyads["scenario"].isin(complete)]
        heat = metrics.dyad_rates(dyads, board.category, sets)
        board.panels["heatmap"] = Panel("heatmap", "Dyads", heat,
                                        heatmap_figure(heat, board.category, board.heatmap_model) if len(heat)
                                        else None,
                                        f"Rate of “{board.category}” for {board.heatmap_model}, by qualified "
                                        "and opposing actor, normalised over scenarios.")
    if "entropy" in wanted:
        entropy = metrics.domain_entropy(tidy)
        board.panels["entropy"] = Panel("entropy", "Entropy", entropy, entropy_figure(entropy, colours),
                                        "Shannon entropy (base 2) per scenario on non-refusal answers, mean over "
                                        "repeats, then over scenarios (B.3).")
    if "refusals" in wanted:
        refusals = metrics.refusals_by_domain(tidy)
        board.panels["refusals"] = Panel("refusals", "Refusals and missing answers", refusals,
                                         refusal_figure(refusals, colours),
                                         "Refusal rate = refusals / (answers + refusals); unresolved and missing "
                                         "answers are counted apart.")
        board.panels["refusals_by_country"] = Panel("refusals_by_country", "Refusals by qualified actor",
                                                    metrics.refusals_by_actor(actor_table))
    if "differences" in wanted and len(board.models) > 1:
        board.panels["differences"] = Panel(
            "differences", "Differences between models",
            metrics.model_differences(tidy, iterations, seed, categories=sets),
            f"Paired sign-flip permutation test over shared scenarios ({iterations} iterations), Holm-corrected "
            "per domain form and category; CI from a bootstrap of the paired differences.")
    if "robustness" in wanted:
        both = pd.concat([metrics.domain_rates(tidy, sets).assign(subset="all"),
                          metrics.domain_rates(tidy[tidy["scenario"].isin(complete)], sets)
                          .assign(subset="focus-complete")], ignore_index=True)
        board.panels["robustness"] = Panel(
            "robustness", "Robustness: scenarios asked for all five focus actors",
            both[["subset"] + [c for c in both.columns if c != "subset"]],
            f"The same rates on every scenario and on the {len(complete)} scenarios asked for all of US, GB, CN, "
            "RU and IN (4.3).")
    board.seconds = time.perf_counter() - started
    return board
