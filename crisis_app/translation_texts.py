"""Translations of crisis simulations (issue 41): writing one (every text, its `{PLAYER}`-
style placeholders kept), approving it (an author who reads the language), out of date
once the simulation's texts change, and the translators' CSV with exactly the columns
`key, field, source, text` (`key` the simulation, `bench/key`; `field` background, role,
answer_format, move1_incident or continuation:NAME; `text` empty in an export). An import
is all or nothing, each bad row named."""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections import Counter
from dataclasses import dataclass, field as dataclass_field

from django.db import transaction
from django.utils import timezone

from accounts.models import Profile
from accounts.roles import AUTHORS
from benchmarks_app.language_codes import SOURCE_LANGUAGE, language_problem, reads
from kit.csv_safety import SafeWriter, restore

from .models import Simulation, SimulationTranslation
from .rendering import PLACEHOLDER

COLUMNS = ["key", "field", "source", "text"]
MAX_ROWS = 50_000


class TranslationError(ValueError):
    """A translation that cannot be saved or approved; the message says why and where."""


def source_hash(simulation: Simulation) -> str:
    return hashlib.sha256(json.dumps(simulation.texts(), sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def is_out_of_date(translation: SimulationTranslation) -> bool:
    return translation.source_hash != source_hash(translation.simulation)


def placeholder_problems(source: dict[str, str], texts: dict[str, str]) -> list[str]:
    """Each field missing, unknown or empty, and each placeholder lost or added, by field."""
    problems = [f"{name}: the simulation has no such text" for name in texts if name not in source]
    for name, original in source.items():
        text = texts.get(name, "")
        if not (text or "").strip():
            problems.append(f"{name}: the translation is missing; translate every text")
            continue
        wanted, found = Counter(PLACEHOLDER.findall(original)), Counter(PLACEHOLDER.findall(text))
        for slot in sorted(wanted | found):
            if found[slot] != wanted[slot]:
                problems.append(f"{name}: {slot} is {'missing' if found[slot] < wanted[slot] else 'added'} "
                                f"({wanted[slot]} in the source, {found[slot]} in the translation); keep {slot} "
                                "exactly as written")
    return problems


def check_language(code: str):
    problem = language_problem(code)
    if problem:
        raise TranslationError(f"language: {problem}")
    if code == SOURCE_LANGUAGE:
        raise TranslationError(f"language: {code} is the source language; a translation needs another one")


def save_translation(simulation: Simulation, language: str, texts: dict[str, str], *, translated_by=None,
                     provenance: str = "person") -> SimulationTranslation:
    """Write (or rewrite) the simulation's translation as a draft; refused, field by field,
    when a text is missing or a placeholder is lost or added."""
    check_language(language)
    problems = placeholder_problems(simulation.texts(), texts)
    if problems:
        raise TranslationError("; ".join(problems))
    translation, _ = SimulationTranslation.objects.update_or_create(
        simulation=simulation, language=language,
        defaults=dict(texts=dict(texts), status=SimulationTranslation.Status.DRAFT,
                      source_hash=source_hash(simulation), provenance=provenance[:200], translated_by=translated_by,
                      translated_at=timezone.now(), approved_by=None, approved_at=None))
    return translation


def approve_translation(translation: SimulationTranslation, approver) -> SimulationTranslation:
    if not (approver.is_superuser or approver.groups.filter(name=AUTHORS).exists()):
        raise TranslationError(f"Not approved: {approver} is not an author")
    profile = Profile.objects.filter(user=approver).first()
    if not reads(list(profile.languages) if profile else [], translation.language):
        raise TranslationError(f"Not approved: {approver}'s profile does not list {translation.language}; "
                               "only an author who reads the language may approve its translation")
    if is_out_of_date(translation):
        raise TranslationError(f"Not approved: {translation} is out of date (the simulation's texts changed)")
    translation.status = SimulationTranslation.Status.APPROVED
    translation.approved_by, translation.approved_at = approver, timezone.now()
    translation.save(update_fields=["status", "approved_by", "approved_at"])
    return translation


# --- the translators' CSV -------------------------------------------------------------------------

def key_of(simulation: Simulation) -> str:
    return f"{simulation.benchmark.name}/{simulation.key}"


def export_csv(simulations, language: str) -> str:
    """Every text of `simulations`: its source, and its translation into `language` when
    one exists and is up to date (else empty)."""
    out = io.StringIO(newline="")
    writer = SafeWriter(out, lineterminator="\n")  # free text opened in spreadsheets: no formulas
    writer.writerow(COLUMNS)
    for simulation in simulations:
        existing = simulation.translations.filter(language=language).first()
        done = existing.texts if existing is not None and not is_out_of_date(existing) else {}
        for name, text in simulation.texts().items():
            writer.writerow([key_of(simulation), name, text, done.get(name, "")])
    return out.getvalue()


@dataclass
class ImportReport:
    errors: list[str] = dataclass_field(default_factory=list)
    simulations: int = 0

    @property
    def ok(self) -> bool:
        return not self.errors


def import_csv(text: str, language: str, *, benchmark=None, translated_by=None, provenance: str = "person",
               ) -> ImportReport:
    """Read a translators' CSV into draft translations of `language`: all or nothing. Each
    row's key must name a simulation (of `benchmark` when given), its field one of that
    simulation's texts, its `source` the text as it stands (else the row translates an older
    text), and each simulation's rows must translate every text, placeholders kept."""
    report = ImportReport()
    try:
        check_language(language)
    except TranslationError as exc:
        report.errors.append(str(exc))
        return report
    reader = csv.reader(io.StringIO(text))
    header = next(reader, None)
    if header is None or [h.strip().lstrip("\ufeff") for h in header] != COLUMNS:
        report.errors.append(f"the header must be exactly {', '.join(COLUMNS)} (found {', '.join(header or [])})")
        return report
    grouped: dict[str, dict[str, str]] = {}
    for line, row in enumerate(reader, start=2):
        if line > MAX_ROWS + 1:
            report.errors.append(f"more than {MAX_ROWS} rows: split the file")
            return report
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(COLUMNS):
            report.errors.append(f"row {line}: {len(row)} cells, expected {len(COLUMNS)}")
            continue
        key, name, source, translated = (restore(cell) for cell in row)
        bench, _, sim_key = key.partition("/")
        simulation = Simulation.objects.filter(benchmark__name=bench, key=sim_key).first()
        if simulation is None or (benchmark is not None and simulation.benchmark_id != benchmark.pk):
            report.errors.append(f"row {line} ({key}, {name}): no such simulation")
            continue
        current = simulation.texts()
        if name not in current:
            report.errors.append(f"row {line} ({key}, {name}): the simulation has no text {name!r}")
        elif source != current[name]:
            report.errors.append(f"row {line} ({key}, {name}): its source is not the simulation's text as it "
                                 "stands (it changed since the export): export again")
        else:
            grouped.setdefault(key, {})[name] = translated
    simulations = {key: Simulation.objects.get(benchmark__name=key.partition("/")[0], key=key.partition("/")[2])
                   for key in grouped}
    for key, texts in grouped.items():
        report.errors.extend(f"{key}: {problem}" for problem in
                             placeholder_problems(simulations[key].texts(), texts))
    if report.errors:
        return report
    with transaction.atomic():
        for key, texts in grouped.items():
            save_translation(simulations[key], language, texts, translated_by=translated_by, provenance=provenance)
            report.simulations += 1
    return report
