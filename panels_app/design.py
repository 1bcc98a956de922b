"""A panel's design, decided before anyone answers (issue 40). Pure: no Django.

- `block`: the questions the n-th respondent answers. The panel's questions are put in one
  seeded order and dealt out cyclically, `per_respondent` at a time: respondent n takes the
  questions at places n·k, n·k + 1, …, n·k + k − 1 (mod Q). Over any number of respondents
  the counts of two questions differ by at most 1 (a run of consecutive places mod Q holds
  each place ⌊m/Q⌋ or ⌈m/Q⌉ times), so every question gets about as many respondents.
- `showing`: how many respondents were dealt a question before this one (the place's
  turn ⌊(n·k + j) / Q⌋), which picks the Latin square's rotation of its options: the launch's
  design (`runs_app.option_design`), so that over each C respondents of a question with C
  options every option sits once at every position.
- `with_checks`: the attention checks spread evenly among the items.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit


def question_order(question_ids: Sequence[int], seed: int) -> list[int]:
    """The panel's questions in the seeded order they are dealt out in."""
    order = sorted(question_ids)
    random.Random(seed).shuffle(order)
    return order


def places(respondent: int, per_respondent: int, count: int) -> list[int]:
    """The places (in the dealt order) of the n-th respondent's questions: at most `count`
    (a respondent never gets a question twice)."""
    if count == 0:
        return []
    k = min(per_respondent, count)
    return [(respondent * k + j) % count for j in range(k)]


def showing(respondent: int, j: int, per_respondent: int, count: int) -> int:
    """How many respondents were dealt the j-th question of respondent n before n."""
    k = min(per_respondent, count)
    return (respondent * k + j) // count


def block(question_ids: Sequence[int], per_respondent: int, seed: int, respondent: int) -> list[tuple[int, int]]:
    """[(question id, its showing)] the n-th respondent (from 0) answers, in the order shown."""
    order = question_order(question_ids, seed)
    k = min(per_respondent, len(order))
    return [(order[place], showing(respondent, j, k, len(order)))
            for j, place in enumerate(places(respondent, k, len(order)))]


def with_checks(items: int, checks: int) -> list[tuple[str, int]]:
    """The page order of `items` items and `checks` attention checks: [("item", i) or
    ("check", c)], check c placed after item ⌊(c + 1)·items / (checks + 1)⌋, so that the checks
    split the items into nearly equal runs (none first when there are items)."""
    after: dict[int, list[int]] = {}
    for c in range(checks):
        after.setdefault((c + 1) * items // (checks + 1), []).append(c)
    pages: list[tuple[str, int]] = []
    for i in range(items + 1):
        pages += [("check", c) for c in after.get(i, [])]
        if i < items:
            pages.append(("item", i))
    return pages


def completion_link(url: str, code: str) -> str:
    """The recruitment platform's completion URL with the code as its `cc` parameter (as
    Prolific reads it), unless the author already wrote the code into the URL."""
    if not url or not code or code in url:
        return url
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True) + [("cc", code)]
    return urlunsplit(parts._replace(query=urlencode(query)))
