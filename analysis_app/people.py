"""People's answers beside the models' (issue 40): the neutral hook through which the pages
that show models (a family's dashboard, the answers explorer and grid, exports) read the
answers of panels of people without importing the room that keeps them.

`panels_app` keeps people's answers (its own tables, never the run engine's) and sits above
this layer (it imports `analysis_app`), so this layer may not import it, and a family may
not either be made to depend on it. Instead `panels_app` registers a *source* here from its
`AppConfig.ready()` (`register`), and the readers ask this module: `groups` (the panels, each
labelled as people with how many respondents count), `answers` (one row per kept answer:
panel, respondent, question, canonical letter) and `version` (what moves when an answer or
an exclusion changes, for the keys of cached figures). With no source registered (a site
without panels) every reader sees no people and shows the models alone.

A source leaves out the answers of respondents who failed an attention check; readers never
mix these rows into a model's: they are labelled with `PeopleGroup.label` wherever shown."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple, Protocol

SOURCE = "people"  # the value of a `source` column beside "model"
LABEL_PREFIX = "People: "


@dataclass(frozen=True)
class PeopleGroup:
    """One panel of people, as a reader shows it beside the models."""

    key: str  # the source's stable name for it, e.g. "panel:3"
    name: str
    stands_for: str
    benchmark_id: int
    respondents: int  # respondents with a kept answer (no failed attention check)
    excluded: int  # respondents left out for a failed attention check

    @property
    def label(self) -> str:
        """'People: IR scholars (12 respondents)': never a model's name."""
        noun = "respondent" if self.respondents == 1 else "respondents"
        return f"{LABEL_PREFIX}{self.name} ({self.respondents} {noun})"


class PersonAnswer(NamedTuple):
    group: str  # PeopleGroup.key
    respondent: int
    question_id: int
    code: str  # the canonical option's letter, as a model's Response.code


@dataclass(frozen=True)
class ClosePanel:
    """How close a model stands to a panel of people over the questions both answered
    (1 − Jensen–Shannon distance, the source's own measure), for a model's profile."""

    group: PeopleGroup
    benchmark: str
    model: str  # the model row the figure is of
    similarity: float
    ci_low: float | None
    ci_high: float | None
    n_questions: int
    url: str = ""  # the source's page for it


class PeopleSource(Protocol):
    results_permission: str  # who may read `closest`

    def closest(self, model_names: Iterable[str]) -> list[ClosePanel]: ...

    def groups(self, benchmark_ids: Iterable[int] | None = None) -> list[PeopleGroup]: ...

    def answers(self, question_ids: Iterable[int] | None = None,
                groups: Iterable[str] | None = None) -> list[PersonAnswer]: ...

    def version(self) -> tuple: ...


_SOURCES: list[PeopleSource] = []


def register(source: PeopleSource) -> None:
    """Called once by the room that keeps people's answers (`panels_app.apps`)."""
    if source not in _SOURCES:
        _SOURCES.append(source)


def unregister(source: PeopleSource) -> None:
    if source in _SOURCES:
        _SOURCES.remove(source)


def groups(benchmark_ids: Iterable[int] | None = None) -> list[PeopleGroup]:
    """Every panel of people (of these benchmarks), labelled as people."""
    ids = None if benchmark_ids is None else list(benchmark_ids)
    return [group for source in _SOURCES for group in source.groups(ids)]


def answers(question_ids: Iterable[int] | None = None, group_keys: Iterable[str] | None = None) -> list[PersonAnswer]:
    """People's kept answers (to these questions, of these panels): failed attention checks left out."""
    ids = None if question_ids is None else list(question_ids)
    keys = None if group_keys is None else list(group_keys)
    return [row for source in _SOURCES for row in source.answers(ids, keys)]


def closest(user, model_names: Iterable[str], limit: int = 5) -> list[ClosePanel]:
    """The panels these models' answers are most similar to, most similar first (at most
    `limit`), from the sources whose results the user may read."""
    names = list(model_names)
    found = [row for source in _SOURCES if user.has_perm(source.results_permission)
             for row in source.closest(names)]
    return sorted(found, key=lambda row: (-row.similarity, row.group.label, row.model))[:limit]


def version() -> tuple:
    """What every source says moves its answers (a figure's cache key includes it)."""
    return tuple(source.version() for source in _SOURCES)
