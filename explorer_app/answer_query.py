"""The answers list's pure parts: its sort orders, the keyset cursor that pages through
them, and the reading of an answer's option log-probabilities into a chart's points.
No Django import: plain values in, plain values out (tests/explorer_app/test_answer_query.py).

Keyset pagination: a page is "the 50 answers after (value, id)" in the list's order, the
cursor holding the last row's sort value and id. The database seeks to that place through
an index instead of counting past OFFSET rows, so page 1,000 costs what page 1 costs, and
an answer added meanwhile neither repeats a row nor skips one. A cursor is URL-safe base64
of a small JSON array [direction, value, id]; a cursor that does not read back is a
BadCursor (the views answer it with a 400).
"""

from __future__ import annotations

import base64
import binascii
import json
import math
from dataclasses import dataclass

PAGE_SIZE = 50
AFTER, BEFORE = "a", "b"  # the page after the cursor's row, or the page before it
MAX_CURSOR = 400  # characters: a cursor holds one short value and an id


@dataclass(frozen=True)
class Sort:
    """One order of the list: `key` as the URL gives it, the field (or annotation) whose
    value sorts, whether it descends, what type its value is, and its label."""

    key: str
    field: str
    descending: bool
    kind: str  # "int" or "text": what a cursor's value must be (every order is "int" today)
    label: str


# Every order ends on the answer's id, in the same direction, so rows with equal values
# still have one place (a keyset needs a total order).
SORTS = {s.key: s for s in (
    Sort("newest", "id", True, "int", "newest first"),
    Sort("oldest", "id", False, "int", "oldest first"),
    # by the question's and the model's ids (the order they were created in), not their
    # names: the answers' own indexes on question_id and model_id serve these at 2.66
    # million answers, where a name would sort every answer across a join.
    Sort("question", "question_id", False, "int", "by question"),
    Sort("model", "model_id", False, "int", "by model"),
    Sort("slowest", "sort_latency", True, "int", "slowest first"),
    Sort("fastest", "sort_latency", False, "int", "fastest first"),
)}
DEFAULT_SORT = "newest"


class BadCursor(ValueError):
    pass


def encode_cursor(direction: str, value, row_id: int) -> str:
    """The cursor of a row: [direction, sort value, id] as URL-safe base64 without padding."""
    raw = json.dumps([direction, value, row_id], separators=(",", ":"), ensure_ascii=False).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(text: str, sort: Sort) -> tuple[str, object, int]:
    """(direction, value, id) of a cursor made for `sort`; BadCursor for anything else."""
    if len(text) > MAX_CURSOR:
        raise BadCursor(f"is {len(text)} characters long; a cursor is at most {MAX_CURSOR}")
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        direction, value, row_id = json.loads(raw.decode())
    except (binascii.Error, ValueError, TypeError, UnicodeDecodeError):
        raise BadCursor("is not a cursor this list made: follow the list's own next and previous links") from None
    if direction not in (AFTER, BEFORE) or type(row_id) is not int or not 1 <= row_id < 2**63:
        raise BadCursor("is not a cursor this list made: follow the list's own next and previous links")
    wanted = int if sort.kind == "int" else str
    if type(value) is not wanted or (wanted is int and not -2**63 <= value < 2**63):
        raise BadCursor(f"was made for another order than {sort.label}: start again from the first page")
    return direction, value, row_id


def seek(sort: Sort, direction: str) -> tuple[str, bool]:
    """How to read the rows next to a cursor: ("gt" or "lt", whether to read in reverse).
    After the cursor, rows further along the order: greater values when ascending. Before
    it, the nearer rows come first when read in the reversed order (then put back)."""
    forward = direction == AFTER
    ascending = not sort.descending
    return ("gt" if forward == ascending else "lt"), not forward


def option_points(logprobs: dict | None, letters: str) -> list[tuple[str, float, float | None]]:
    """(letter, log-probability, probability) of each option the model saw, in the order it
    saw them (`letters`), from a stored {letter: log-probability}: letters absent from the
    stored values, and values that are not finite numbers, are left out; a value above 0
    (no probability) keeps its point with no probability."""
    if not logprobs:
        return []
    points = []
    for letter in letters:
        value = logprobs.get(letter)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            continue
        points.append((letter, float(value), math.exp(value) if value <= 0 else None))
    return points
