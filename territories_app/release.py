"""Read and write a directory in the public BorderLines release layout (paper 003).

Layout, paths relative to the release directory
-----------------------------------------------
disputed_territories.csv   Territory,Claimants,Controller,Region,Population,Query,QueryID;
                           Claimants ';'-separated in the claimants' order, Controller a
                           claimant or "Unknown", Query the English control question.
countries_info.json        {country: {Lang_Code, Lang_Name, Lang_Name_Native, Religion,
                           Population}}; the release's GitHub copy spells the fields code,
                           name, name_native, religion, population: both are read.
templates_q.tsv            code<TAB>template, one question per language (question_template).
translate/prompts_mc_q/prompts.<lang>   one translated query per line;
translate/prompts_mc_q/choices.<lang>   that line's claimant names in <lang>, a JSON list;
translate/terms/line_inds.<lang>.txt    each line's row in the territory table (0-based,
                           blank rows not counted, as pandas reads it): a JSON list as the
                           release writes it, or one index per line;
translate/terms/terms_gt.<lang>.json    optional: English term -> <lang> term (territory and
                           country names), the dictionary the queries were filled from;
prompts/prompts_q_mc.txt, prompts/choices.txt   the English control query of each row and
                           its choices (a JSON list), one line per table row.
Language codes are whatever the files say (zhs and zht, or zh-CN and zh-TW): never renamed.

API
---
read_release(path) -> Release: every file read into frozen dataclasses, and Release.flaws,
    one Flaw per problem, each naming its file and line (or JSON key). Bad input never
    raises: a file that is missing, unreadable, binary or not UTF-8 is a flaw too.
Release.sound() -> (Release, left_out): what can be imported when the flaws are accepted.
write_release(release, path): the same layout back. read -> write -> read gives an equal
    Release, and a directory in the layout's own formatting (CSV with minimal quoting and
    \\n line ends, countries indented by 2, JSON lists as json.dumps writes them, UTF-8
    without escapes) comes back byte for byte.
The dataclasses (Release, Territory, Country, Query, Flaw, LeftOut) live in release_model,
the reading of single files in release_files, the checks across files in release_checks;
import them all from here.

Scope of a flaw, which decides what sound() leaves out
------------------------------------------------------
- territory set, language None: the territory and all its questions (a bad row, a
  claimant without a country, a controller outside the claimants, a wrong control query);
- territory and language set: that one translated question (choices that do not match,
  a second query, a query in a language none of its claimants speaks);
- language only: every query in that language (files of different lengths, an index out
  of range or unreadable, no template, a missing file): the lines cannot be trusted to
  belong to the rows they claim;
- neither: reported only (a misspelt country key: its claimants carry their own flaws;
  sound() drops the key from the countries, so that it never becomes an actor).
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import replace
from pathlib import Path

from .release_checks import check_countries, check_coverage, read_controls, read_language
from .release_files import (
    Reader, read_countries, read_table, read_templates, read_terms, translation_languages,
)
from .release_model import (  # noqa: F401 (the dataclasses and names callers import from here)
    COLUMNS, CONTROL_CHOICES, CONTROL_LANGUAGE, CONTROL_PROMPTS, COUNTRIES, COUNTRY_FIELDS, PROMPTS_DIR, TABLE,
    TEMPLATE_HEADER, TEMPLATES, TERMS_DIR, UNKNOWN, Country, Flaw, LeftOut, Query, Release, Territory,
    choices_file, line_inds_file, prompts_file, terms_file,
)


def read_release(path: str | Path) -> Release:
    """Every file of a release directory, and every problem as a Flaw; never raises on bad input."""
    root = Path(path)
    reader = Reader(root)
    if not root.is_dir():
        reader.flaw(str(root), None, "not a directory")
        return Release(flaws=tuple(reader.flaws))
    territories = read_table(reader)
    countries = read_countries(reader)
    templates, templates_read = read_templates(reader)
    terms = read_terms(reader)
    # Even with no countries file: every claimant then lacks its language, and sound()
    # must not keep a territory whose questions cannot be placed.
    misspelt = check_countries(reader, territories, countries)
    translations = {}
    files = {}  # language -> whether its three files line up
    for language in translation_languages(root):
        before = len(reader.flaws)
        translations[language] = read_language(reader, language, territories, countries, terms)
        files[language] = not any(f.language == language and f.territory is None for f in reader.flaws[before:])
    controls = read_controls(reader, territories)
    release = Release(tuple(territories), countries, templates, translations, controls, terms)
    check_coverage(reader, release, templates_read, files)
    return replace(release, flaws=tuple(reader.flaws), misspelt_keys=misspelt)


def _population(value: int | float | None) -> str:
    return "" if value is None else str(value)


def _json_line(values) -> str:
    return json.dumps(list(values), ensure_ascii=False)


def write_release(release: Release, path: str | Path) -> None:
    """The release layout under `path` (created if needed). Row indexes in line_inds are
    the territories' positions in release.territories, so a sound() subset is renumbered."""
    root = Path(path)
    for folder in (root / "prompts", root / PROMPTS_DIR, root / TERMS_DIR):
        folder.mkdir(parents=True, exist_ok=True)

    def write(relative: str, text: str):
        (root / relative).write_bytes(text.encode("utf-8"))

    table = io.StringIO()
    writer = csv.writer(table, lineterminator="\n")
    writer.writerow(COLUMNS)
    for t in release.territories:
        writer.writerow([t.name, ";".join(t.claimants), t.controller or UNKNOWN, t.region,
                         _population(t.population), t.query, t.query_id])
    write(TABLE, table.getvalue())
    countries = {name: dict(zip(COUNTRY_FIELDS, [c.language, c.language_name, c.language_native, c.religion,
                                                 c.population])) for name, c in release.countries.items()}
    write(COUNTRIES, json.dumps(countries, ensure_ascii=False, indent=2) + "\n")
    write(TEMPLATES, "".join(f"{code}\t{template}\n" for code, template in
                             [TEMPLATE_HEADER, *release.templates.items()]))
    write(CONTROL_PROMPTS, "".join(f"{q.text}\n" for q in release.controls))
    write(CONTROL_CHOICES, "".join(f"{_json_line(q.choices)}\n" for q in release.controls))
    position = {t.index: i for i, t in enumerate(release.territories)}
    for language, queries in release.translations.items():
        write(prompts_file(language), "".join(f"{q.text}\n" for q in queries))
        write(choices_file(language), "".join(f"{_json_line(q.choices)}\n" for q in queries))
        write(line_inds_file(language), json.dumps([position.get(q.territory_index, q.territory_index)
                                                    for q in queries]))
    for language, terms in release.terms.items():
        write(terms_file(language), json.dumps(dict(terms), ensure_ascii=False))
