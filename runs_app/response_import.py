"""Answers collected outside the tool, imported as a finished run (`import_responses`), in
bounded memory whatever the file's size.

Two passes over the file, one row in memory at a time (issue 32: a million rows took
3 GB and 25 minutes, a list of every row and every Response built before the insert):

1. check every row; what the checks need is kept compactly: each question key, model
   and condition once, and per row four integers in numpy arrays (duplicates are found
   by sorting them, not by a dict of a million tuples);
2. only when no row is bad: read the file again and insert in batches (executemany, COPY
   on PostgreSQL), inside one transaction, so that any failure still writes nothing.

Progress is reported through `progress(done, total, phase)` by bytes read (a file) or
rows (a text), each batch.
"""

from __future__ import annotations

import csv
import io
import re
from array import array
from collections.abc import Callable, Iterable
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
from django.db import connection, transaction
from django.utils import timezone

from benchmarks_app import families
from benchmarks_app.models import Benchmark, Condition, Question
from benchmarks_app.text_files import open_text

from . import unit_rows
from .models import LLMModel, Response, Run
from .signals import responses_imported

IMPORT_COLUMNS = ["question_key", "model", "repeat", "output"]  # and an optional `condition` (a name)
# and an optional `option_order`: the options in the order they were shown, as canonical
# indexes ("1 0 2" or "[1, 0, 2]"); empty, the canonical order. Without it an answer to
# shuffled options would be coded by the letter it gave, as if shown in canonical order.
BATCH = 5000
LOOKUP_CHUNK = 2000  # keys per `key__in` query: SQLite allows a few thousand variables


@dataclass
class ResponseImport:
    run: Run | None
    created: int
    problems: list[str]


Progress = Callable[[int, int | None, str], None]


@contextmanager
def _lines_of_text(text: str):
    stream = io.StringIO(text.lstrip("\ufeff"), newline="")
    stream.bytes_read, stream.size = 0, None  # progress by rows only
    yield stream


def _lines_of_file(path):
    @contextmanager
    def opened():
        with open_text(path) as stream:
            yield stream
    return opened


def _rows(lines: Iterable[str]):
    """(line, record dict) of every row; the header first as (0, fieldnames)."""
    reader = csv.DictReader(lines)
    yield 0, reader.fieldnames or []
    for record in reader:
        yield reader.line_num, record


def parse_option_order(text: str | None) -> list[int] | None:
    """The shown order of a row's `option_order` cell, None when empty; ValueError when it
    is not a permutation of 0..n-1."""
    text = (text or "").strip()
    if not text:
        return None
    parts = [p for p in re.split(r"[\s,]+", text.removeprefix("[").removesuffix("]").strip()) if p]
    order = [int(p) for p in parts]
    if sorted(order) != list(range(len(order))):
        raise ValueError(text)
    return order


def _check(opened, progress: Progress | None):
    """Pass 1: (problems, summary) where summary holds what the write needs."""
    keys: dict[str, int] = {}
    models: dict[str, int] = {}
    conditions: dict[str, int] = {}
    lines, q, m, c, r = array("q"), array("q"), array("q"), array("q"), array("q")
    shown = array("q")  # per row, how many options its option_order names (-1: none)
    problems: list[str] = []
    # Checked here, not left to the database: SQLite stores what PostgreSQL refuses.
    max_repeat = connection.ops.integer_field_range(Response._meta.get_field("repeat").get_internal_type())[1]
    model_length = min(LLMModel._meta.get_field("name").max_length,
                       Response._meta.get_field("resolved_model").max_length)
    with opened() as stream:
        rows = _rows(stream)
        _, fieldnames = next(rows)
        missing = [column for column in IMPORT_COLUMNS if column not in fieldnames]
        if missing:
            return [f"line 1: missing column(s) {', '.join(missing)}; the header must be "
                    + ", ".join(IMPORT_COLUMNS)], None
        for count, (line, record) in enumerate(rows, start=1):
            read = _read_row(line, record, max_repeat, model_length)
            if isinstance(read, str):
                problems.append(read)
                continue
            key, model, condition, repeat, order = read
            shown.append(-1 if order is None else len(order))
            lines.append(line)
            q.append(keys.setdefault(key, len(keys)))
            m.append(models.setdefault(model, len(models)))
            c.append(conditions.setdefault(condition, len(conditions)))
            r.append(repeat)
            if progress and count % BATCH == 0:
                progress(stream.bytes_read or count, stream.size, "checking")
    questions = _questions(keys)
    found_conditions = {x.name: x for x in Condition.objects.filter(name__in=list(conditions))}
    key_names, condition_names, model_names = list(keys), list(conditions), list(models)
    known_q = np.array([name in questions for name in key_names], dtype=bool)
    known_c = np.array([name in found_conditions for name in condition_names], dtype=bool)
    q_a, m_a, c_a, r_a = (np.frombuffer(x, dtype=np.int64) if len(x) else np.zeros(0, np.int64) for x in (q, m, c, r))
    first = _first_lines(q_a, m_a, c_a, r_a, np.frombuffer(lines, dtype=np.int64) if len(lines) else
                         np.zeros(0, np.int64))
    choice_counts = np.array([questions[name][2] if name in questions else -1 for name in key_names], dtype=np.int64)
    shown_a = np.frombuffer(shown, dtype=np.int64) if len(shown) else np.zeros(0, np.int64)
    wrong_order = (shown_a >= 0) & known_q[q_a] & (shown_a != choice_counts[q_a])
    if len(lines) and (not known_q[q_a].all() or not known_c[c_a].all() or (first >= 0).any() or wrong_order.any()):
        for i in np.flatnonzero(~known_q[q_a] | ~known_c[c_a] | (first >= 0) | wrong_order):
            line, key, condition = lines[i], key_names[q[i]], condition_names[c[i]]
            if not known_q[q[i]]:
                problems.append(f"line {line}: no question with key {key!r} (keys are as export_questions writes them)")
            if wrong_order[i]:
                problems.append(f"line {line}: option_order names {shown[i]} options; question {key!r} has "
                                f"{choice_counts[q[i]]}")
            if not known_c[c[i]]:
                problems.append(f"line {line}: no condition named {condition[:80]!r}")
            if first[i] >= 0:
                shown = f"{key}, {model_names[m[i]]}, " + ("" if condition == "default" else f"condition {condition}, ")
                problems.append(f"line {line}: ({shown}repeat {r[i]}) repeats line {first[i]}")
    benchmarks = {benchmark for _, benchmark, _ in questions.values()}
    if len(benchmarks) > 1:
        names = dict(Question.objects.filter(benchmark_id__in=benchmarks).values_list("benchmark_id", "benchmark__name")
                     .distinct())
        problems.append("the file mixes questions of several benchmarks: " + ", ".join(sorted(names.values())))
    if problems or not len(lines):
        return problems or ["the file has no answers"], None
    return [], {"questions": questions, "conditions": found_conditions, "models": model_names,
                "repeats": int(r_a.max()) + 1, "benchmark": benchmarks.pop(), "rows": len(lines)}


def _read_row(line: int, record: dict, max_repeat: int, model_length: int):
    """One row of pass 1: (question key, model, condition, repeat, option order), or the
    problem that keeps it out."""
    key = (record.get("question_key") or "").strip()
    model = (record.get("model") or "").strip()
    try:
        repeat = int((record.get("repeat") or "0").strip() or 0)
        if not 0 <= repeat < 2 ** 62:
            raise ValueError
    except ValueError:
        return f"line {line}: repeat {record.get('repeat')!r} is not a whole number >= 0"
    if not key or not model:
        return f"line {line}: question_key and model are required"
    if repeat > max_repeat:
        return f"line {line}: repeat {repeat} is more than the {max_repeat} a run can hold"
    if len(model) > model_length:
        return (f"line {line}: model {model[:40]!r}… is {len(model)} characters long; at most "
                f"{model_length} fit")
    try:
        order = parse_option_order(record.get("option_order"))
    except ValueError:
        return (f"line {line}: option_order {record.get('option_order')!r} is not the options' "
                "indexes 0..n-1 in the order shown (e.g. 1 0 2)")
    condition = (record.get("condition") or "").strip() or "default"
    return key, model, condition, repeat, order


def _questions(keys) -> dict[str, tuple[int, int, int]]:
    """key -> (pk, benchmark id, choice count) of every existing question among `keys`."""
    found = {}
    names = list(keys)
    for start in range(0, len(names), LOOKUP_CHUNK):
        for key, pk, benchmark, choices in Question.objects.filter(key__in=names[start:start + LOOKUP_CHUNK]) \
                .values_list("key", "pk", "benchmark_id", "choice_count"):
            found[key] = (pk, benchmark, choices)
    return found


def _first_lines(q, m, c, r, lines) -> np.ndarray:
    """For each row, the line of the first earlier row with the same (question, model,
    condition, repeat), or -1: a stable sort groups equal units in file order."""
    first = np.full(len(lines), -1, dtype=np.int64)
    if len(lines) < 2:
        return first
    order = np.lexsort((np.arange(len(lines)), r, c, m, q))
    same = np.zeros(len(order), dtype=bool)
    same[1:] = ((q[order][1:] == q[order][:-1]) & (m[order][1:] == m[order][:-1])
                & (c[order][1:] == c[order][:-1]) & (r[order][1:] == r[order][:-1]))
    if not same.any():
        return first
    # The start of each group of equal units, carried forward over its repeats.
    group_start = np.where(~same, np.arange(len(order)), 0)
    group_start = np.maximum.accumulate(group_start)
    first[order[same]] = lines[order[group_start[same]]]
    return first


def _write(opened, summary, imported_by, progress: Progress | None, create_run) -> Run:
    """Pass 2 (the file is sound): the run and its answers, in batches, in one transaction."""
    questions, conditions = summary["questions"], summary["conditions"]
    benchmark = Benchmark.objects.get(pk=summary["benchmark"])
    with transaction.atomic():
        models = {}
        for name in sorted(summary["models"]):
            existing = LLMModel.objects.filter(name=name).first()
            models[name] = existing or LLMModel.objects.create(
                name=name, is_external=True, answer_mode=LLMModel.AnswerMode.GENERATE,
                notes="Created by import_responses: answers collected outside the tool; never called.")
        # The conditions the rows name: every one found was used by some row.
        run = create_run(Run.Kind.IMPORT, benchmark, models.values(), set(conditions.values()),
                         selection={"imported": True}, repeats=summary["repeats"], note="imported answers",
                         launched_by=imported_by)
        insert = unit_rows.RowInsert(run=run, question_id=0, model_id=0, condition_id=0, repeat=0,
                                     status=Response.Status.DONE, raw_output="", resolved_model="", option_order=[],
                                     answered_at=timezone.now())
        batch = []
        with opened() as stream:
            rows = _rows(stream)
            next(rows)
            for count, (_, record) in enumerate(rows, start=1):
                key, model = record["question_key"].strip(), record["model"].strip()
                question_id, _, choices = questions[key]
                condition = (record.get("condition") or "").strip() or "default"
                order = parse_option_order(record.get("option_order"))
                batch.append(insert.row(question_id=question_id, model_id=models[model].pk,
                                        condition_id=conditions[condition].pk,
                                        repeat=int((record.get("repeat") or "0").strip() or 0),
                                        raw_output=record.get("output") or "", resolved_model=model,
                                        option_order=insert.order(choices) if order is None else
                                        insert.prepare["option_order"].get_db_prep_save(order, connection)))
                if len(batch) == BATCH:
                    insert.write(batch)
                    batch = []
                    if progress:
                        progress(stream.bytes_read or count, stream.size, "writing")
            insert.write(batch)
        families.family(benchmark.family).mark_asked([pk for pk, _, _ in questions.values()], run.pk)
        # Coded in the same transaction: an import is whole, codes and review tasks included.
        if progress:
            progress(summary["rows"], None, "coding the answers")
        responses_imported.send(sender=Run, run_id=run.pk)
    return run


def _import(opened, imported_by, progress: Progress | None, create_run) -> ResponseImport:
    problems, summary = _check(opened, progress)
    if problems:
        return ResponseImport(None, 0, problems)
    run = _write(opened, summary, imported_by, progress, create_run)
    return ResponseImport(run, summary["rows"], [])


# services.import_responses and services.import_response_file call these with its
# create_run (passed in: services imports this module, not the other way round).

def import_text(text: str, create_run, imported_by=None, progress: Progress | None = None) -> ResponseImport:
    return _import(lambda: _lines_of_text(text), imported_by, progress, create_run)


def import_file(path, create_run, imported_by=None, progress: Progress | None = None) -> ResponseImport:
    return _import(_lines_of_file(path), imported_by, progress, create_run)
