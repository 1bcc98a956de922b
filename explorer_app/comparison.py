"""Two runs of one benchmark compared, as plain values: answers matched by (question, model,
condition, repeat) — or by (question, model, repeat) when the condition is ignored, as
when run B asked with another prompt strategy — and then:

- each change of code A→B counted, overall, per model and per question;
- the share of matched answers with each code before (run A) and after (run B), and the
  difference after − before with its 95% interval: Newcomb's hybrid score interval for a
  paired difference of proportions (Newcomb 1998, method 10: the Wilson intervals of the
  two shares combined with the pairs' phi correlation; MOVER), since both shares are
  read off the same matched pairs;
- the list of matched pairs whose code changed.

An answer's code here is its code (A … J, R, X) or "" for none (not answered, failed,
not coded yet); a change to or from "" is a change like any other, shown as "—".

When the condition is ignored, a (question, model, repeat) that one run asked under
several conditions cannot be paired one to one: those answers are left out and counted
(`ambiguous`).

Pure: no Django import (statsmodels gives the Wilson intervals)."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Hashable, Iterable, NamedTuple


NONE = ""
CODE_ORDER = tuple("ABCDEFGHIJ") + ("R", "X", NONE)
Z_95 = 0.05  # alpha of the 95% intervals


class Answer(NamedTuple):
    """One answer of one run: its id, the match key's parts and its code ("" for none).
    A named tuple, not a dataclass: a comparison makes one per answer of both runs
    (200,000 at 100 models × 1,000 questions), and a tuple is made several times faster."""

    id: int
    question: Hashable
    model: Hashable
    condition: Hashable
    repeat: int
    code: str


class Pair(NamedTuple):
    a: Answer
    b: Answer

    @property
    def changed(self) -> bool:
        return self.a.code != self.b.code

    @property
    def change(self) -> tuple[str, str]:
        return self.a.code, self.b.code


@dataclass(frozen=True)
class Rate:
    """The share of matched pairs with `code` before (A) and after (B), and B − A with its
    95% interval (None when there are no pairs)."""

    code: str
    before: float | None
    after: float | None
    difference: float | None
    low: float | None
    high: float | None
    n: int

    @property
    def excludes_zero(self) -> bool:
        return self.low is not None and (self.low > 0 or self.high < 0)


@dataclass
class Matching:
    pairs: list[Pair] = field(default_factory=list)
    only_a: int = 0  # answers of A with no partner in B
    only_b: int = 0
    ambiguous: int = 0  # answers left out: their key is not unique in their run (condition ignored)

    @property
    def changed(self) -> list[Pair]:
        return [pair for pair in self.pairs if pair.changed]


def code_rank(code: str) -> int:
    return CODE_ORDER.index(code) if code in CODE_ORDER else len(CODE_ORDER)


def match(run_a: Iterable[Answer], run_b: Iterable[Answer], ignore_condition: bool = False) -> Matching:
    """Pair the answers of two runs by their key; pairs in the order of A's answer ids."""
    sides = []
    ambiguous = 0
    for answers in (run_a, run_b):
        unique: dict[tuple, Answer] = {}
        repeated: set[tuple] = set()
        for answer in answers:
            key = ((answer.question, answer.model, answer.repeat) if ignore_condition
                   else (answer.question, answer.model, answer.condition, answer.repeat))
            if key in repeated:
                ambiguous += 1
            elif key in unique:
                del unique[key]
                repeated.add(key)
                ambiguous += 2
            else:
                unique[key] = answer
        sides.append(unique)
    a, b = sides
    pairs = [Pair(answer, b[key]) for key, answer in a.items() if key in b]
    pairs.sort(key=lambda pair: pair.a.id)
    return Matching(pairs=pairs, only_a=len(a) - len(pairs), only_b=len(b) - len(pairs), ambiguous=ambiguous)


def change_counts(pairs: Iterable[Pair]) -> Counter:
    """How many pairs changed each way: {(code A, code B): n}, changed pairs only."""
    return Counter((a.code, b.code) for a, b in pairs if a.code != b.code)


def change_counts_by(pairs: Iterable[Pair], by: str) -> dict[Hashable, Counter]:
    """change_counts per model or per question (`by` = "model" or "question"), for every
    value that has matched pairs (an empty Counter where none changed)."""
    found: dict[Hashable, Counter] = {}
    for a, b in pairs:
        value = getattr(a, by)
        counter = found.get(value)
        if counter is None:
            counter = found[value] = Counter()
        if a.code != b.code:
            counter[a.code, b.code] += 1
    return found


def sorted_changes(counts: Counter) -> list[tuple[str, str, int]]:
    """(from, to, n), most frequent first, then in code order."""
    return sorted(((a, b, n) for (a, b), n in counts.items()),
                  key=lambda item: (-item[2], code_rank(item[0]), code_rank(item[1])))


def wilson(count: int, n: int) -> tuple[float, float]:
    from statsmodels.stats.proportion import proportion_confint  # on first use: 0.9 s of every process's start

    low, high = proportion_confint(count, n, alpha=Z_95, method="wilson")
    return float(low), float(high)


def paired_difference(both: int, only_after: int, only_before: int, neither: int) -> tuple[float, float, float]:
    """after − before for a paired 2×2 table and its 95% interval (Newcomb 1998, method 10).

    `both`: pairs with the code before and after; `only_after`: after only; `only_before`:
    before only; `neither`. Returns (difference, low, high)."""
    n = both + only_after + only_before + neither
    if n == 0:
        raise ValueError("no pairs")
    after, before = (both + only_after) / n, (both + only_before) / n
    l_after, u_after = wilson(both + only_after, n)
    l_before, u_before = wilson(both + only_before, n)
    # phi of the 2×2 table (after as rows, before as columns); 0 when a margin is empty.
    margins = (both + only_after) * (only_before + neither) * (both + only_before) * (only_after + neither)
    phi = (both * neither - only_after * only_before) / math.sqrt(margins) if margins else 0.0
    difference = after - before
    delta = math.sqrt(max(0.0, (after - l_after) ** 2 - 2 * phi * (after - l_after) * (u_before - before)
                          + (u_before - before) ** 2))
    epsilon = math.sqrt(max(0.0, (u_after - after) ** 2 - 2 * phi * (u_after - after) * (before - l_before)
                            + (before - l_before) ** 2))
    return difference, max(-1.0, difference - delta), min(1.0, difference + epsilon)


def transitions(pairs: Iterable[Pair]) -> Counter:
    """Every pair counted by its (code A, code B), kept codes included."""
    return Counter((a.code, b.code) for a, b in pairs)


def rates(pairs: Iterable[Pair]) -> list[Rate]:
    """For every code either run gave in a matched pair: its share before and after and
    the difference's interval, in code order (read off the pairs' transitions, once)."""
    return rates_from(transitions(pairs))


def rates_from(table: Counter) -> list[Rate]:
    """`rates` from the transitions {(code A, code B): n} (kept codes included), as the
    database counts them."""
    n = sum(table.values())
    codes = sorted({a for a, _ in table} | {b for _, b in table}, key=code_rank)
    found = []
    for code in codes:
        both = table[(code, code)]
        only_after = sum(count for (a, b), count in table.items() if b == code and a != code)
        only_before = sum(count for (a, b), count in table.items() if a == code and b != code)
        difference, low, high = paired_difference(both, only_after, only_before, n - both - only_after - only_before)
        found.append(Rate(code, (both + only_before) / n, (both + only_after) / n, difference, low, high, n))
    return found


def shown(code: str) -> str:
    return code or "—"
