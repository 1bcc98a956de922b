"""The models × questions grid as plain values: the database hands in one count per (row,
model, code, status) — a row is a question, or a question under one condition — and
this module makes each cell: how many answers it holds, how many have each label, the
label most answers have (ties: the first in `LABEL_ORDER`), its share, and the one
answer's id when the cell holds a single answer.

A label is the answer's code (A … J: the canonical option; R: a refusal; X: invalid) when
it has one, else what became of it: `uncoded` (answered, no code yet), `failed`,
`open` (pending or running) or `cancelled`. Each label has a category (option, refusal,
invalid, uncoded, failed, open, cancelled) that the page colours.

Pure: no Django import."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Hashable, Iterable

OPTION_LETTERS = "ABCDEFGHIJ"
UNCODED, FAILED, OPEN, CANCELLED = "uncoded", "failed", "open", "cancelled"
LABEL_ORDER = tuple(OPTION_LETTERS) + ("R", "X", UNCODED, FAILED, OPEN, CANCELLED)
CATEGORIES = {"R": "refusal", "X": "invalid", UNCODED: UNCODED, FAILED: FAILED, OPEN: OPEN, CANCELLED: CANCELLED}
# What a cell shows for a label with no code (a letter is shown as it is).
SHORT = {UNCODED: "·", FAILED: "!", OPEN: "…", CANCELLED: "–"}

# The product's palette (analysis_app.panels.PALETTE), one colour per canonical option;
# the other categories have colours of their own, never one of an option's.
PALETTE = ["#1f5fa8", "#d1495b", "#2f8f4e", "#edae49", "#6d4c9f", "#00798c", "#8c564b", "#7f7f7f"]
OTHER_COLOURS = {"refusal": "#333a48", "invalid": "#b07aa1", UNCODED: "#dde2ea", FAILED: "#a32020",
                 OPEN: "#eef1f5", CANCELLED: "#a9b1bd"}


def label_of(code: str, status: str) -> str:
    """An answer's label: its code when it has one, else what became of it."""
    if code:
        return code
    if status == "done":
        return UNCODED
    if status == "failed":
        return FAILED
    if status == "cancelled":
        return CANCELLED
    return OPEN


def category_of(label: str) -> str:
    return "option" if label in OPTION_LETTERS else CATEGORIES.get(label, UNCODED)


def colour_of(label: str) -> str:
    if label in OPTION_LETTERS:
        return PALETTE[OPTION_LETTERS.index(label) % len(PALETTE)]
    return OTHER_COLOURS[category_of(label)]


def _rank(label: str) -> int:
    return LABEL_ORDER.index(label) if label in LABEL_ORDER else len(LABEL_ORDER)


@dataclass(frozen=True)
class CountRow:
    """One group from the database: `n` answers of (row, model) with this code and status;
    `first_id` is the smallest answer id of the group."""

    row: Hashable
    model: Hashable
    code: str
    status: str
    n: int
    first_id: int


@dataclass
class Cell:
    n: int = 0
    counts: Counter = field(default_factory=Counter)
    first_id: int | None = None

    @property
    def top(self) -> str | None:
        """The label most answers have; a tie goes to the first in LABEL_ORDER."""
        if not self.counts:
            return None
        return min(self.counts, key=lambda label: (-self.counts[label], _rank(label)))

    @property
    def share(self) -> float | None:
        return self.counts[self.top] / self.n if self.n else None

    @property
    def answer_id(self) -> int | None:
        """The answer's id when the cell holds exactly one answer (its page opens from the cell)."""
        return self.first_id if self.n == 1 else None

    @property
    def category(self) -> str | None:
        return category_of(self.top) if self.top else None

    @property
    def colour(self) -> str | None:
        return colour_of(self.top) if self.top else None

    @property
    def shown(self) -> str:
        """The cell's text: the top label, and its share where the cell holds several answers."""
        if not self.top:
            return ""
        label = SHORT.get(self.top, self.top)
        return label if self.n == 1 else f"{label} {self.counts[self.top]}/{self.n}"

    def sorted_counts(self) -> list[tuple[str, int]]:
        return sorted(self.counts.items(), key=lambda item: _rank(item[0]))

    @property
    def light(self) -> bool:
        """Whether the cell's colour is light (its text then dark)."""
        return bool(self.colour) and is_light(self.colour)

    @property
    def title(self) -> str:
        """Every label's count: "B 2, R 1 of 3 answers"."""
        listed = ", ".join(f"{label} {n}" for label, n in self.sorted_counts())
        return f"{listed} of {self.n} answer{'s' if self.n != 1 else ''}"


def is_light(colour: str) -> bool:
    """A light background (relative luminance over 0.4, WCAG's formula on #rrggbb): dark text on it."""
    channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2] > 0.4


def cells(counts: Iterable[CountRow]) -> dict[tuple[Hashable, Hashable], Cell]:
    """Every (row, model) that has answers, with its cell."""
    found: dict[tuple[Hashable, Hashable], Cell] = {}
    for group in counts:
        cell = found.setdefault((group.row, group.model), Cell())
        cell.n += group.n
        cell.counts[label_of(group.code, group.status)] += group.n
        if cell.first_id is None or group.first_id < cell.first_id:
            cell.first_id = group.first_id
    return found


def legend(labels: Iterable[str]) -> list[tuple[str, str, str, bool]]:
    """(label, category, colour, light) of the labels shown, in LABEL_ORDER."""
    return [(label, category_of(label), colour_of(label), is_light(colour_of(label)))
            for label in sorted(set(labels), key=_rank)]


def pages(total: int, size: int) -> int:
    """How many pages of `size` hold `total` items (one page when there are none)."""
    return max(1, -(-total // size))
