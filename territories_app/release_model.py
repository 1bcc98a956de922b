"""The layout and the dataclasses of a BorderLines release (paper 003): file names,
columns, and what read_release returns. See territories_app.release for the layout and
for the scope of a flaw, which Release.sound() follows."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

TABLE = "disputed_territories.csv"
COUNTRIES = "countries_info.json"
TEMPLATES = "templates_q.tsv"
CONTROL_PROMPTS = "prompts/prompts_q_mc.txt"
CONTROL_CHOICES = "prompts/choices.txt"
PROMPTS_DIR = "translate/prompts_mc_q"
TERMS_DIR = "translate/terms"
COLUMNS = ["Territory", "Claimants", "Controller", "Region", "Population", "Query", "QueryID"]
COUNTRY_FIELDS = ["Lang_Code", "Lang_Name", "Lang_Name_Native", "Religion", "Population"]
LEGACY_COUNTRY_FIELDS = dict(zip(["code", "name", "name_native", "religion", "population"], COUNTRY_FIELDS))
TEMPLATE_HEADER = ["code", "template"]
UNKNOWN = "Unknown"
CONTROL_LANGUAGE = "en"


def prompts_file(language: str) -> str:
    return f"{PROMPTS_DIR}/prompts.{language}"


def choices_file(language: str) -> str:
    return f"{PROMPTS_DIR}/choices.{language}"


def line_inds_file(language: str) -> str:
    return f"{TERMS_DIR}/line_inds.{language}.txt"


def terms_file(language: str) -> str:
    return f"{TERMS_DIR}/terms_gt.{language}.json"


@dataclass(frozen=True)
class Flaw:
    file: str
    line_or_key: int | str | None
    reason: str
    territory: str | None = None
    language: str | None = None

    def __str__(self) -> str:
        # The territory beside the row, so that the user need not open the file to learn it.
        about = f" ({self.territory})" if self.territory else ""
        if self.line_or_key is None:
            return f"{self.file}{about}: {self.reason}"
        if isinstance(self.line_or_key, int):
            return f"{self.file}:{self.line_or_key}{about}: {self.reason}"
        return f"{self.file}[{self.line_or_key}]{about}: {self.reason}"


@dataclass(frozen=True)
class Territory:
    index: int  # row in the table, what line_inds and the control lines point at
    name: str
    claimants: tuple[str, ...]
    controller: str | None  # None for Unknown
    region: str
    population: int | float | None  # None when the cell is not a number (a flaw)
    query: str
    query_id: str
    line: int = field(default=0, compare=False)


@dataclass(frozen=True)
class Country:
    name: str
    language: str
    language_name: str
    language_native: str
    religion: str
    population: int | float | None


@dataclass(frozen=True)
class Query:
    """A translated query (language, its line) or an English control (language 'en')."""
    language: str
    territory_index: int | None  # None: the line points at no row
    territory: str | None
    text: str
    choices: tuple[str, ...]
    line: int = field(default=0, compare=False)


@dataclass(frozen=True)
class LeftOut:
    kind: str  # "territory", "question" or "language"
    territory: str | None
    language: str | None
    reasons: tuple[str, ...]

    def __str__(self) -> str:
        what = {"territory": self.territory, "language": self.language,
                "question": f"{self.territory} [{self.language}]"}[self.kind]
        return f"{self.kind} {what}: " + "; ".join(self.reasons)


@dataclass(frozen=True)
class Release:
    territories: tuple[Territory, ...] = ()
    countries: Mapping[str, Country] = field(default_factory=dict)
    templates: Mapping[str, str] = field(default_factory=dict)
    translations: Mapping[str, tuple[Query, ...]] = field(default_factory=dict)
    controls: tuple[Query, ...] = ()
    terms: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    flaws: tuple[Flaw, ...] = field(default=(), compare=False)
    # Country key -> the claimant it probably misspells (release_checks.probable_misspellings):
    # such a key is no country of its own, so sound() drops it and it never becomes an actor.
    misspelt_keys: Mapping[str, str] = field(default_factory=dict, compare=False)

    def languages_of(self, territory: Territory) -> dict[str, tuple[str, ...]]:
        """Claimant language -> its speakers, in claimant order (claimants without a country left out)."""
        speakers: dict[str, list[str]] = {}
        for claimant in territory.claimants:
            country = self.countries.get(claimant)
            if country is not None and country.language:
                speakers.setdefault(country.language, []).append(claimant)
        return {language: tuple(names) for language, names in speakers.items()}

    def term_translations(self) -> dict[str, dict[str, str]]:
        """English term -> term, per language: the terms files, completed with the claimant
        names the choices lines give (a terms file wins). English is the identity."""
        table = {language: dict(terms) for language, terms in self.terms.items()}
        by_index = {t.index: t for t in self.territories}
        for language, queries in self.translations.items():
            known = table.setdefault(language, {})
            for query in queries:
                territory = by_index.get(query.territory_index)
                if territory is not None and len(query.choices) == len(territory.claimants):
                    for claimant, name in zip(territory.claimants, query.choices):
                        known.setdefault(claimant, name)
        english = table.setdefault(CONTROL_LANGUAGE, {})
        for territory in self.territories:
            for term in (territory.name, *territory.claimants):
                english.setdefault(term, term)
        return table

    def sound(self) -> tuple[Release, tuple[LeftOut, ...]]:
        """The territories without flaws and their sound questions, and what was left out
        and why (see the module docstring for the scope of each flaw)."""
        by_territory: dict[str, list[str]] = {}
        by_language: dict[str, list[str]] = {}
        by_question: dict[tuple[str, str], list[str]] = {}
        for flaw in self.flaws:
            if flaw.territory is not None and flaw.language is None:
                by_territory.setdefault(flaw.territory, []).append(str(flaw))
            elif flaw.territory is None and flaw.language is not None:
                by_language.setdefault(flaw.language, []).append(str(flaw))
            elif flaw.territory is not None:
                by_question.setdefault((flaw.territory, flaw.language), []).append(str(flaw))
        left_out = [LeftOut("territory", name, None, tuple(reasons)) for name, reasons in by_territory.items()]
        territories = tuple(t for t in self.territories if t.name not in by_territory)
        kept = {t.name for t in territories}
        translations = {}
        for language, queries in self.translations.items():
            if language in by_language:
                left_out.append(LeftOut("language", None, language, tuple(by_language[language])))
                continue
            translations[language] = tuple(q for q in queries if q.territory in kept
                                           and (q.territory, language) not in by_question)
        for (name, language), reasons in by_question.items():
            if name in kept and language not in by_language:
                left_out.append(LeftOut("question", name, language, tuple(reasons)))
        controls = tuple(q for q in self.controls if q.territory in kept)
        countries = {name: c for name, c in self.countries.items() if name not in self.misspelt_keys}
        return (replace(self, territories=territories, countries=countries, translations=translations,
                        controls=controls, flaws=(), misspelt_keys={}), tuple(left_out))
