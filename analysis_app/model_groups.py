"""Which registered model rows are one model, and which figures are alike. Pure: no Django.

One set of weights is often registered as several rows, one per answer mode: the bundled
`local-smollm2` answers in choice mode, `local-smollm2-text` in free text, and
`local-smollm2-rank` by rank classification, all through `cfpd-local/smollm2`. A model's
profile covers every row that addresses the same model: the same non-empty `litellm_model`
and the same `api_base`. A row with an empty `litellm_model`, and an external row (answers
imported from elsewhere, never called: their `litellm_model`, where set, is a label such as
`imported/<name>`, not an address), stands alone.

The group's canonical name, the one its profile's URL carries, is its shortest row name
(ties: the first in alphabetical order): the plain name a person registers first, with the
mode's suffix on the others.

Figures are ranked and differenced like with like: the same figure key (benchmark, family,
metric, condition) from rows of the same answer mode (choice, rank, generate). A rate read
from option letters and one coded from free text are different measurements of the same
question. Imported rows are registered in generate mode (their answers were free text
collected elsewhere), so they are set beside the rows that answer in free text here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

@dataclass(frozen=True)
class ModelRow:
    name: str
    litellm_model: str = ""
    api_base: str = ""
    answer_mode: str = ""
    external: bool = False

    @property
    def kind(self) -> str:
        """What a figure of this row is alike with: its answer mode."""
        return self.answer_mode

    @property
    def address(self) -> tuple[str, str] | None:
        """What the row calls, or None for a row that stands alone."""
        if self.external or not self.litellm_model.strip():
            return None
        return (self.litellm_model.strip(), self.api_base.strip().rstrip("/"))


def canonical_name(names: Iterable[str]) -> str:
    return min(names, key=lambda name: (len(name), name))


@dataclass(frozen=True)
class ModelGroup:
    """The rows of one model, canonical first, then by name."""

    rows: tuple[ModelRow, ...]

    @property
    def name(self) -> str:
        return self.rows[0].name

    @property
    def names(self) -> list[str]:
        return [row.name for row in self.rows]

    @property
    def kinds(self) -> dict[str, str]:
        return {row.name: row.kind for row in self.rows}


def groups(rows: Iterable[ModelRow]) -> list[ModelGroup]:
    """Every row in exactly one group; the groups in the order of their canonical names."""
    by_address: dict[tuple, list[ModelRow]] = {}
    for row in rows:
        by_address.setdefault(row.address or ("", "", row.name), []).append(row)
    found = []
    for members in by_address.values():
        first = canonical_name(m.name for m in members)
        ordered = sorted(members, key=lambda m: (m.name != first, m.name))
        found.append(ModelGroup(tuple(ordered)))
    return sorted(found, key=lambda group: group.name)


def group_of(name: str, rows: Iterable[ModelRow]) -> ModelGroup | None:
    """The group holding the row `name`, or None when no row has that name."""
    return next((group for group in groups(rows) if name in group.names), None)


def alike(figures: Iterable, kinds: dict[str, str], kind: str) -> list:
    """The figures of rows of `kind` (`kinds`: row name -> kind; a row not in it is of no
    kind and never alike)."""
    return [figure for figure in figures if kinds.get(figure.model) == kind]


def pick(figures_by_row: dict, names: Sequence[str], kinds: dict[str, str], kind: str):
    """The figure a group sets against another's for one key and kind: its first row (in the
    group's order) of that kind with a figure; None where it has none."""
    return next((figures_by_row[name] for name in names if kinds.get(name) == kind and name in figures_by_row), None)
