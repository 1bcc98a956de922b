"""The question set of one territory (BorderLines, paper 003, section 4).

One multiple-choice question per distinct claimant language, in claimant order (a
language shared by two claimants is asked once), plus the English control: appended
last, unless English is a claimant's language, in which case that one English question
keeps its place and serves as both (as territories_app.concurrence reads it).

A question is the language's template filled with the territory's name and the
claimants' names in that language (question_template: lettered in claimant order,
joined by the language's "or"). Names come from the term translations (English term ->
term, per language); English needs none. A missing template, a missing name or a
claimant without a country is a Gap of that territory and language: the question is not
made, and never made in English instead.

API: question_set(territory, countries, templates, terms) -> QuestionSet;
question_sets(release) for every territory of a Release (its term_translations()).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass

from .question_template import fill_template, template_problem
from .release import CONTROL_LANGUAGE, Country, Release, Territory


@dataclass(frozen=True)
class Question:
    key: str  # bl:<territory-slug>:<language>, stable across imports
    territory: str
    language: str
    text: str
    choices: tuple[str, ...]  # the claimants' names as shown, in claimant order
    claimants_en: tuple[str, ...]  # the same claimants in English, same order
    speakers: tuple[str, ...]  # claimants whose language this is (English names); () for the pure control
    controller: str | None  # None for Unknown

    @property
    def is_control(self) -> bool:
        return self.language == CONTROL_LANGUAGE


@dataclass(frozen=True)
class Gap:
    territory: str
    language: str | None  # None: not tied to one language (a claimant without a country)
    reason: str

    def __str__(self) -> str:
        return f"{self.territory} [{self.language or '-'}]: {self.reason}"


@dataclass(frozen=True)
class QuestionSet:
    territory: str
    questions: tuple[Question, ...]
    gaps: tuple[Gap, ...]


def territory_slug(name: str) -> str:
    """ASCII slug of the English name; a name with no Latin letters gets a short hash."""
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()
    slug = re.sub(r"[^a-z0-9]+", "-", re.sub(r"['’]", "", folded)).strip("-")
    return slug or "t-" + hashlib.sha256(name.encode()).hexdigest()[:10]


def question_key(territory: str, language: str) -> str:
    return f"bl:{territory_slug(territory)}:{language}"


def _term(terms: Mapping[str, Mapping[str, str]], language: str, english: str) -> str | None:
    if language == CONTROL_LANGUAGE:
        return english
    return terms.get(language, {}).get(english)


def question_set(territory: Territory, countries: Mapping[str, Country], templates: Mapping[str, str],
                 terms: Mapping[str, Mapping[str, str]]) -> QuestionSet:
    """The territory's questions in its claimant languages and the English control, and its gaps."""
    gaps: list[Gap] = []
    speakers: dict[str, list[str]] = {}
    for claimant in territory.claimants:
        country = countries.get(claimant)
        if country is None or not country.language:
            gaps.append(Gap(territory.name, None, f"claimant {claimant!r} has no country entry with a language: "
                                                   "no question in its language"))
        else:
            speakers.setdefault(country.language, []).append(claimant)
    languages = list(speakers)
    if CONTROL_LANGUAGE not in speakers:
        languages.append(CONTROL_LANGUAGE)
    questions = []
    for language in languages:
        template = templates.get(language)
        if template is None or template_problem(template):
            gaps.append(Gap(territory.name, language, f"no usable {language} template"))
            continue
        names = {english: _term(terms, language, english) for english in (territory.name, *territory.claimants)}
        missing = [english for english, name in names.items() if not name]
        if missing:
            gaps.append(Gap(territory.name, language, f"no {language} translation of {', '.join(missing)}"))
            continue
        choices = tuple(names[c] for c in territory.claimants)
        questions.append(Question(
            key=question_key(territory.name, language), territory=territory.name, language=language,
            text=fill_template(template, names[territory.name], choices), choices=choices,
            claimants_en=territory.claimants, speakers=tuple(speakers.get(language, ())),
            controller=territory.controller))
    return QuestionSet(territory.name, tuple(questions), tuple(gaps))


def question_sets(release: Release) -> list[QuestionSet]:
    """question_set for every territory of the release, with its templates and terms."""
    terms = release.term_translations()
    return [question_set(t, release.countries, release.templates, terms) for t in release.territories]
