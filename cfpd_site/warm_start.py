"""What a web process does once, before gunicorn forks its workers (`CFPD_WARM_START`, read
by `cfpd_site.wsgi`; set by cfpd_site/gunicorn_conf.py), so that no worker's first request
pays for it (issue 38: a fresh worker's first page took 1.5-1.9 s on the dashboards, 8 s
under load, and the first visit to Territories 6.4 s):

* LiteLLM and its OpenAI client (`gateway.warm_up`), which a launch's plan and the
  models' key check use;
* the URLconf, and with it every view's module and what they import (pandas, scipy,
  statsmodels, plotly, DRF): Django imports it on a process's first request, 1.9 s on an
  idle core;
* every template, compiled into the cached loader the workers inherit;
* plotly's chart template and the validators of the traces the dashboards draw, which
  plotly imports on a figure's first use (a fifth of Territories' first build).

`CFPD_WARM_START=llm` warms LiteLLM only (what was done before issue 38), to measure the
difference (bench/first_load.py --compare)."""

from __future__ import annotations

import os

from django.conf import settings


def warm_up(level: str = "1") -> None:
    import gateway

    gateway.warm_up()
    if level == "llm":
        return
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 (imports the URLconf and every view)
    _templates()
    _charts()


def _templates() -> None:
    """Every template under the project's and the apps' template folders, compiled once."""
    from django.apps import apps
    from django.template import TemplateSyntaxError, engines

    engine = engines["django"]
    folders = [str(folder) for entry in settings.TEMPLATES for folder in entry.get("DIRS", [])]
    folders += [os.path.join(config.path, "templates") for config in apps.get_app_configs()]
    for folder in folders:
        for parent, _, names in os.walk(folder):
            for name in names:
                if name.endswith((".html", ".txt")):
                    try:
                        engine.get_template(os.path.relpath(os.path.join(parent, name), folder))
                    except TemplateSyntaxError:  # a template meant for another engine or loader: its page compiles it
                        pass


def _charts() -> None:
    """The first build of a dashboard, short of its data: plotly's chart template, the
    validators of the traces and layout parts the boards set through plotly's objects
    (territories_app and crisis_app dashboards), plotly's reading of pandas columns
    (narwhals), pandas' reshaping and the SQL compiler, each imported on first use."""
    import pandas as pd
    import plotly.graph_objects as go
    import pyarrow.pandas_compat  # noqa: F401 (pandas' arrow-backed strings to NumPy)
    from django.db import connection

    from analysis_app import panels

    connection.ops.compiler("SQLCompiler")  # imports the backend's compiler module; no query
    panels._template()
    frame = pd.DataFrame({"territory": ["a", "a", "b"], "repeat": [0, 1, 0], "value": [0.1, 0.2, 0.3]})
    frame.pivot(index="territory", columns="repeat", values="value")
    figure = go.Figure()
    figure.add_bar(x=frame["territory"], y=frame["value"], error_y={"type": "data", "array": [0.1]},
                   marker={"color": "#1f5fa8"})
    figure.add_scatter(x=[0, 1], y=[1, 1], mode="lines", line={"dash": "dot"})
    figure.add_box(y=frame["value"], name="a")
    figure.add_scattergeo(lat=frame["value"], lon=frame["value"], text=frame["territory"],
                          marker={"size": [5, 5, 5], "color": frame["value"], "line": {"width": 1},
                                  "colorbar": {"title": {"text": "a"}}})
    figure.update_layout(title="a", legend={"orientation": "h"}, margin={"l": 0, "r": 0},
                         geo={"showframe": False, "projection": {"type": "natural earth"},
                              "lataxis": {"range": [-60, 85]}, "lonaxis": {"range": [-180, 180]}},
                         shapes=[{"type": "line", "x0": 0, "x1": 1, "y0": 0, "y1": 0}],
                         annotations=[{"text": "a", "x": 0, "y": 0}], xaxis={"range": [0, 1]})
    figure.to_json()
