"""The charts of a model's profile and of the comparison, as plotly.js reads them (plain
JSON values; the page draws them with static/js/dashboard.js). Pure: no Django.

Profile, per family: each figure of the model as a dot with its interval, and every other
row's estimate of the same figure and kind as a small grey dot (where it stands among
them); where the family's figures come from several rows of the model, each label names its row.
Comparison, per family: each difference from the first model as a dot with its interval,
and a line at 0. A family with nothing to draw gets no chart (the page says so in words)."""

from __future__ import annotations

from .chart_text import chart_title

ACCENT = "#1f5fa8"
PALETTE = ["#d1495b", "#2f8f4e", "#edae49", "#6d4c9f", "#00798c", "#8c564b", "#7f7f7f"]
AXES = {"share": {"tickformat": ".0%"}, "percent": {"ticksuffix": ""}, "score": {}}
UNIT_TITLES = {"share": "rate", "percent": "% of territories", "score": "score"}


def row_label(label: str, condition: str, benchmark: str, benchmarks: int, source: str = "") -> str:
    """The chart's category: the figure, its condition, its benchmark where the chart has
    several, and its source (row or kind) where the chart has several."""
    parts = [label] + ([condition] if condition else []) + ([benchmark] if benchmarks > 1 else [])
    return " · ".join(parts) + (f" ({source})" if source else "")


def _layout(title: str, rows: int, unit: str, **extra) -> dict:
    return {"title": chart_title(title),
            "height": max(220, 110 + 38 * rows), "margin": {"l": 20, "r": 20, "t": 60, "b": 50},
            "legend": {"orientation": "h", "y": 1.0, "yanchor": "bottom", "x": 0},
            "xaxis": {"automargin": True, "zeroline": False, "gridcolor": "#e6e9ef",
                      "title": {"text": UNIT_TITLES.get(unit, "")}, **AXES.get(unit, {})},
            "yaxis": {"automargin": True, "autorange": "reversed", "type": "category"},
            "plot_bgcolor": "#fff", "paper_bgcolor": "#fff", **extra}


def profile_chart(model: str, rows) -> dict | None:
    """`rows`: profiles.Row of one family. None when no figure has an estimate (a withheld
    figure is not drawn: it is not a result)."""
    drawn = [row for row in rows if row.figure.estimate is not None and not row.figure.withheld]
    if not drawn:
        return None
    benchmarks = len({row.figure.benchmark for row in drawn})
    several = len({row.figure.model for row in drawn}) > 1
    labels = [row_label(r.figure.label, r.figure.condition, r.figure.benchmark, benchmarks,
                        r.figure.model if several else "") for r in drawn]
    others_x, others_y, others_text = [], [], []
    for label, row in zip(labels, drawn):
        for name, value in row.others:
            others_x.append(value)
            others_y.append(label)
            others_text.append(name)
    traces = []
    if others_x:
        traces.append({"type": "scatter", "mode": "markers", "name": "other models", "x": others_x, "y": others_y,
                       "text": others_text, "marker": {"color": "#9aa5b1", "size": 8, "opacity": 0.8},
                       "hovertemplate": "%{text}: %{x}<extra></extra>"})
    own = [r.figure for r in drawn]
    rows = {f.model for f in own}
    model = rows.pop() if len(rows) == 1 else model  # the one row this family's figures come from, if one
    traces.append({
        "type": "scatter", "mode": "markers", "name": model, "x": [f.estimate for f in own], "y": labels,
        "marker": {"color": ACCENT, "size": 12},
        "error_x": {"type": "data", "symmetric": False, "thickness": 2, "color": ACCENT,
                    "array": [(f.ci_high - f.estimate) if f.ci_high is not None else 0 for f in own],
                    "arrayminus": [(f.estimate - f.ci_low) if f.ci_low is not None else 0 for f in own]},
        "hovertemplate": "%{y}: %{x}<extra>" + model + "</extra>"})
    title = f"{model} (blue, 95% interval) among the other models (grey, same answer mode)"
    return {"data": traces, "layout": _layout(title, len(set(labels)), own[0].unit)}


def comparison_chart(models: list[str], rows) -> dict | None:
    """`rows`: profiles.KeyRow of one family. None when no difference could be taken."""
    pairs = [(row, d) for row in rows for d in row.differences if d is not None and d.difference is not None]
    if not pairs:
        return None
    benchmarks = len({row.benchmark for row, _ in pairs})
    kinds = len({row.kind for row, _ in pairs}) > 1

    def label(row):
        return row_label(row.label, row.condition, row.benchmark, benchmarks, row.kind if kinds else "")

    unit = pairs[0][0].unit
    # A difference of two rates is in percentage points, as the comparison's table gives it.
    scale, suffix = (100, " pts") if unit == "share" else (1, "")
    traces = []
    for index, other in enumerate(models[1:]):  # a row's differences are in the order of models[1:]
        mine = [(row, row.differences[index]) for row in rows if row.differences[index] is not None
                and row.differences[index].difference is not None]
        if not mine:
            continue
        colour = PALETTE[index % len(PALETTE)]
        traces.append({
            "type": "scatter", "mode": "markers", "name": f"{models[0]} − {other}",
            "x": [d.difference * scale for _, d in mine],
            "y": [label(row) for row, _ in mine],
            "marker": {"color": colour, "size": 11},
            "error_x": {"type": "data", "symmetric": False, "thickness": 2, "color": colour,
                        "array": [(d.ci_high - d.difference) * scale if d.ci_high is not None else 0 for _, d in mine],
                        "arrayminus": [(d.difference - d.ci_low) * scale if d.ci_low is not None else 0
                                       for _, d in mine]},
            "hovertemplate": "%{y}: %{x:+.3~g}" + suffix + "<extra>" + f"{models[0]} − {other}</extra>"})
    zero = {"type": "line", "y0": 0, "y1": 1, "yref": "paper", "x0": 0, "x1": 0, "xref": "x",
            "line": {"color": "#555", "width": 1}}
    labels = {label(row) for row, _ in pairs}
    layout = _layout(f"Difference from {models[0]} with its 95% interval (right of the line: {models[0]} higher)",
                     len(labels), unit, shapes=[zero], scattermode="group")
    measure = "percentage points" if unit == "share" else UNIT_TITLES.get(unit, "")
    layout["xaxis"]["title"] = {"text": f"difference ({measure}, {models[0]} − the other)"}
    layout["xaxis"].pop("tickformat", None)
    layout["xaxis"]["ticksuffix"] = suffix
    return {"data": traces, "layout": layout}
