"""The contrasts' charts on the CFPD dashboard (issue 29): a forest plot (one row per
contrast: its estimate and 95 % interval in points, zero marked, the contrasts significant
after Benjamini–Hochberg (or Holm) drawn dark with ★) and the flip view's chart (per model, the
share of compared questions whose modal answer flips when only the advised state changes).
Plain plotly JSON through `analysis_app.panels.chart`, as every other chart of the page."""

from __future__ import annotations

import pandas as pd

from analysis_app import forest
from analysis_app.metrics.multiplicity import SHORT_NAMES
from analysis_app.panels import PALETTE, chart, layout


def contrast_label(row) -> str:
    who = f"{row['left']} − {row['right']}"
    return (f"{who} · {row['model']} · " if row["kind"] in ("actor", "language") else f"{who} · ") + \
        f"{row['domain']} ({row['choice_count']}) · {row['category']}"


def forest_rows(table: pd.DataFrame, shown: dict[str, str]) -> pd.DataFrame:
    """The rows the chart may draw (the table keeps them all): each domain's shown category,
    over two scenarios or more (over one, a contrast has no interval), each with its label.
    The shared forest plot picks the `forest.MAX_ROWS` with the smallest adjusted p."""
    rows = table[(table["category"] == table["domain"].map(shown)) & (table["n_scenarios"] >= 2)]
    return rows.assign(label=[contrast_label(row) for _, row in rows.iterrows()]) if len(rows) else rows


def forest_figure(table: pd.DataFrame, shown: dict[str, str], adjust: str = "bh") -> dict | None:
    """The shared forest plot (`analysis_app.forest`) of the rows `forest_rows` picks."""
    rows = forest_rows(table, shown)
    if rows.empty:
        return None
    return forest.forest_figure(rows, "Contrasts (left − right, points), 95% cluster-bootstrap intervals, over 2+ "
                                      "scenarios", "← right higher · left higher → (points)", "n_scenarios",
                                "scenarios", correction=SHORT_NAMES[adjust])


def flips_figure(summary: pd.DataFrame) -> dict:
    """Per model: flips / questions compared, each bar printing "flips of compared"."""
    traces = [{"type": "bar", "name": model, "x": [model], "y": [row["share"]],
               "marker": {"color": PALETTE[i % len(PALETTE)]},
               "text": [f"{int(row['flips'])} of {int(row['compared'])}"], "textposition": "outside",
               "cliponaxis": False, "hovertemplate": "%{x}: %{y:.1%} of the pairs compared flip<extra></extra>"}
              for i, (model, row) in enumerate(summary.set_index("model").iterrows())]
    top = max(0.1, float(summary["share"].max()) * 1.25) if len(summary) else 1.0
    return chart(traces, layout("Share of question pairs whose modal answer flips when only the advised state changes",
                                yaxis={"range": [0, min(1.05, top)], "tickformat": ".0%"}, showlegend=False,
                                height=360))
