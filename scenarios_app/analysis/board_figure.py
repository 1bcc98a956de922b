"""The CFPD dashboard's board as a figure the worker computes (`analysis_app.computed`,
kind "cfpd-dashboard"): a build takes seconds at scale, too long for a request. The row's
key names the filter, the options and the data version; its result is what the page
renders from (coverage, the form's choices, the panels' HTML with their charts' JSON).
Until the build for the current data is done, the page shows the newest build of the same
filter, labelled with its time, or a placeholder that fills in by itself.

The panels' HTML is rendered by the worker with `QUERY_MARK` in its CSV links; the page
puts its own query there (the same view reached by two spellings of its URL)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.template.loader import render_to_string
from django.utils.html import escape

from analysis_app import computed
from analysis_app.models import ComputedFigure
from analysis_app.tables import display_rows

from . import dashboard
from .tidy_query import AnalysisFilter, Superseded

KIND = "cfpd-dashboard"
QUERY_MARK = "cfpd-page-query"


def _hash(value) -> str:
    return hashlib.sha256(repr(value).encode()).hexdigest()[:40]


def view_prefix(filters: AnalysisFilter, options: dict) -> str:
    """The keys of every build of this filter and options, whatever the data version."""
    return f"{KIND}:{_hash((filters, sorted(options.items())))}:"


def figure_key(filters: AnalysisFilter, options: dict, version) -> str:
    return view_prefix(filters, options) + _hash(version)


def _plain(value):
    """numpy scalars (a count, a model's name) as the JSON field stores them."""
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"not JSON: {type(value).__name__}")


def _tuples(value):
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def compute_board(filters: dict, options: dict, version: str = "") -> dict:
    """The worker's side (registered in `scenarios_app.apps`): build the board and render its panels.
    `version` is the data version the build was asked for (a record only: the build
    counts the answers there are now)."""
    board = dashboard.build(AnalysisFilter(**{k: _tuples(v) for k, v in filters.items()}), **options)
    result = {
        "coverage": board.coverage, "iterations": board.iterations, "seed": board.seed,
        "seconds": board.seconds, "categories": board.categories, "category": board.category,
        "heatmap_model": board.heatmap_model, "models": board.models,
        "superseded": [dataclasses.asdict(item) for item in board.superseded],
        "panel_keys": list(board.panels), "panels_html": render_panels(board, QUERY_MARK),
    }
    return json.loads(json.dumps(result, default=_plain))


def render_panels(board: dashboard.Dashboard, query: str) -> str:
    """The panels (charts' JSON, folded tables, CSV links with `query`) as HTML, every
    value escaped by the template."""
    panels = [{"key": key, "anchor": key.replace("_", "-"), "script_id": f"figure-data-{key}",
               "title": panel.title, "note": panel.note, "figure": panel.figure,
               "columns": list(panel.table.columns), "rows": display_rows(panel.table),
               "total_rows": len(panel.table), "csv": f"{key}.csv?{query}"}
              for key in dashboard.ORDER if (panel := board.panels.get(key)) is not None]
    return render_to_string("analysis_app/panels.html", {"panels": panels})


@dataclass
class ShownBoard:
    """What the page renders: a finished build (maybe of older data), or nothing yet."""

    state: str  # "current", "stale" (a newer build is being computed), "computing", "failed"
    waiting_key: str = ""  # the build the page waits for (status.json)
    error: str = ""
    computed_at: datetime | None = None
    requested_at: datetime | None = None
    seconds: float = 0.0
    coverage: dict = dataclasses.field(default_factory=dict)
    iterations: int = dashboard.ITERATIONS
    seed: int = 0
    categories: list = dataclasses.field(default_factory=list)
    category: str = ""
    heatmap_model: str = ""
    models: list = dataclasses.field(default_factory=list)
    superseded: list = dataclasses.field(default_factory=list)
    panels: list = dataclasses.field(default_factory=list)  # the panels' keys
    panels_html: str = ""

    @property
    def empty(self):
        return not self.panels

    @property
    def ready(self):
        return self.computed_at is not None


def request_board(filters: AnalysisFilter, options: dict, *, fresh: bool = False) -> ShownBoard:
    """The board to show for this filter now, and the build of the current data asked of
    the worker when it is not done (`fresh`: asked again even when it is). With
    `CFPD_DASHBOARD_IN_WORKER` off (tests, a one-process setup) the build runs here,
    through the same row."""
    version = dashboard.data_version()
    key = figure_key(filters, options, version)
    params = {"filters": dataclasses.asdict(filters), "options": options, "version": repr(version)}
    row = computed.request(key, KIND, params, retry_after=timedelta(0) if fresh else None)
    if not settings.CFPD_DASHBOARD_IN_WORKER and row.status in (ComputedFigure.Status.PENDING,
                                                                  ComputedFigure.Status.RUNNING):
        try:
            computed.compute(row.pk)
        except Exception:  # noqa: BLE001 — on the row, and the page shows it
            pass
        row.refresh_from_db()
    prefix = view_prefix(filters, options)
    shown = row
    if row.status != ComputedFigure.Status.DONE and row.result is None:
        shown = (ComputedFigure.objects.filter(key__startswith=prefix, status=ComputedFigure.Status.DONE)
                 .exclude(pk=row.pk).order_by("-computed_at").first())
    # Earlier builds of this filter are of no more use: the one shown and the one asked for stay.
    (ComputedFigure.objects.filter(key__startswith=prefix).exclude(pk__in=[row.pk, shown.pk if shown else row.pk])
     .exclude(status=ComputedFigure.Status.RUNNING).delete())
    waiting = row.status in (ComputedFigure.Status.PENDING, ComputedFigure.Status.RUNNING)
    if shown is None:
        failed = row.status == ComputedFigure.Status.FAILED
        return ShownBoard(state="failed" if failed else "computing", waiting_key="" if failed else row.key,
                          error=row.error, requested_at=row.requested_at, iterations=options["iterations"],
                          seed=options["seed"])
    result = shown.result
    return ShownBoard(
        state="stale" if waiting or row.status == ComputedFigure.Status.FAILED else "current",
        waiting_key=row.key if waiting else "", error=row.error if row.status == ComputedFigure.Status.FAILED else "",
        computed_at=shown.computed_at, requested_at=row.requested_at, seconds=result["seconds"],
        coverage=result["coverage"], iterations=result["iterations"], seed=result["seed"],
        categories=result["categories"], category=result["category"], heatmap_model=result["heatmap_model"],
        models=result["models"], superseded=[Superseded(**item) for item in result["superseded"]],
        panels=result["panel_keys"], panels_html=result["panels_html"])


def panels_for(board: ShownBoard, query: str) -> str:
    """The board's panels with this page's query in their CSV links."""
    return board.panels_html.replace(QUERY_MARK, escape(query))
