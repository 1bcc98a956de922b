"""A release's values against the lengths of the columns that will hold them. Pure: the
limits come in as a mapping (services reads them from the models' max_length).

SQLite stores a 121-character value in a 120-character column without a word, and
PostgreSQL refuses the whole transaction with a DataError: either way the file, not the
database, must say what is too long. Each value too long is a Flaw whose scope
(release_model.Release.sound) keeps out only what holds the value:

- a country's field: every territory it claims (its questions need the country), and
  the country itself (returned, for the caller to drop from the countries it stores);
- a territory's name, region or query id, or a question key its name makes too long:
  that territory;
- a language code (templates, translations): that language's queries;
- a term of a translation dictionary: that language's queries (the questions are filled
  from the dictionary, so its lines cannot be trusted).

Every check runs whether or not the import is a dry run, so that `--dry-run` finds
exactly the flaws the import would.
"""

from __future__ import annotations

from collections.abc import Mapping

from .release_model import COUNTRIES, TABLE, TEMPLATES, Flaw, Release, terms_file

# Where a Country's fields are read from in countries_info.json, for the message.
COUNTRY_FIELD_NAMES = {"language": "Lang_Code", "language_name": "Lang_Name",
                       "language_native": "Lang_Name_Native", "religion": "Religion"}
TERRITORY_FIELD_NAMES = {"name": "Territory", "region": "Region", "query_id": "QueryID"}


def _too_long(what: str, value: str, limit: int) -> str:
    shown = value[:40] + ("…" if len(value) > 40 else "")
    return f"{what} {shown!r} is {len(value)} characters long; at most {limit} fit: shorten it"


def length_flaws(release: Release, limits: Mapping[str, int], question_key_room: int | None = None,
                 question_key=None) -> tuple[list[Flaw], set[str]]:
    """(flaws, names of countries to drop) for every value longer than its column.

    `limits` maps "country.name", "country.language", "country.language_name",
    "country.language_native", "country.religion", "territory.name", "territory.region",
    "territory.query_id", "language.code", "term.english" and "term.text" to lengths (a
    missing one is not checked). `question_key(territory, language)` and
    `question_key_room` (the characters a key may still use once the benchmark's prefix
    is counted) check the questions' keys.
    """
    flaws: list[Flaw] = []
    dropped: set[str] = set()
    claims: dict[str, list[str]] = {}
    for territory in release.territories:
        for name in territory.claimants:
            claims.setdefault(name, []).append(territory.name)

    def limit(name: str) -> int | None:
        return limits.get(name)

    for name, country in release.countries.items():
        reasons = []
        if limit("country.name") is not None and len(name) > limit("country.name"):
            reasons.append(_too_long("the country key", name, limit("country.name")))
        for field, shown in COUNTRY_FIELD_NAMES.items():
            value = getattr(country, field)
            top = limit(f"country.{field}")
            if isinstance(value, str) and top is not None and len(value) > top:
                reasons.append(_too_long(shown, value, top))
        for reason in reasons:
            dropped.add(name)
            flaws.append(Flaw(COUNTRIES, name, reason))
            for territory in claims.get(name, []):
                flaws.append(Flaw(COUNTRIES, name, f"claimant {name[:40]!r} of this territory: {reason}", territory))

    languages = {*release.templates, *release.translations, *release.terms}
    longest_language = max((len(code) for code in languages), default=0)
    for territory in release.territories:
        for field, shown in TERRITORY_FIELD_NAMES.items():
            value = getattr(territory, field)
            top = limit(f"territory.{field}")
            if isinstance(value, str) and top is not None and len(value) > top:
                flaws.append(Flaw(TABLE, territory.line or None, _too_long(shown, value, top), territory.name))
        if question_key is not None and question_key_room is not None and languages:
            longest = max(len(question_key(territory.name, code)) for code in languages)
            if longest > question_key_room:
                flaws.append(Flaw(TABLE, territory.line or None,
                                  f"its question keys would be {longest} characters long where {question_key_room} "
                                  "fit (with the benchmark's name): shorten the territory's name", territory.name))

    code_limit = limit("language.code")
    if code_limit is not None and longest_language > code_limit:
        for code in sorted(languages):
            if len(code) > code_limit:
                where = TEMPLATES if code in release.templates else terms_file(code)
                flaws.append(Flaw(where, None, _too_long("the language code", code, code_limit), language=code))
    for code, terms in release.terms.items():
        for english, text in terms.items():
            for value, field, shown in ((english, "term.english", "the English term"),
                                        (text, "term.text", "the translated term")):
                top = limit(field)
                if isinstance(value, str) and top is not None and len(value) > top:
                    flaws.append(Flaw(terms_file(code), english[:60], _too_long(shown, value, top), language=code))
    return flaws, dropped


def without_countries(release: Release, names: set[str]) -> Release:
    """The release without the countries `names` (their territories are flawed already)."""
    if not names:
        return release
    from dataclasses import replace

    return replace(release, countries={n: c for n, c in release.countries.items() if n not in names})
