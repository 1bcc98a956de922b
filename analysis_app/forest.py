"""A forest plot of paired contrasts for any family's dashboard (issue 29): one row per
contrast, its estimate and 95 % interval, zero marked by a dashed line, the contrasts
significant after the family's correction drawn dark with ★. Plain plotly JSON through
`panels.chart`, like every chart of the pages.

The table needs the columns label, estimate, ci_low, ci_high, p_value, p_adjusted,
significant and one count column (`count`, e.g. n_territories). Rows without an interval
(a contrast over one cluster) are not drawn: `drawable` says which are.
"""

from __future__ import annotations

import pandas as pd

from .chart_text import wrapped
from .panels import chart, layout

SIGNIFICANT, OTHER = "#1f2d3d", "#9aa5b1"
ROW_HEIGHT = 22
MAX_ROWS = 40
# Characters per line of the title (14 px) and of the key under it (12 px), both from the
# figure's left edge, for the 960 px an exported figure is drawn at
# (formats_app/report_drawing.py) and the page's chart at 1,366 px; a narrower chart on
# the page has its lines broken again (dashboard.js).
TITLE_CHARS, KEY_CHARS = 100, 115


def drawable(table: pd.DataFrame) -> pd.DataFrame:
    """The rows with an interval, the smallest adjusted p first (then the larger estimates),
    at most `MAX_ROWS`."""
    rows = table[table["ci_low"].notna() & table["ci_high"].notna()]
    order = rows.assign(_size=-rows["estimate"].abs()).sort_values(["p_adjusted", "p_value", "_size"], kind="stable")
    return order.drop(columns="_size").head(MAX_ROWS)


def forest_figure(table: pd.DataFrame, title: str, axis_title: str, count: str, count_name: str,
                  unit: str = "points", digits: int = 1, correction: str = "correction") -> dict | None:
    """The chart, or None when no row has an interval. `correction` names the multiplicity
    control in the title (e.g. Benjamini–Hochberg)."""
    rows = drawable(table)
    if rows.empty:
        return None
    eligible = int((table["ci_low"].notna() & table["ci_high"].notna()).sum())
    labels = rows["label"].tolist()
    significant = rows["significant"].astype(bool).tolist()
    traces = [{
        "type": "scatter", "mode": "markers+text", "name": "contrast", "orientation": "h",
        "x": rows["estimate"], "y": labels,
        "marker": {"color": [SIGNIFICANT if s else OTHER for s in significant],
                   "size": [11 if s else 8 for s in significant], "symbol": "circle"},
        "text": ["★" if s else "" for s in significant], "textposition": "top center",
        "error_x": {"type": "data", "symmetric": False, "array": (rows["ci_high"] - rows["estimate"]).clip(lower=0),
                    "arrayminus": (rows["estimate"] - rows["ci_low"]).clip(lower=0), "thickness": 1.5,
                    "color": OTHER},
        "customdata": rows[["p_value", "p_adjusted", count]].to_numpy(),
        "hovertemplate": f"%{{y}}<br>%{{x:+.{digits + 1}f}} {unit}<br>p = %{{customdata[0]:.4f}}, adjusted "
                         f"%{{customdata[1]:.4f}}, %{{customdata[2]}} {count_name}<extra></extra>"}]
    reach = float(pd.concat([rows["ci_low"].abs(), rows["ci_high"].abs(), rows["estimate"].abs()]).max())
    top = max(reach * 1.1, 1e-9) if unit != "points" else max(5.0, reach * 1.1)
    zero = {"type": "line", "y0": 0, "y1": 1, "yref": "y domain", "x0": 0, "x1": 0, "xref": "x",
            "line": {"color": "#555", "width": 1.5, "dash": "dash"}}
    picked = (f"the {len(rows)} with the smallest adjusted p of {eligible}" if eligible > len(rows)
              else f"all {len(rows)}")
    # The title wrapped and the key in a subtitle under it, wrapped too, both at the
    # figure's top with room of their own (chart_text.chart_title): one long line was cut
    # at the right edge (issue 38). Left-aligned, they keep the figure's width whatever the labels take.
    key = f"★ dark: significant after {correction} · {picked} with an interval drawn"
    shape = layout(
        wrapped(title, TITLE_CHARS),
        xaxis={"range": [-top, top], "zeroline": False, "title": {"text": axis_title}},
        yaxis={"categoryorder": "array", "categoryarray": labels[::-1], "type": "category"},
        height=max(340, 190 + ROW_HEIGHT * len(labels)), margin={"t": 40}, shapes=[zero], showlegend=False,
        # With scattermode "group" plotly keeps the trace horizontal (one trace is no group).
        scattermode="group")
    shape["title"].update(subtitle={"text": wrapped(key, KEY_CHARS), "font": {"size": 12, "color": "#4a5260"}})
    return chart(traces, shape)
