"""What every family's dashboard is built of: a panel (a table, the plotly figure drawn
from it, a note), the charts' common look (`PALETTE`, `chart`, `layout`), and a board
kept in the cache while the answers stay as they are (`cached`, `data_version`)."""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
from django.core.cache import cache
from django.db.models import Max

from encoding_app.models import Code, ReviewTask
from runs_app.models import Response, Run

from .chart_text import chart_title

TEMPLATE = "plotly_white"
PALETTE = ["#1f5fa8", "#d1495b", "#2f8f4e", "#edae49", "#6d4c9f", "#00798c", "#8c564b", "#7f7f7f"]
CACHE_SECONDS = 60


@dataclass
class Panel:
    key: str
    title: str
    table: pd.DataFrame
    figure: dict | None = None
    note: str = ""

    def __post_init__(self):
        # A caption passed where the figure belongs once left two panels blank and lost
        # their notes: a figure is plotly's JSON or nothing.
        if self.figure is not None and not (isinstance(self.figure, dict) and "data" in self.figure):
            raise TypeError(f"panel {self.key}: figure must be a plotly figure dict, got {type(self.figure).__name__}")


@functools.cache
def _template() -> dict:
    return json.loads(go.Figure(layout={"template": TEMPLATE}).to_json())["layout"]["template"]


def chart(traces: list[dict], layout: dict) -> dict:
    """A chart as plain JSON values (plotly's own encoder: numpy and pandas values become
    lists, NaN null), ready for the page's `json_script`, the cache and the API; with the
    page's template. Written as plotly.js reads it rather than built from plotly's
    validated objects, which cost a fifth of a cold build at the paper's scale; the tests
    check every chart against plotly's validation (`tests/scenarios_app/test_analysis.py`)."""
    plain = json.loads(pio.to_json({"data": traces, "layout": layout}, validate=False))
    plain["layout"]["template"] = _template()
    return plain


def layout(title, **extra):
    """The charts' common layout: title at the left, legend above, axes that make room for
    their labels; `extra` merged in (a dict into the key's dict)."""
    base = {"title": chart_title(title),
              "margin": {"l": 60, "r": 20, "t": 70, "b": 40},
              "legend": {"orientation": "h", "y": 1.0, "yanchor": "bottom", "x": 0},
              "xaxis": {"automargin": True}, "yaxis": {"automargin": True},
              "height": 400}
    for key, value in extra.items():
        base[key] = {**base[key], **value} if isinstance(base.get(key), dict) else value
    return base


def data_version() -> tuple:
    """Moves whenever an answer, a code or a reviewer's item is added (newest ids, read from
    the primary keys: instant), or a run is added or finishes; changes that add no row
    show within `CACHE_SECONDS`. A family may add what else moves its figures (CFPD adds
    its tallies' version)."""
    return (Response.objects.aggregate(m=Max("pk"))["m"], Code.objects.aggregate(m=Max("pk"))["m"],
            ReviewTask.objects.aggregate(m=Max("pk"))["m"],
            # which launch of a selection is the newest finished one
            Run.objects.aggregate(m=Max("pk"), f=Max("finished_at")).values())


def cached(name: str, build: Callable, *key_parts, fresh: bool = False):
    """`build()`, kept in the cache for `CACHE_SECONDS` under `name`, the data version and
    `key_parts` (the page's filters and options): the crisis and territories pages' boards,
    too slow to build again at every load (docs/performance.md). Returns (value, cached)."""
    key = f"cfpd:{name}:" + hashlib.sha256(repr((data_version(), key_parts)).encode()).hexdigest()
    value = None if fresh else cache.get(key)
    if value is not None:
        return value, True
    value = build()
    cache.set(key, value, CACHE_SECONDS)
    return value, False
