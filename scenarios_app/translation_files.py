"""A benchmark's translations in and out of translators' tools (issue 41): CSV with exactly
the columns `key, field, source, text`, and XLIFF 2.0 through translate-toolkit (a kept
library translators' tools share; its `xliff2` storage writes version 2.0 with `<ph>`
placeholders for the slots, so that a translation tool protects them).

`key` names the item (a scenario version `bench/key.v1`, or an actor `actor:CN`), `field`
its part (template, option_a, option_b, option_c; name, and in a language whose names have
grammatical forms `name:genitive`, … one row per form, its `source` the English name). An import is all or nothing: any
bad row and nothing is written, every bad row named with its key, field and slot."""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field as dataclass_field

from django.db import transaction
from translate.storage.placeables import StringElem, xliff as xliff_placeables
from translate.storage.xliff2 import Xliff2File

from benchmarks_app.language_codes import SOURCE_LANGUAGE, form_problem, language_problem, reads, stored_forms
from kit.csv_safety import SafeWriter, restore

from . import translations
from .models import Actor, Benchmark, Scenario
from .slots import OPTION_FIELDS, check_translation, slot_spans

COLUMNS = ["key", "field", "source", "text"]
ACTOR_PREFIX = "actor:"
_VERSION_KEY = re.compile(r"^(?P<bench>[^/]+)/(?P<key>.+)\.v(?P<version>\d+)$")
MAX_ROWS = 50_000


class TranslationFileError(ValueError):
    """A file that cannot be read at all (not a row's problem)."""


@dataclass
class Row:
    line: int  # 1-based data row (CSV) or unit number (XLIFF)
    key: str
    field: str
    source: str
    text: str


@dataclass
class ImportReport:
    language: str = ""
    errors: list[str] = dataclass_field(default_factory=list)
    scenarios: int = 0
    actors: int = 0
    approved: int = 0

    @property
    def ok(self) -> bool:
        return not self.errors


def format_of(path: str) -> str:
    lowered = path.lower()
    if lowered.endswith(".csv"):
        return "csv"
    if lowered.endswith((".xlf", ".xliff")):
        return "xliff"
    raise TranslationFileError(f"{path}: the format comes from the extension: .csv, .xlf or .xliff")


def version_key(scenario: Scenario) -> str:
    return f"{scenario.benchmark.name}/{scenario.key}.v{scenario.version}"


def _items(benchmark: Benchmark, language: str):
    """(key, field, source) of everything a translator translates into `language` in
    `benchmark`: its current scenario versions, then the actors their dyads name (each
    actor's name, then each form of names the language stores)."""
    rows, codes = [], {}
    for scenario in (Scenario.objects.filter(benchmark=benchmark, is_current=True)
                     .select_related("benchmark").prefetch_related("options", "dyads__actor_a", "dyads__actor_b")
                     .order_by("key")):
        for name, text in translations.source_fields(scenario).items():
            rows.append((version_key(scenario), name, text))
        for dyad in scenario.dyads.all():
            for actor in (dyad.actor_a, dyad.actor_b):
                codes[actor.code] = actor
    for code in sorted(codes):
        rows.append((ACTOR_PREFIX + code, "name", codes[code].prompt_name))
        rows.extend((ACTOR_PREFIX + code, f"name:{form}", codes[code].prompt_name) for form in stored_forms(language))
    return rows


def export_translations(benchmark: Benchmark, language: str, fmt: str) -> bytes:
    problem = language_problem(language)
    if problem:
        raise TranslationFileError(f"--language: {problem}")
    items = _items(benchmark, language)
    if fmt == "csv":
        out = io.StringIO(newline="")
        writer = SafeWriter(out, lineterminator="\n")  # free text opened in spreadsheets: no formulas
        writer.writerow(COLUMNS)
        for key, name, source in items:
            writer.writerow([key, name, source, ""])
        return out.getvalue().encode("utf-8")
    store = Xliff2File(sourcelanguage=SOURCE_LANGUAGE)
    store.settargetlanguage(language)
    for key, name, source in items:
        unit = store.addsourceunit(source)
        unit.setid(f"{key}#{name}")
        unit.rich_source = [_with_placeholders(source)]
    return bytes(store)


def _with_placeholders(text: str) -> StringElem:
    """The text with each slot as an XLIFF 2 `<ph>` whose `equiv` and `disp` are the slot."""
    parts, at = [], 0
    for number, (start, end, slot) in enumerate(slot_spans(text), start=1):
        if start > at:
            parts.append(text[at:start])
        parts.append(xliff_placeables.Ph(id=str(number), xml_attrib={"equiv": slot, "disp": slot}))
        at = end
    if at < len(text) or not parts:
        parts.append(text[at:])
    return StringElem(parts)


def _plain(element, ns: str) -> str:
    """Text of a <source>/<target>, each <ph> read back as its slot (its `equiv`)."""
    if element is None:
        return ""
    out = [element.text or ""]
    for child in element:
        if child.tag == f"{{{ns}}}ph":
            out.append(child.get("equiv") or child.get("disp") or "")
        else:
            out.append(_plain(child, ns))
        out.append(child.tail or "")
    return "".join(out)


def read_rows(data: bytes, fmt: str) -> tuple[list[Row], str | None]:
    """The file's rows, and the target language it names (XLIFF's trgLang; CSV names none)."""
    if fmt == "csv":
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise TranslationFileError(f"not UTF-8 text (byte {error.start})") from None
        reader = csv.reader(io.StringIO(text, newline=""))
        header = next(reader, None)
        if header is None or [h.strip() for h in header] != COLUMNS:
            raise TranslationFileError(f"the header must be exactly: {', '.join(COLUMNS)} (found: "
                                       f"{', '.join(header or []) or 'nothing'})")
        rows = []
        for number, record in enumerate(reader, start=1):
            if number > MAX_ROWS:
                raise TranslationFileError(f"more than {MAX_ROWS} rows")
            if not any(cell.strip() for cell in record):
                continue
            if len(record) != 4:
                rows.append(Row(number, "", "", "", f"\0{len(record)}"))  # reported as a shape problem
                continue
            key, name, source, value = (restore(cell) for cell in record)
            rows.append(Row(number, key.strip(), name.strip(), source, value))
        return rows, None
    try:
        store = Xliff2File.parsestring(data)
    except Exception as error:  # lxml and translate-toolkit raise many kinds for a broken file
        raise TranslationFileError(f"not an XLIFF 2.0 file ({str(error)[:200]})") from None
    ns = store.namespace
    rows = []
    for number, unit in enumerate(store.getunits(), start=1):
        unit_id = unit.getid() or ""
        key, _, name = unit_id.rpartition("#")
        # translate-toolkit's XLIFF 2 unit is its <segment> (one per <unit> in what we write).
        segment = unit.xmlelement if unit.xmlelement.tag == f"{{{ns}}}segment" else unit.xmlelement.find(
            f"{{{ns}}}segment")
        source = _plain(segment.find(f"{{{ns}}}source"), ns) if segment is not None else ""
        target = _plain(segment.find(f"{{{ns}}}target"), ns) if segment is not None else ""
        rows.append(Row(number, key, name, source, target))
    return rows, store.gettargetlanguage()


def _sort_rows(rows: list[Row], report: ImportReport, language: str
               ) -> tuple[dict[str, dict[str, Row]], dict[str, dict[str, Row]]]:
    """The translated rows by scenario version, and by actor (each then by field: `name`,
    `name:genitive`, …); shape problems to `report`."""
    scenarios: dict[str, dict[str, Row]] = {}
    actors: dict[str, dict[str, Row]] = {}
    for row in rows:
        where = f"row {row.line}"
        if row.text.startswith("\0"):
            report.errors.append(f"{where}: {row.text[1:]} columns; every row has key, field, source, text")
        elif not row.text.strip():
            continue
        elif row.key.startswith(ACTOR_PREFIX):
            head, _, form = row.field.partition(":")
            fields = actors.setdefault(row.key, {})
            if head != "name" or (row.field != "name" and not form):
                report.errors.append(f"{where} ({row.key}, {row.field}): an actor's fields are name and "
                                     "name:FORM (a grammatical form, e.g. name:genitive)")
            elif form and (form_problem(language, form) or form not in stored_forms(language)):
                problem = form_problem(language, form) or f"the name itself is the {form}; give it as name"
                report.errors.append(f"{where} ({row.key}, {row.field}): {problem}")
            elif row.field in fields:
                report.errors.append(f"{where} ({row.key}, {row.field}): given twice")
            else:
                fields[row.field] = row
        elif _VERSION_KEY.match(row.key):
            fields = scenarios.setdefault(row.key, {})
            if row.field in fields:
                report.errors.append(f"{where} ({row.key}, {row.field}): given twice")
            fields[row.field] = row
        else:
            report.errors.append(f"{where} ({row.key or 'no key'}, {row.field}): the key names no scenario version "
                                 "(bench/key.vN) or actor (actor:CODE)")
    return scenarios, actors


def _plan_actors(actors: dict[str, dict[str, Row]], language: str, report: ImportReport) -> list[tuple]:
    """(actor, name, forms) to write for each actor's rows; problems to `report`. Forms join
    those the actor's name has already: a form row left empty keeps what was there."""
    planned = []
    for key, fields in actors.items():
        if not fields:
            continue
        first = min(row.line for row in fields.values())
        actor = Actor.objects.filter(code=key[len(ACTOR_PREFIX):]).first()
        if actor is None:
            report.errors.append(f"row {first} ({key}, name): no such actor")
            continue
        known = actor.translated_names.filter(language=language).first()
        name = fields["name"].text if "name" in fields else (known.name if known else "")
        if not name:
            field = min(fields, key=lambda f: fields[f].line)
            report.errors.append(f"row {first} ({key}, {field}): {key} has no name in {language} yet; "
                                 "fill its name row too")
            continue
        forms = {**(known.forms if known else {}),
                 **{field.partition(":")[2]: row.text for field, row in fields.items() if field != "name"}}
        planned.append((actor, name, forms))
    return planned


def import_translations(data: bytes, fmt: str, *, language: str | None = None, approved_by=None,
                        translated_by=None, provenance: str = "import") -> ImportReport:
    """Check every row, then write all of them or none. Rows with an empty `text` are left
    out (not translated yet); a scenario version with some fields translated needs all."""
    report = ImportReport()
    rows, named = read_rows(data, fmt)
    language = language or named
    if not language:
        raise TranslationFileError("the language is not in a CSV file: give --language (e.g. zh)")
    if named and language != named:
        raise TranslationFileError(f"--language {language} but the file's target language is {named}")
    problem = language_problem(language) or (
        f"{language} is the source language" if language == SOURCE_LANGUAGE else None)
    if problem:
        raise TranslationFileError(f"language: {problem}")
    report.language = language
    scenarios, actors = _sort_rows(rows, report, language)
    planned_scenarios = []
    for key, fields in scenarios.items():
        match = _VERSION_KEY.match(key)
        scenario = (Scenario.objects.filter(benchmark__name=match["bench"], key=match["key"],
                                            version=int(match["version"])).select_related("benchmark").first())
        first = min(row.line for row in fields.values())
        if scenario is None:
            report.errors.append(f"row {first} ({key}): no such scenario version")
            continue
        source = translations.source_fields(scenario)
        for name, row in fields.items():
            if name in source and row.source.strip() and row.source.strip() != source[name].strip():
                report.errors.append(f"row {row.line} ({key}, {name}): the source text changed since the export; "
                                     "export again and translate the current text")
        for problem in check_translation(source, {name: row.text for name, row in fields.items()}, language):
            line = fields[problem.field].line if problem.field in fields else first
            slot = f", slot {problem.slot}" if problem.slot else ""
            report.errors.append(f"row {line} ({key}, {problem.field}{slot}): {problem.message}")
        planned_scenarios.append((scenario, {name: row.text for name, row in fields.items()}))
    planned_actors = _plan_actors(actors, language, report)
    if approved_by is not None:
        if not translations.is_author(approved_by):
            report.errors.append(f"--approved-by: {approved_by} is not an author")
        elif not reads(translations.languages_of(approved_by), language):
            report.errors.append(f"--approved-by: {approved_by}'s profile does not list {language}")
    if report.errors:
        return report
    try:
        with transaction.atomic():
            for actor, name, forms in planned_actors:
                translations.set_actor_name(actor, language, name, forms=forms, translated_by=translated_by,
                                            provenance=provenance)
                report.actors += 1
            for scenario, fields in planned_scenarios:
                translation = translations.save_translation(scenario, language, fields, translated_by=translated_by,
                                                            provenance=provenance)
                report.scenarios += 1
                if approved_by is not None:
                    translations.approve_translation(translation, approved_by)
                    report.approved += 1
    except translations.TranslationError as error:
        report.errors.append(str(error))
        report.scenarios = report.actors = report.approved = 0
    return report
