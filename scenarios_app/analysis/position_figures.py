"""The position-bias charts on the CFPD dashboard (issue 29): per model (and choice count),
the observed share of choices at each displayed position beside the share expected from
content, the permutation test's p-value under the model's name; and the rates with and
without the position effect, one dot per model, domain form and category. Plain plotly
JSON through `analysis_app.panels.chart`, as every other chart of the page."""

from __future__ import annotations

import pandas as pd

from analysis_app.panels import PALETTE, chart, layout

OBSERVED, EXPECTED = PALETTE[0], "#9aa5b1"


def _p_text(p) -> str:
    if p != p:  # NaN: every scenario shown in one order
        return "no test"
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def model_label(row) -> str:
    return f"{row['model']} ({row['choice_count']} options)<br>{_p_text(row['p_value'])}"


def shares_figure(table: pd.DataFrame) -> dict:
    """Grouped bars on a two-level axis (model, position): observed and expected shares."""
    table = table.sort_values(["model", "choice_count", "position"], kind="stable")
    x = [[model_label(row) for _, row in table.iterrows()], table["position"].tolist()]
    hover = "%{x}: %{y:.1%} (" + "%{customdata[0]:.1f} of %{customdata[1]} answers)<extra>%{fullData.name}</extra>"
    traces = [
        {"type": "bar", "name": "observed share", "x": x, "y": table["observed_share"], "marker": {"color": OBSERVED},
         "customdata": table[["observed", "answers"]].to_numpy(), "hovertemplate": hover,
         "text": [f"{v:.0%}" for v in table["observed_share"]], "textposition": "outside", "cliponaxis": False},
        {"type": "bar", "name": "expected from content", "x": x, "y": table["expected_share"],
         "marker": {"color": EXPECTED}, "customdata": table[["expected", "answers"]].to_numpy(),
         "hovertemplate": hover, "text": [f"{v:.0%}" for v in table["expected_share"]], "textposition": "outside",
         "cliponaxis": False},
    ]
    top = max(0.5, float(table[["observed_share", "expected_share"]].max().max()) * 1.2)
    return chart(traces, layout("Share of choices by displayed position: observed and expected from content "
                                "(per model; stratified permutation test's p under its name)", barmode="group",
                                yaxis={"range": [0, min(1.1, top)], "tickformat": ".0%"},
                                xaxis={"type": "multicategory"}, height=440, margin={"b": 90}))


def rates_figure(table: pd.DataFrame) -> dict:
    """Observed rate (x) against the position-balanced rate (y): dots on the diagonal did not
    move with the position."""
    traces = [{"type": "scatter", "name": "same rate", "x": [0, 1], "y": [0, 1], "mode": "lines",
               "line": {"color": "#aaa", "dash": "dot"}, "hoverinfo": "skip"}]
    for i, (model, rows) in enumerate(table.groupby("model", sort=True)):
        traces.append({"type": "scatter", "name": model, "x": rows["rate_observed"], "y": rows["rate_balanced"],
                       "mode": "markers", "marker": {"color": PALETTE[i % len(PALETTE)], "size": 9, "opacity": 0.8},
                       "text": [f"{d} ({c}) · {cat}" for d, c, cat in
                                zip(rows["domain"], rows["choice_count"], rows["category"])],
                       "hovertemplate": "%{text}<br>observed %{x:.1%} · position-balanced %{y:.1%}"})
    return chart(traces, layout("Rates as observed against rates with each option at each position equally often",
                                xaxis={"range": [-0.02, 1.02], "tickformat": ".0%",
                                       "title": {"text": "observed rate"}},
                                yaxis={"range": [-0.02, 1.02], "tickformat": ".0%",
                                       "title": {"text": "position-balanced rate"}}, height=460))
