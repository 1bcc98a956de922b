"""The contrasts' charts on the CFPD dashboard (issue 29): a forest plot (one row per
contrast: its estimate and 95 % interval in points, zero marked, the contrasts significant
after Benjamini–Hochberg drawn dark with ★) and the flip view's chart (per model, the
share of compared questions whose modal answer flips when only the advised state changes).
Plain plotly JSON through `analysis_app.panels.chart`, as every other chart of the page."""

from __future__ import annotations

import pandas as pd

from analysis_app.panels import PALETTE, chart, layout

SIGNIFICANT, OTHER = "#1f2d3d", "#9aa5b1"
ROW_HEIGHT = 22


def contrast_label(row) -> str:
    who = f"{row['left']} − {row['right']}"
    return (f"{who} · {row['model']} · " if row["kind"] == "actor" else f"{who} · ") + \
        f"{row['domain']} ({row['choice_count']}) · {row['category']}"


MAX_ROWS = 40


def forest_rows(table: pd.DataFrame, shown: dict[str, str]) -> pd.DataFrame:
    """The rows the chart draws (the table keeps them all): each domain's shown category, over
    two scenarios or more (over one, a contrast has no interval), the `MAX_ROWS` with the
    smallest adjusted p-values first (then the larger estimates), so the chart reads at a glance."""
    rows = table[(table["category"] == table["domain"].map(shown)) & (table["n_scenarios"] >= 2)]
    order = rows.assign(_size=-rows["estimate"].abs()).sort_values(["p_adjusted", "p_value", "_size"], kind="stable")
    return order.drop(columns="_size").head(MAX_ROWS)


def forest_figure(table: pd.DataFrame, shown: dict[str, str]) -> dict | None:
    rows = forest_rows(table, shown)
    if rows.empty:
        return None
    eligible = int(((table["category"] == table["domain"].map(shown)) & (table["n_scenarios"] >= 2)).sum())
    labels = [contrast_label(row) for _, row in rows.iterrows()]
    significant = rows["significant"].astype(bool).tolist()
    # One trace, each dot coloured by its own significance (as the differences chart): with
    # scattermode "group" plotly keeps the horizontal orientation, and one trace is no group.
    traces = [{
        "type": "scatter", "mode": "markers+text", "name": "contrast", "orientation": "h",
        "x": rows["estimate"], "y": labels,
        "marker": {"color": [SIGNIFICANT if s else OTHER for s in significant],
                   "size": [11 if s else 8 for s in significant], "symbol": "circle"},
        "text": ["★" if s else "" for s in significant], "textposition": "top center",
        "error_x": {"type": "data", "symmetric": False, "array": rows["ci_high"] - rows["estimate"],
                    "arrayminus": rows["estimate"] - rows["ci_low"], "thickness": 1.5, "color": OTHER},
        "customdata": rows[["p_value", "p_adjusted", "n_scenarios"]].to_numpy(),
        "hovertemplate": "%{y}<br>%{x:+.1f} points<br>p = %{customdata[0]:.4f}, adjusted "
                         "%{customdata[1]:.4f}, %{customdata[2]} scenarios<extra></extra>"}]
    reach = pd.concat([rows["ci_low"].abs(), rows["ci_high"].abs()]).max() if len(rows) else 10
    top = max(5.0, float(reach) * 1.1)
    zero = {"type": "line", "y0": 0, "y1": 1, "yref": "y domain", "x0": 0, "x1": 0, "xref": "x",
            "line": {"color": "#555", "width": 1.5, "dash": "dash"}}
    picked = (f"the {len(rows)} with the smallest adjusted p of {eligible}" if eligible > len(rows)
              else f"all {len(rows)}")
    return chart(traces, layout(
        f"Contrasts (left − right, points), 95% cluster-bootstrap intervals: {picked} over 2+ scenarios; "
        "★ dark: significant after Benjamini–Hochberg",
        xaxis={"range": [-top, top], "zeroline": False, "title": {"text": "← right higher · left higher → (points)"}},
        yaxis={"categoryorder": "array", "categoryarray": labels[::-1], "type": "category"},
        height=max(320, 150 + ROW_HEIGHT * len(labels)), margin={"t": 110}, shapes=[zero], showlegend=False,
        scattermode="group"))


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
