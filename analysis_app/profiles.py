"""A model's profile and the comparison of models, from the families' headline figures the
worker computed (`headlines.request_headlines`): the page, its CSV and the API read these.
One section per registered family, in the registry's order, whether or not the model has
figures there (a section without says so). Nothing here counts answers: it reads one
stored result and ranks and subtracts in Python (`results`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from . import headlines, results
from .results import Difference, Figure, Standing

MAX_COMPARED = 8


@dataclass
class Row:
    figure: Figure
    standing: Standing | None = None
    others: list[tuple[str, float]] = field(default_factory=list)  # the other models' estimates (the chart's dots)

    def to_dict(self) -> dict:
        standing = self.standing
        return {**self.figure.to_dict(), "rank": standing.rank if standing else None,
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
    models: int = 0  # models with figures in this family

    @property
    def empty(self) -> bool:
        return not self.rows


def _dashboards(item: headlines.Publisher, model: str, benchmarks) -> list[dict]:
    if item.link is None:
        return []
    found, seen = [], set()
    for benchmark in sorted(benchmarks):
        url = item.link(model, benchmark)
        if url not in seen:
            seen.add(url)
            found.append({"benchmark": benchmark, "url": url})
    return found


def profile(shown: headlines.Headlines, model: str) -> list[Section]:
    sections = []
    for item in headlines.publishers():
        part = shown.families.get(item.family, {})
        every = part.get("figures", [])
        standing = results.standings(model, every)
        by_key: dict[tuple, list[tuple[str, float]]] = {}
        for figure in every:
            if figure.model != model and figure.estimate is not None:
                by_key.setdefault(figure.key, []).append((figure.model, figure.estimate))
        rows = [Row(figure, standing.get(figure.key), sorted(by_key.get(figure.key, [])))
                for figure in every if figure.model == model]
        sections.append(Section(
            family=item.family, label=item.label, about=item.about, error=part.get("error", ""), rows=rows,
            dashboards=_dashboards(item, model, {row.figure.benchmark for row in rows}),
            models=len({f.model for f in every})))
    return sections


@dataclass
class KeyRow:
    """One figure key across the compared models: each model's figure (None where it has
    none) and each later model's difference from the first."""

    key: tuple
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


def compare(shown: headlines.Headlines, models: list[str]) -> list[ComparedSection]:
    sections = []
    for item in headlines.publishers():
        part = shown.families.get(item.family, {})
        by_key: dict[tuple, dict[str, Figure]] = {}
        for figure in part.get("figures", []):
            if figure.model in models:
                by_key.setdefault(figure.key, {})[figure.model] = figure
        rows = []
        for key, found in by_key.items():
            first = found.get(models[0])
            any_figure = next(iter(found.values()))
            rows.append(KeyRow(
                key=key, label=any_figure.label, condition=any_figure.condition, benchmark=any_figure.benchmark,
                unit=any_figure.unit, figures=[found.get(m) for m in models],
                differences=[results.difference(first, found[m]) if first is not None and m in found else None
                             for m in models[1:]]))
        present = {m for found in by_key.values() for m in found}
        sections.append(ComparedSection(family=item.family, label=item.label, about=item.about,
                                        error=part.get("error", ""), rows=rows,
                                        missing=[m for m in models if m not in present]))
    return sections
