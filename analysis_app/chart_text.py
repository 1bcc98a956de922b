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
    """Every chart's title: at the left, wrapped, above the plot with room of its own
    (automargin pushes the top margin as its lines need). Plotly cuts a title that passes
    the figure's edge and never wraps one: at 390 px "Paired difference of rates (model A −
    model B), 9…" (issue 38); `static/js/dashboard.js` breaks the lines again for a narrower
    chart and lifts the title above a legend it would lie over."""
    return {"text": wrapped(text, TITLE_CHARS), "font": {"size": size}, "x": 0, "xanchor": "left",
            "automargin": True, "yref": "paper", "y": 1, "yanchor": "bottom", "pad": {"b": 8}}
