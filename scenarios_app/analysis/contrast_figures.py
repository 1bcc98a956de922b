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


def forest_rows(table: pd.DataFrame, shown: dict[str, str]) -> pd.DataFrame:
    """The rows the chart draws: each domain's shown category (the table keeps them all)."""
    return table[table["category"] == table["domain"].map(shown)]


def forest_figure(table: pd.DataFrame, shown: dict[str, str]) -> dict:
    rows = forest_rows(table, shown)
    labels = [contrast_label(row) for _, row in rows.iterrows()]
    traces = []
    for significant, name, colour in ((False, "not significant", OTHER),
                                      (True, "significant (BH-adjusted p < 0.05) ★", SIGNIFICANT)):
        part = rows[rows["significant"].astype(bool) == significant]
        if part.empty:
            continue
        mask = (rows["significant"].astype(bool) == significant).to_numpy()
        traces.append({
            "type": "scatter", "mode": "markers+text", "name": name, "orientation": "h",
            "x": part["estimate"], "y": [label for label, keep in zip(labels, mask) if keep],
            "marker": {"color": colour, "size": 10 if significant else 8, "symbol": "circle"},
            "text": ["★" if significant else "" for _ in range(len(part))], "textposition": "middle right",
            "error_x": {"type": "data", "symmetric": False, "array": part["ci_high"] - part["estimate"],
                        "arrayminus": part["estimate"] - part["ci_low"], "thickness": 1.5, "color": colour},
            "customdata": part[["p_value", "p_adjusted", "n_scenarios"]].to_numpy(),
            "hovertemplate": "%{y}<br>%{x:+.1f} points<br>p = %{customdata[0]:.4f}, adjusted "
                             "%{customdata[1]:.4f}, %{customdata[2]} scenarios<extra></extra>"})
    reach = pd.concat([rows["ci_low"].abs(), rows["ci_high"].abs()]).max() if len(rows) else 10
    top = max(5.0, float(reach) * 1.1)
    zero = {"type": "line", "y0": 0, "y1": 1, "yref": "y domain", "x0": 0, "x1": 0, "xref": "x",
            "line": {"color": "#555", "width": 1.5, "dash": "dash"}}
    return chart(traces, layout(
        "Contrasts, left − right, in points with 95% cluster-bootstrap intervals; ★ significant after "
        "Benjamini–Hochberg",
        xaxis={"range": [-top, top], "zeroline": False, "title": {"text": "← right higher · left higher → (points)"}},
        yaxis={"categoryorder": "array", "categoryarray": labels[::-1], "type": "category"},
        height=max(320, 150 + ROW_HEIGHT * len(labels)), margin={"t": 110}, shapes=[zero]))


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
