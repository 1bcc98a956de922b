"""`import_responses PATH`: answers collected outside the tool (CSV question_key, model, repeat, output)."""

import io
import re

from django.core.management.base import BaseCommand, CommandError

from benchmarks_app.progress import file_progress
from benchmarks_app.text_files import TableError, open_text, slug_problem, stream_records
from runs_app.models import LLMModel
from runs_app.services import IMPORT_COLUMNS, import_response_file

# A repeat is the index of one of a run's repeated askings; no run repeats a question
# a thousand times, and a larger number is a shifted column or a typo.
MAX_REPEATS = 1000
_DIGITS = re.compile(r"[0-9]+")


def model_name_problem(name: str, registered: set[str]) -> str | None:
    """Why `name` cannot become a registered model's name, or None. The name is the
    LLMModel.name (a slug: letters, digits, - and _, at most 80), not a LiteLLM string:
    `gpt-4o`, `claude-web`, `llama-3_1-8b`. Names already registered are accepted as they are."""
    if name in registered or not name:  # an empty model is the service's "required" problem
        return None
    problem = slug_problem(name, LLMModel._meta.get_field("name").max_length)
    return f"model {problem}" if problem else None


def repeat_problem(value: str) -> str | None:
    """Repeats the service would store but no run has: beyond MAX_REPEATS, or not written
    with the digits 0-9 (`1_000`, `+3`, `٣`). Other bad repeats are the service's to report."""
    value = value.strip()
    if not value:
        return None
    try:
        number = int(value)
    except ValueError:
        return None
    if not _DIGITS.fullmatch(value) or not 0 <= number < MAX_REPEATS:
        return f"repeat {value[:20]!r} must be a whole number from 0 to {MAX_REPEATS - 1}, written with digits 0-9"
    return None


def check_answer_file(source) -> list[str]:
    """What the service does not check itself: a CSV that cannot be read, rows that do not
    fit the header, model names that cannot be registered, repeats out of range. `source`
    is a CSV text or its lines (a stream: one row in memory at a time)."""
    lines = io.StringIO(source.removeprefix("\ufeff"), newline="") if isinstance(source, str) else source
    try:
        columns, records = stream_records(lines)
        if any(c not in columns for c in IMPORT_COLUMNS):
            return []  # the service names the missing columns
        registered = set(LLMModel.objects.values_list("name", flat=True))
        problems = []
        for record in records:
            shape = record.shape_problem(columns, IMPORT_COLUMNS[:3])
            found = [shape] if shape else [model_name_problem(record.cells["model"].strip(), registered),
                                           repeat_problem(record.cells["repeat"])]
            problems += [f"line {record.line}: {problem}" for problem in found if problem]
    except TableError as exc:
        return [str(exc)]
    return problems


class Command(BaseCommand):
    help = ("Import answers produced elsewhere (UTF-8 CSV: question_key, model, repeat, output), keyed as "
            "export_questions writes them. Atomic: any bad row and nothing is written; every bad row is reported. "
            "A model name not yet registered becomes an external model that is never called: it must be a slug "
            "(letters, digits, - and _, at most 80 characters); repeats run from 0 to "
            f"{MAX_REPEATS - 1}. The file is read as a stream (memory does not grow with its size); progress goes "
            "to stderr.")

    def add_arguments(self, parser):
        parser.add_argument("path")

    def handle(self, *args, path, **options):
        progress = file_progress(self.stderr, "answers")
        try:
            with open_text(path) as stream:
                problems = check_answer_file(stream)
            result = None
            if not problems:
                result = import_response_file(path, progress=progress)
        except OSError as exc:
            raise CommandError(f"{path}: {exc.strerror}") from None
        except TableError as exc:
            raise CommandError(f"{path}: {exc}") from None
        finally:
            progress.close()
        if result is not None:
            # Whole-file problems ("the file has no answers") read as the other importers' do.
            problems = [p if p.startswith(("line ", "file:")) else f"file: {p}" for p in result.problems]
        if problems:
            for problem in problems:
                self.stdout.write(f"{path}: {problem}")
            raise CommandError(f"{len(problems)} problem(s); nothing was imported")
        self.stdout.write(self.style.SUCCESS(
            f"imported {result.created} answers as run {result.run.pk} ({result.run.benchmark.name})"))
