"""Hugging Face dataset folders on the database: a benchmark's questions, or a run's tidy
answers, written as a folder `datasets.load_dataset(folder)` loads (formats_app.hf_dataset);
a run's answers folder imported back through `import_responses`' path (its checks, one
atomic write, the encoder), as an Inspect log is."""

from __future__ import annotations

import csv
import io
import math
import re
from dataclasses import dataclass, field
from datetime import timezone
from pathlib import Path

import pyarrow as pa
from django.db import transaction

from benchmarks_app import families
from benchmarks_app.lettering import LETTERS
from benchmarks_app.models import Benchmark
from benchmarks_app.services import current_questions
from runs_app import services as run_services
from runs_app.models import Response, Run

from . import hf_dataset
from .hf_dataset import FolderError
from .inspect_log import model_slug

QUESTION_COLUMNS = [("question_key", pa.string()), ("benchmark", pa.string()), ("family", pa.string()),
                    ("kind", pa.string()), ("language", pa.string()), ("text", pa.string()),
                    ("choices", pa.list_(pa.string())), ("choice_count", pa.int32())]
ANSWER_COLUMNS = [("run", pa.int64()), ("question_key", pa.string()), ("model", pa.string()),
                  ("resolved_model", pa.string()), ("condition", pa.string()), ("repeat", pa.int32()),
                  ("status", pa.string()), ("output", pa.string()), ("finish_reason", pa.string()),
                  ("code", pa.string()), ("code_source", pa.string()), ("chosen_option", pa.int32()),
                  ("chosen_text", pa.string()), ("choices", pa.list_(pa.string())),
                  ("option_order", pa.list_(pa.int32())),
                  ("prompt_tokens", pa.int64()), ("completion_tokens", pa.int64()), ("latency_ms", pa.int64()),
                  ("answered_at", pa.timestamp("us", tz="UTC"))]
IMPORT_COLUMNS = ["question_key", "model", "repeat", "output"]  # and condition, option_order: optional


def _with_family_fields(rows: list[dict], extras: list[dict], columns) -> pa.Table:
    """The table of `rows` (our columns) and each row's family fields (`extras`), typed
    from their values; a field named as one of ours gets the family's name as a prefix."""
    ours = {name for name, _ in columns}
    names = list(dict.fromkeys(key for extra in extras for key in extra))
    fields = [pa.field(name, kind) for name, kind in columns]
    data = {name: [row[name] for row in rows] for name, _ in columns}
    for name in names:
        values = [extra.get(name) for extra in extras]
        kind = hf_dataset.infer_type(values)
        column = f"family_{name}" if name in ours else name
        fields.append(pa.field(column, kind))
        data[column] = [hf_dataset.as_type(v, kind) for v in values]
    schema = pa.schema(fields)
    return pa.table({f.name: pa.array(data[f.name], type=f.type) for f in schema}, schema=schema)


def questions_table(benchmark: Benchmark) -> pa.Table:
    rows, extras = [], []
    for question in current_questions(benchmark).order_by("key"):
        texts = question.option_texts() if question.options else []
        rows.append({"question_key": question.key, "benchmark": benchmark.name, "family": benchmark.family,
                     "kind": question.kind, "language": question.language, "text": question.text,
                     "choices": texts, "choice_count": len(texts)})
        extras.append(families.sample_metadata(question, benchmark.family))
    return _with_family_fields(rows, extras, QUESTION_COLUMNS)


def answers_table(run: Run) -> pa.Table:
    rows, extras, family_fields = [], [], {}
    responses = (Response.objects.answers().filter(run=run).select_related("question", "model", "condition")
                 .order_by("model__name", "question__key", "condition__name", "repeat"))
    for response in responses.iterator(chunk_size=2000):
        question = response.question
        texts = question.option_texts() if question.options else []
        index = LETTERS.index(response.code) if response.code and response.code in LETTERS else None
        answered = response.answered_at.astimezone(timezone.utc) if response.answered_at else None
        rows.append({
            "run": run.pk, "question_key": question.key, "model": response.model.name,
            "resolved_model": response.resolved_model, "condition": response.condition.name,
            "repeat": response.repeat, "status": response.status, "output": response.raw_output,
            "finish_reason": response.finish_reason, "code": response.code or None,
            "code_source": response.code_source or None, "chosen_option": index,
            "chosen_text": texts[index] if index is not None and index < len(texts) else None, "choices": texts,
            "option_order": list(response.option_order or range(len(texts))),
            "prompt_tokens": response.prompt_tokens, "completion_tokens": response.completion_tokens,
            "latency_ms": response.latency_ms, "answered_at": answered})
        if question.pk not in family_fields:  # asked once per question, not per answer
            family_fields[question.pk] = families.sample_metadata(question, run.benchmark.family)
        extras.append(family_fields[question.pk])
    return _with_family_fields(rows, extras, ANSWER_COLUMNS)


_QUESTIONS_BODY = """One row per current question of the benchmark {name!r} ({family}), as CFPD Workbench
asks it: `text` and its options in canonical order (`choices`; the letter A is the first).
`eval.yaml` names it as a benchmark for the Hub (one task, this config and split).
The questions have no right answer: a model's answer is coded as the option it chose, or R
for a refusal. Export of the tool's own: `export_hf_dataset --benchmark {name}`; run them
in Inspect AI with `export_inspect_task`."""

_ANSWERS_BODY = """One row per answer of run {run} of the benchmark {name!r} ({family}): the question
(`question_key`), the model, the condition and the repeat, the model's text (`output`), its
code (`code`: A-J, the canonical option; R, a refusal; empty, not coded yet) with how it was
coded (`code_source`), the chosen option's index and text, the order the options were
shown in (`option_order`: canonical indexes; the letter the model gave names the option at
that position), token usage and time.
Import it back with `import_hf_dataset FOLDER`."""


def write_hf_dataset(benchmark: Benchmark, out: str | Path, run: Run | None = None) -> tuple[Path, Path, int]:
    """(parquet, card, rows) of the benchmark's questions, or of the run's answers when given."""
    if run is not None and run.benchmark_id != benchmark.pk:
        raise FolderError(f"run {run.pk} is a run of {run.benchmark.name}, not of {benchmark.name}")
    label = families.label(benchmark.family)
    title = benchmark.title or benchmark.name
    if run is None:
        table = questions_table(benchmark)
        parquet, readme = hf_dataset.write_folder(
            out, table, pretty_name=f"{title}: questions", description=benchmark.description or title,
            tags=["cfpd-workbench", benchmark.family], task_categories=["multiple-choice"],
            body=_QUESTIONS_BODY.format(name=benchmark.name, family=label),
            # The questions have no right answer: what a model chose is counted by this
            # product's coding, so it is the evaluation framework the Hub is told of.
            benchmark={"task_id": benchmark.name, "framework": "cfpd-workbench"})
    else:
        table = answers_table(run)
        parquet, readme = hf_dataset.write_folder(
            out, table, pretty_name=f"{title}: answers of run {run.pk}", description=run.note or title,
            tags=["cfpd-workbench", benchmark.family, "model-answers"], task_categories=["multiple-choice"],
            body=_ANSWERS_BODY.format(run=run.pk, name=benchmark.name, family=label))
    return parquet, readme, table.num_rows


# --- import ----------------------------------------------------------------------------

@dataclass
class DatasetImport:
    run: Run | None
    created: int
    problems: list[str] = field(default_factory=list)


def _text(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value)


def import_hf_answers(folder: str | Path, benchmark_name: str | None = None, imported_by=None,
                      progress=None) -> DatasetImport:
    """A folder of answers (export_hf_dataset --run, or any with the columns question_key,
    model, repeat, output and optionally condition) as an imported run. Rows are named by
    their number in the table (row 1 is the first)."""
    try:
        table = hf_dataset.read_table(folder)
    except FolderError as exc:
        return DatasetImport(None, 0, [f"folder: {exc}"])
    missing = [c for c in IMPORT_COLUMNS if c not in table.column_names]
    if missing:
        return DatasetImport(None, 0, [f"folder: missing column(s) {', '.join(missing)}; a folder of answers has "
                                       + ", ".join(IMPORT_COLUMNS) + " (and condition, option_order)"])
    columns = {name: table.column(name).to_pylist() for name in IMPORT_COLUMNS + ["condition", "option_order"]
               if name in table.column_names}
    nothing = [None] * table.num_rows
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(IMPORT_COLUMNS + ["condition", "option_order"])
    problems = []
    for i in range(table.num_rows):
        model = _text(columns["model"][i])
        slug = model_slug(model) if model else ""
        repeat = columns["repeat"][i]
        if isinstance(repeat, float) and repeat.is_integer():
            repeat = int(repeat)
        order = columns.get("option_order", nothing)[i]
        writer.writerow([_text(columns["question_key"][i]), slug, _text(repeat), _text(columns["output"][i]),
                         _text(columns.get("condition", nothing)[i]),
                         " ".join(map(str, order)) if isinstance(order, list) else _text(order)])
    if benchmark_name is not None:
        benchmark = Benchmark.objects.filter(name=benchmark_name).first()
        if benchmark is None:
            return DatasetImport(None, 0, [f"no benchmark named {benchmark_name!r}"])
        keys = {_text(k) for k in columns["question_key"]}
        known = set(benchmark.questions.filter(key__in=keys).values_list("key", flat=True))
        problems += [f"question {key!r} is not in benchmark {benchmark_name}" for key in sorted(keys - known)][:50]
    if problems:
        return DatasetImport(None, 0, problems)
    with transaction.atomic():
        result = run_services.import_responses(out.getvalue(), imported_by=imported_by, progress=progress)
    if result.run is None:
        # The CSV's line n is the table's row n - 1.
        return DatasetImport(None, 0, [_row_of(p) for p in result.problems])
    result.run.note = "imported from a Hugging Face dataset folder"
    result.run.save(update_fields=["note"])
    return DatasetImport(result.run, result.created)


def _row_of(problem: str) -> str:
    return re.sub(r"line (\d+)", lambda m: f"row {int(m.group(1)) - 1}", problem)
