"""A model's profile and the comparison of models, from the families' headline figures the
worker computed (`headlines.request_headlines`): the page, its CSV and the API read these.
A model is a group of registered rows (`model_groups`: the rows of one litellm model, one
per answer mode); its profile has every row's figures, each labelled with its row, ranked
among the other rows' figures of the same key and answer mode.
One section per registered family, in the registry's order, whether or not the model has
figures there (a section without says so). Nothing here counts answers: it reads one
stored result and ranks and subtracts in Python (`results`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from . import headlines, results
from .model_groups import ModelGroup, alike, pick
from .results import Difference, Figure, Standing

MAX_COMPARED = 8


@dataclass
class Row:
    figure: Figure
    standing: Standing | None = None
    others: list[tuple[str, float]] = field(default_factory=list)  # the other rows' estimates (the chart's dots)
    kind: str = ""  # the row's answer mode

    def to_dict(self) -> dict:
        standing = self.standing
        return {**self.figure.to_dict(), "kind": self.kind, "rank": standing.rank if standing else None,
                "of": standing.of if standing else 0, "others_min": standing.others_min if standing else None,
                "others_median": standing.others_median if standing else None,
                "others_max": standing.others_max if standing else None}


@dataclass
class Section:
    family: str
    label: str
    about: str
    error: str = ""
    rows: list[Row] = field(default_factory=list)
    dashboards: list[dict] = field(default_factory=list)  # {"benchmark", "url"}
    models: int = 0  # other models' rows with figures in this family

    @property
    def empty(self) -> bool:
        return not self.rows


def _dashboards(item: headlines.Publisher, rows: list[Row]) -> list[dict]:
    """Each (row, benchmark) with figures: the family's dashboard filtered to that row."""
    if item.link is None:
        return []
    found, seen = [], set()
    for model, benchmark in sorted({(row.figure.model, row.figure.benchmark) for row in rows}):
        url = item.link(model, benchmark)
        if url not in seen:
            seen.add(url)
            found.append({"benchmark": benchmark, "model": model, "url": url})
    return found


def profile(shown: headlines.Headlines, group: ModelGroup, kinds: dict[str, str]) -> list[Section]:
    """`group`'s figures; `kinds`: every registered row's kind (row name -> kind)."""
    sections = []
    for item in headlines.publishers():
        part = shown.families.get(item.family, {})
        every = part.get("figures", [])
        rows = []
        for name in group.names:
            kind = kinds.get(name, "")
            peers = alike(every, kinds, kind)
            standing = results.standings(name, peers)
            by_key: dict[tuple, list[tuple[str, float]]] = {}
            for figure in peers:
                if figure.model != name and figure.estimate is not None and not figure.withheld:
                    by_key.setdefault(figure.key, []).append((figure.model, figure.estimate))
            rows += [Row(figure, standing.get(figure.key), sorted(by_key.get(figure.key, [])), kind)
                     for figure in every if figure.model == name]
        sections.append(Section(
            family=item.family, label=item.label, about=item.about, error=part.get("error", ""), rows=rows,
            dashboards=_dashboards(item, rows), models=len({f.model for f in every} - set(group.names))))
    return sections


@dataclass
class KeyRow:
    """One figure key and row kind across the compared models: each model's figure (from its
    row of that kind; None where it has none) and each later model's difference from the first."""

    key: tuple
    kind: str
    label: str
    condition: str
    benchmark: str
    unit: str
    figures: list[Figure | None]
    differences: list[Difference | None]


@dataclass
class ComparedSection:
    family: str
    label: str
    about: str
    error: str = ""
    rows: list[KeyRow] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # compared models with no figure in this family

    @property
    def differences(self) -> list[Difference]:
        return [d for row in self.rows for d in row.differences if d is not None]


def compare(shown: headlines.Headlines, groups: list[ModelGroup], kinds: dict[str, str]) -> list[ComparedSection]:
    """The groups side by side, like with like: one row per figure key and row kind, each
    group's figure from its first row of that kind (`model_groups.pick`)."""
    rows_of = {name: group for group in groups for name in group.names}
    sections = []
    for item in headlines.publishers():
        part = shown.families.get(item.family, {})
        by_key: dict[tuple, dict[str, Figure]] = {}  # (key, kind) -> row name -> figure
        for figure in part.get("figures", []):
            if figure.model in rows_of:
                by_key.setdefault((figure.key, kinds.get(figure.model, "")), {})[figure.model] = figure
        rows = []
        for (key, kind), found in by_key.items():
            figures = [pick(found, group.names, kinds, kind) for group in groups]
            first, any_figure = figures[0], next(iter(found.values()))
            rows.append(KeyRow(
                key=key, kind=kind, label=any_figure.label, condition=any_figure.condition,
                benchmark=any_figure.benchmark, unit=any_figure.unit, figures=figures,
                differences=[results.difference(first, f) if first is not None and f is not None else None
                             for f in figures[1:]]))
        present = {rows_of[name].name for found in by_key.values() for name in found}
        sections.append(ComparedSection(family=item.family, label=item.label, about=item.about,
                                        error=part.get("error", ""), rows=rows,
                                        missing=[g.name for g in groups if g.name not in present]))
    return sections
