"""Checks across the files of a BorderLines release: each translated or control query
against its territory's row, claimants against the countries table, and every claimant
language against the templates and query files. Used by release.read_release."""

from __future__ import annotations

import difflib

from .question_template import LETTERS
from .release_files import Reader, json_lines, read_line_inds, text_lines
from .release_model import (
    CONTROL_CHOICES, CONTROL_LANGUAGE, CONTROL_PROMPTS, COUNTRIES, TABLE, TEMPLATES, Country, Query, Release,
    Territory, choices_file, line_inds_file, prompts_file,
)


def _offer_problem(text: str, choices: tuple[str, ...]) -> str | None:
    missing = [f"{letter}) {name}" for letter, name in zip(LETTERS, choices) if f"{letter}) {name}" not in text]
    return f"the query does not offer {', '.join(missing)}" if missing else None


def _name_problems(language: str, territory: Territory, names: tuple[str, ...], line: int,
                   known_terms: dict[str, str] | None, first_seen: dict[str, tuple[str, int]]) -> list[str]:
    """Choices that differ from the claimant's known name in this language: the terms
    file's, or else the first line that named it (English names are themselves)."""
    problems = []
    for letter, claimant, shown in zip(LETTERS, territory.claimants, names):
        if language == CONTROL_LANGUAGE and known_terms is None:
            expected, source = claimant, "English"
        elif known_terms is not None and claimant in known_terms:
            expected, source = known_terms[claimant], f"terms_gt.{language}.json"
        elif claimant in first_seen:
            expected, source = first_seen[claimant][0], f"line {first_seen[claimant][1]}"
        else:
            expected, source = None, None
        if expected is not None and shown != expected:
            problems.append(f"choice {letter}) {shown!r} for {claimant} differs from {expected!r} in {source}")
        first_seen.setdefault(claimant, (shown, line))
    return problems


def read_language(reader: Reader, language: str, territories: list[Territory], countries: dict[str, Country],
                  terms: dict[str, dict[str, str]]) -> tuple[Query, ...]:
    """The queries of one language, each checked against its territory's row."""
    prompts_text = reader.text(prompts_file(language), language)
    choices_text = reader.text(choices_file(language), language)
    indexes, indexes_read = read_line_inds(reader, language)

    def territory_of(i):
        index = indexes[i][0] if i < len(indexes) else None
        return territories[index].name if index is not None and 0 <= index < len(territories) else None

    prompts = text_lines(prompts_text) if prompts_text is not None else []
    choices = (json_lines(reader, choices_file(language), text_lines(choices_text), language, territory_of)
               if choices_text is not None else [])
    counts = (len(prompts), len(choices), len(indexes))
    if None not in (prompts_text, choices_text) and indexes_read and len(set(counts)) > 1:
        reader.flaw(prompts_file(language), None,
                    f"{counts[0]} queries, but choices.{language} has {counts[1]} lines and "
                    f"line_inds.{language}.txt {counts[2]} indexes: the lines cannot be matched", language=language)
    known_terms = terms.get(language)
    first_seen: dict[str, tuple[str, int]] = {}
    first_query: dict[str, int] = {}
    queries = []
    for i in range(max(counts)):
        line = i + 1
        text = prompts[i] if i < len(prompts) else ""
        names = choices[i] if i < len(choices) else None
        index, place = indexes[i] if i < len(indexes) else (None, None)
        territory = None
        if index is not None and not 0 <= index < len(territories):
            reader.flaw(line_inds_file(language), place,
                        f"row index {index} is out of range: the table has {len(territories)} rows "
                        f"(query on line {line} of prompts.{language})", language=language)
        elif index is not None:
            territory = territories[index]
        queries.append(Query(language, index, territory.name if territory else None, text, names or (), line))
        if territory is None or names is None or i >= len(prompts):
            continue
        name = territory.name

        def flaw(file, reason):
            reader.flaw(file, line, reason, name, language)

        if not text.strip():
            flaw(prompts_file(language), "empty query")
        if name in first_query:
            flaw(prompts_file(language), f"second {language} query for {name} (first on line {first_query[name]})")
        first_query.setdefault(name, line)
        claimant_languages = [countries[c].language if c in countries else None for c in territory.claimants]
        if None not in claimant_languages and language not in claimant_languages:
            flaw(prompts_file(language), f"no claimant of {name} ({', '.join(territory.claimants)}) speaks {language}")
        if len(names) != len(territory.claimants):
            flaw(choices_file(language), f"{len(names)} choice{'s' * (len(names) != 1)} for {name}, which has "
                                         f"{len(territory.claimants)} claimants ({', '.join(territory.claimants)})")
            continue
        for problem in _name_problems(language, territory, names, line, known_terms, first_seen):
            flaw(choices_file(language), problem)
        problem = _offer_problem(text, names)
        if problem:
            flaw(prompts_file(language), problem)
    return tuple(queries)


def read_controls(reader: Reader, territories: list[Territory]) -> tuple[Query, ...]:
    """The English control queries, line i for row i of the table."""
    prompts_text = reader.text(CONTROL_PROMPTS)
    choices_text = reader.text(CONTROL_CHOICES)
    if prompts_text is None or choices_text is None:
        return ()
    prompts = text_lines(prompts_text)
    choices = json_lines(reader, CONTROL_CHOICES, text_lines(choices_text), None,
                         lambda i: territories[i].name if i < len(territories) else None)
    if not len(prompts) == len(choices) == len(territories):
        reader.flaw(CONTROL_PROMPTS, None, f"{len(prompts)} queries, but {CONTROL_CHOICES} has {len(choices)} "
                                           f"lines and the table {len(territories)} rows")
    controls = []
    for i in range(max(len(prompts), len(choices), len(territories))):
        line = i + 1
        territory = territories[i] if i < len(territories) else None
        text = prompts[i] if i < len(prompts) else None
        names = choices[i] if i < len(choices) else None
        if i < max(len(prompts), len(choices)):
            controls.append(Query(CONTROL_LANGUAGE, i if territory else None, territory.name if territory else None,
                                  text or "", names or (), line))
        if territory is None:
            reader.flaw(CONTROL_PROMPTS if i < len(prompts) else CONTROL_CHOICES, line,
                        f"no row {i} in the table for this control query")
            continue
        name = territory.name
        if text is None or i >= len(choices):
            missing = CONTROL_PROMPTS if text is None else CONTROL_CHOICES
            reader.flaw(TABLE, territory.line, f"no English control query for {name} (no line {line} "
                                               f"in {missing})", name)
            continue
        if names is None:  # flawed on its line already
            continue
        if names != territory.claimants:
            reader.flaw(CONTROL_CHOICES, line, f"choices {list(names)} are not the claimants of {name} "
                                               f"{list(territory.claimants)}", name)
        elif problem := _offer_problem(text, names):
            reader.flaw(CONTROL_PROMPTS, line, problem, name)
        if territory.query and text != territory.query:
            reader.flaw(CONTROL_PROMPTS, line, f"differs from the Query of {name} ({TABLE}:{territory.line})", name)
    return tuple(controls)


# How alike a country key and a claimant must be (difflib's ratio, case ignored) for the
# key to count as the claimant misspelt. The release's own 'SuriLang_Name' for 'Suriname'
# scores 0.76 (2 x 8 letters in common / 21 letters), the sample's 'Ukriane' for 'Ukraine'
# 0.86; unrelated names stay below 0.4 ('Moldova' and 'Suriname' 0.13).
MISSPELLING_RATIO = 0.6


def _likeness(key: str, claimant: str) -> float:
    a, b = key.casefold(), claimant.casefold()
    ratio = difflib.SequenceMatcher(None, a, b).ratio()  # 1.0 only when equal but for case
    if a in b or b in a:  # 'Cyprus' for 'Republic of Cyprus': the same country, written shorter
        return max(ratio, 0.9)
    return ratio


def probable_misspellings(orphans, unused_keys) -> dict[str, str]:
    """Country key -> the claimant it probably misspells: pairs of a key that no claimant
    names and a claimant without an entry, alike enough (MISSPELLING_RATIO, or one name
    inside the other), one to one, the likest pairs first (ties: names in order). Pure."""
    pairs = sorted(((-_likeness(key, claimant), key, claimant) for key in dict.fromkeys(unused_keys)
                    for claimant in dict.fromkeys(orphans)), key=lambda p: (p[0], p[1], p[2]))
    paired: dict[str, str] = {}
    for score, key, claimant in pairs:
        if -score >= MISSPELLING_RATIO and key not in paired and claimant not in paired.values():
            paired[key] = claimant
    return paired


def check_countries(reader: Reader, territories: list[Territory], countries: dict[str, Country]) -> dict[str, str]:
    """Claimants without a country entry (on their territory's line), and each unused key
    that is probably one of them misspelt (on the key, naming the rows it leaves without a
    country). Returns those keys: key -> claimant."""
    rows_of: dict[str, list[Territory]] = {}
    for territory in territories:
        for claimant in territory.claimants:
            if claimant not in countries:
                rows_of.setdefault(claimant, []).append(territory)
    used = {c for t in territories for c in t.claimants}
    misspelt = probable_misspellings(list(rows_of), [key for key in countries if key not in used])
    key_of = {claimant: key for key, claimant in misspelt.items()}
    for territory in territories:
        for claimant in territory.claimants:
            if claimant in countries:
                continue
            if claimant in key_of:
                hint = f"; its entry is probably the misspelt key {key_of[claimant]!r} (rename it {claimant!r})"
            else:
                # A claimant misspelt in the table rather than a key: a key in use may be the likest name.
                guess = difflib.get_close_matches(claimant, list(countries), n=1, cutoff=0.8)
                hint = f"; did you mean {guess[0]!r}?" if guess else ""
            reader.flaw(TABLE, territory.line, f"claimant {claimant!r} has no entry in {COUNTRIES}{hint}",
                        territory.name)
    for key, claimant in misspelt.items():
        rows = ", ".join(f"{t.line} ({t.name})" for t in rows_of[claimant])
        reader.flaw(COUNTRIES, key, f"key {key!r} is probably {claimant!r} misspelt: no territory names it, and "
                                    f"{claimant!r} has no entry, which leaves {TABLE} line"
                                    f"{'s' * (len(rows_of[claimant]) > 1)} {rows} without a country; rename the "
                                    f"key to {claimant!r} (it is not imported as an actor)")
    return misspelt


def check_coverage(reader: Reader, release: Release, templates_read: bool, files: dict[str, bool]):
    """Every claimant language has a template, query files and a query per territory."""
    speakers_of: dict[str, list[str]] = {}
    for territory in release.territories:
        for language, speakers in release.languages_of(territory).items():
            for speaker in speakers:
                if speaker not in speakers_of.setdefault(language, []):
                    speakers_of[language].append(speaker)
    if templates_read and CONTROL_LANGUAGE not in release.templates:
        reader.flaw(TEMPLATES, CONTROL_LANGUAGE, "no template for en, the English control", language=CONTROL_LANGUAGE)
    for language, speakers in sorted(speakers_of.items()):
        if templates_read and language not in release.templates:
            if language != CONTROL_LANGUAGE:
                reader.flaw(TEMPLATES, language, f"no template for {language}, the language of "
                                                 f"{', '.join(speakers)}", language=language)
        elif language not in files:
            reader.flaw(prompts_file(language), None, f"missing file: no {language} queries for "
                                                      f"{', '.join(speakers)}", language=language)
        elif files[language]:
            asked = {q.territory for q in release.translations.get(language, ())}
            for territory in release.territories:
                here = release.languages_of(territory).get(language)
                if here and territory.name not in asked and all(c in release.countries for c in territory.claimants):
                    reader.flaw(TABLE, territory.line, f"no {language} query for {territory.name} "
                                                       f"({', '.join(here)}) in {prompts_file(language)}",
                                territory.name, language)
