"""Django's `{# … #}` comments end on the line they start: one left open runs on as page text
(a launch plan once showed its template's comment above the power table). Every template's
`{#` is closed on its own line; longer notes use `{% comment %}`."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def open_comments(text: str) -> list[int]:
    """The line numbers where a `{#` is not closed on the same line."""
    return [number for number, line in enumerate(text.splitlines(), 1)
            if any("#}" not in rest for rest in re.split(r"\{#", line)[1:])]


def test_no_template_leaves_a_one_line_comment_open():
    found = [f"{path.relative_to(ROOT)}:{number}" for path in sorted(ROOT.glob("**/templates/**/*.html"))
             if ".venv" not in path.parts and "var" not in path.parts
             for number in open_comments(path.read_text(encoding="utf-8"))]
    assert found == []


def test_an_open_comment_is_found_and_a_closed_one_is_not():
    assert open_comments("<p>a</p>\n{# a note\n   running on #}\n{# closed #}<b>{# also #}</b>") == [2]
