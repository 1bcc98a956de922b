"""Text for charts that plotly will not wrap (pure: no Django).

Plotly draws a title or an axis title on one line per `<br>` and cuts what passes the
figure's edge: the forest plot's title ended "… ★ dark: significant after" (issue 38).
`wrapped` breaks a text at spaces into lines of at most `chars` characters, keeping the
breaks it already has; `static/js/dashboard.js` does the same again for a chart narrower
than the width the lines were made for (a phone)."""

from __future__ import annotations

import textwrap

BREAK = "<br>"
# Characters per line of a 14 px title for the 960 px an exported figure is drawn at
# (formats_app/report_drawing.py) and the page's chart at 1,366 px; a narrower chart on
# the page has its lines broken again (dashboard.js).
TITLE_CHARS = 100


def wrapped(text: str, chars: int) -> str:
    """`text` with a `<br>` where a line would pass `chars` characters (a word longer than
    that stays whole on its own line)."""
    lines = []
    for line in text.split(BREAK):
        lines.extend(textwrap.wrap(line, chars, break_long_words=False, break_on_hyphens=False) or [""])
    return BREAK.join(lines)


def chart_title(text: str, size: int = 14) -> dict:
    """Every chart's title: at the left, wrapped, at the figure's top with room of its own
    (automargin reserves the top margin its lines need). Plotly cuts a title that passes
    the figure's edge and never wraps one: at 390 px "Paired difference of rates (model A −
    model B), 9…" (issue 38); `static/js/dashboard.js` breaks the lines again for a narrower
    chart and moves the plot and a legend down when they would lie under the title.

    Anchored to the figure's top (yref "container") rather than to the plot's: plotly
    lifts the lines of a plot-anchored title above the plot only while they push the
    margin, so a title of three lines within the 70 px margin hung over the plot (the
    dyads heatmap's top row at 390 px), and each margin made for it moved it down again
    (about 100 px blank above titles at 390 px)."""
    return {"text": wrapped(text, TITLE_CHARS), "font": {"size": size}, "x": 0, "xanchor": "left",
            "automargin": True, "yref": "container", "y": 1, "yanchor": "top", "pad": {"t": 8, "b": 8}}
