"""Text for charts that plotly will not wrap (pure: no Django).

Plotly draws a title or an axis title on one line per `<br>` and cuts what passes the
figure's edge: the forest plot's title ended "… ★ dark: significant after" (issue 38).
`wrapped` breaks a text at spaces into lines of at most `chars` characters, keeping the
breaks it already has; `static/js/dashboard.js` does the same again for a chart narrower
than the width the lines were made for (a phone)."""

from __future__ import annotations

import textwrap

BREAK = "<br>"


def wrapped(text: str, chars: int) -> str:
    """`text` with a `<br>` where a line would pass `chars` characters (a word longer than
    that stays whole on its own line)."""
    lines = []
    for line in text.split(BREAK):
        lines.extend(textwrap.wrap(line, chars, break_long_words=False, break_on_hyphens=False) or [""])
    return BREAK.join(lines)
