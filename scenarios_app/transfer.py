"""Moving scenarios and questions in and out: the Table 3 CSV and a JSON with every
field for scenarios, and the question CSV a team uses to ask models elsewhere.

An import is atomic: every row is checked first, and a file with any bad row writes
nothing and reports each bad row with its line number.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.db import transaction

from benchmarks_app.text_files import open_text, stream_records
from kit.csv_safety import SafeWriter

from . import services
from .bulk_save import BulkSaver
from .notation import ActorSetText
from .prompting import chat_messages, render_transcript
from .table_format import REQUIRED_COLUMNS, TableError, TableRow, decode_text, read_row, read_table, write_table
from .validation import OptionSpec, Problem, ScenarioSpec, check_benchmark_name, check_key
from .models import Benchmark, Question, Scenario

JSON_FORMAT = "cfpd-scenarios"
JSON_FORMAT_VERSION = 1


class ImportFileError(ValueError):
    """The file cannot be read at all (not text, format, columns, JSON syntax), or the
    import cannot start (a benchmark name that is not a slug). The message starts
    `file:` or `line N:` (or names the option at fault)."""


@dataclass
class ImportReport:
    benchmark: str
    dry_run: bool
    rows: list[TableRow] = field(default_factory=list)
    outcomes: list[tuple[int, str, str]] = field(default_factory=list)  # line, key, action

    # Found once, after the checks: the command asks `ok` for every line it prints, and a
    # scan of every row per printed line made a report of a million rows quadratic.
    _bad_rows: list[TableRow] | None = field(default=None, init=False, repr=False, compare=False)

    def _find_bad_rows(self) -> list[TableRow]:
        return [row for row in self.rows if row.problems]

    @property
    def bad_rows(self) -> list[TableRow]:
        if self._bad_rows is None:
            self._bad_rows = self._find_bad_rows()
        return self._bad_rows

    @property
    def ok(self) -> bool:
        return not self.bad_rows

    def lines(self) -> list[str]:
        """The report as text lines, for the command and the admin upload page."""
        out = []
        for row in self.rows if self.ok else []:
            for inference in row.inferences:
                out.append(f"line {row.line} ({row.spec.key}): inferred {inference}")
        for row in self.bad_rows:
            for problem in row.problems:
                out.append(f"line {row.line} ({row.spec.key}): {problem}")
        for line, key, action in self.outcomes:
            out.append(f"line {line} ({key}): {'would be ' if self.dry_run else ''}{action}")
        return out

    def summary(self) -> str:
        if not self.ok:
            return (f"{len(self.bad_rows)} of {len(self.rows)} rows have problems; nothing was imported "
                    f"into {self.benchmark!r}. Fix the rows above and import again.")
        counts: dict[str, int] = {}
        for _, _, action in self.outcomes:
            counts[action] = counts.get(action, 0) + 1
        done = ", ".join(f"{n} {action}" for action, n in sorted(counts.items())) or "nothing to do"
        prefix = "dry run, nothing written" if self.dry_run else "imported"
        return f"{prefix}: {len(self.rows)} scenarios into {self.benchmark!r} ({done})"


def _kind(value) -> str:
    """A JSON value's type in words, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list) else "an object"


def _spec_from_json(n: int, item) -> tuple[ScenarioSpec, list[Problem]]:
    """One entry of a JSON export as a spec, with a problem for every value of the wrong type."""
    problems: list[Problem] = []
    if not isinstance(item, dict):
        empty = ScenarioSpec(key=f"#{n}", domain=None, comparison=None, template="", options=[], qualified_actor=None)
        return empty, [Problem("scenario", f"is {_kind(item)}; each entry of \"scenarios\" must be an object with "
                                           "key, domain, comparison, template, options and dyads")]

    def text(obj: dict, name: str, where: str, required: bool = True) -> str | None:
        """The string at obj[name]; a problem when it is missing (if required) or not a string."""
        value = obj.get(name)
        if isinstance(value, str):
            return value
        if value is not None:
            problems.append(Problem(where, f"is {_kind(value)}; write it as a string"))
        elif required:
            problems.append(Problem(where, "is missing; write it as a string"))
        return "" if required else None

    key = text(item, "key", "key")
    options = []
    raw_options = item.get("options")
    option_shape = '{"text": ..., "category": ...}'
    if not isinstance(raw_options, list):
        problems.append(Problem("options", f"is {_kind(raw_options)}; write a list of {option_shape} objects"))
    else:
        for i, option in enumerate(raw_options, start=1):
            if not isinstance(option, dict):
                problems.append(Problem(f"options[{i}]", f"is {_kind(option)}; write {option_shape}"))
                continue
            options.append(OptionSpec(text(option, "text", f"options[{i}].text") or "",
                                      text(option, "category", f"options[{i}].category", required=False)))
    dyads = []
    raw_dyads = item.get("dyads", [])
    if not isinstance(raw_dyads, list):
        problems.append(Problem("dyads", f'is {_kind(raw_dyads)}; write a list of pairs such as ["CN", "RU"]'))
    else:
        for i, pair in enumerate(raw_dyads, start=1):
            if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(code, str) for code in pair)):
                what = "not two strings" if isinstance(pair, list) else _kind(pair)
                problems.append(Problem(f"dyads[{i}]", f'is {what}; write a pair of actor codes such as ["CN", "RU"]'))
                continue
            dyads.append((pair[0].strip().upper(), pair[1].strip().upper()))
    spec = ScenarioSpec(
        key=key or f"#{n}", domain=text(item, "domain", "domain"), comparison=text(item, "comparison", "comparison"),
        template=text(item, "template", "template") or "", options=options,
        qualified_actor=text(item, "qualified_actor", "qualified_actor", required=False),
        dyads=dyads, notes=text(item, "notes", "notes", required=False) or "",
    )
    return spec, problems


def _rows_from_json(text: str) -> list[TableRow]:
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ImportFileError(f"line {exc.lineno}: not valid JSON ({exc.msg})") from None
    except RecursionError:
        raise ImportFileError("file: the JSON is nested too deeply to be a scenario export") from None
    except ValueError as exc:  # e.g. an integer with more digits than Python converts
        raise ImportFileError(f"file: not a readable JSON file ({exc})") from None
    if not isinstance(document, dict) or document.get("format") != JSON_FORMAT:
        raise ImportFileError(
            f'file: not a scenario export: expected {{"format": "{JSON_FORMAT}", "scenarios": [...]}}')
    scenarios = document.get("scenarios")
    if not isinstance(scenarios, list):
        raise ImportFileError(f'file: "scenarios" is {_kind(scenarios)}; it must be a list of scenario objects')
    rows = []
    for n, item in enumerate(scenarios, start=1):
        spec, problems = _spec_from_json(n, item)
        rows.append(TableRow(line=n, spec=spec, actor_set=ActorSetText(pairs=list(spec.dyads)), problems=problems))
    return rows


def read_scenarios(text: str, fmt: str, taxonomy) -> list[TableRow]:
    if fmt == "json":
        return _rows_from_json(text)
    try:
        return read_table(text, taxonomy)
    except TableError as exc:
        raise ImportFileError(str(exc)) from None


def detect_format(name: str, text: str) -> str:
    return "json" if name.lower().endswith(".json") or text.lstrip().startswith("{") else "csv"


def import_scenarios(text: str, benchmark_name: str = "default", fmt: str = "csv", dry_run: bool = False,
                     author=None) -> ImportReport:
    """Check every row, then (unless a dry run or any row is bad) write them all at once."""
    name_problems = check_benchmark_name(benchmark_name)
    if name_problems:
        raise ImportFileError(f"--benchmark {benchmark_name!r}: {name_problems[0].message}")
    taxonomy = services.taxonomy_from_db()
    rows = read_scenarios(text, fmt, taxonomy)
    report = ImportReport(benchmark=benchmark_name, dry_run=dry_run, rows=rows)
    known = services.known_actor_codes()
    seen_keys: dict[str, int] = {}
    for row in rows:
        _check_row(row, taxonomy, known, seen_keys)
    if not report.ok:
        return report
    with transaction.atomic():
        benchmark = Benchmark.objects.filter(name=benchmark_name).first()
        if benchmark is None:
            benchmark = Benchmark(name=benchmark_name, title=benchmark_name)
            if not dry_run:
                benchmark.save()
        saver = BulkSaver(benchmark, author=author)
        for start in range(0, len(rows), WRITE_CHUNK):
            chunk = rows[start:start + WRITE_CHUNK]
            specs = [row.spec for row in chunk]
            actions = saver.plan(specs, _planned_action) if dry_run else saver.save(specs)
            report.outcomes += [(row.line, row.spec.key, action) for row, action in zip(chunk, actions)]
    return report


def _check_row(row: TableRow, taxonomy, known: set[str], seen_keys: dict[str, int]) -> None:
    """Every check of one row read from the file, added to its problems; its named actor
    sets resolved into its dyads."""
    pairs, set_problems = services.resolve_actor_set(row.actor_set)
    row.spec.dyads = pairs
    row.problems += set_problems
    if not any(problem.field.lower() == "key" for problem in row.problems):
        row.problems += check_key(row.spec.key)
    if not row.problems:
        row.problems += services.validate_spec(row.spec, taxonomy, known)
    if seen_keys is not None:
        if row.spec.key in seen_keys:
            row.problems.append(Problem("Key", f"{row.spec.key!r} is also used on line {seen_keys[row.spec.key]}; "
                                        "give each scenario its own key"))
        seen_keys.setdefault(row.spec.key, row.line)


# --- a Table 3 CSV of any size -------------------------------------------------------------

@dataclass
class StreamedImport:
    """What `import_scenario_file` did: counts only; its lines went to `emit` as found."""

    benchmark: str
    dry_run: bool
    rows: int = 0
    bad: int = 0
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.bad

    def summary(self) -> str:
        if not self.ok:
            return (f"{self.bad} of {self.rows} rows have problems; nothing was imported "
                    f"into {self.benchmark!r}. Fix the rows above and import again.")
        done = ", ".join(f"{n} {action}" for action, n in sorted(self.counts.items())) or "nothing to do"
        prefix = "dry run, nothing written" if self.dry_run else "imported"
        return f"{prefix}: {self.rows} scenarios into {self.benchmark!r} ({done})"


def _table_rows(stream, taxonomy):
    """(line, TableRow) of a Table 3 CSV stream, one at a time (read_table's checks)."""
    try:
        columns, records = stream_records(stream)
    except TableError as exc:
        raise ImportFileError(str(exc)) from None
    missing = [c for c in REQUIRED_COLUMNS if c not in columns]
    if missing:
        raise ImportFileError("line 1: missing column(s) " + ", ".join(missing)
                              + "; the header must have " + ", ".join(REQUIRED_COLUMNS))
    try:
        for record in records:
            row = read_row(record.line, record.cells, taxonomy)
            shape = record.shape_problem(columns, REQUIRED_COLUMNS)
            if shape:
                row.problems.insert(0, Problem("row", shape))
            yield row
    except TableError as exc:
        raise ImportFileError(str(exc)) from None


def import_scenario_file(path, benchmark_name: str = "default", dry_run: bool = False, author=None,
                         emit=None, progress=None) -> StreamedImport:
    """`import_scenarios` for a Table 3 CSV of any size: the same checks, lines and summary,
    one row in memory at a time. The file is read twice (checks; then, if every row is
    sound, the writes in one transaction); the report's lines go to `emit(line, bad)` as
    they are found (a bad row's problems at once; the inferences, kept in a temporary
    file, only once the whole file is known to be sound, as `ImportReport.lines` orders
    them). `progress(done, total, phase)` by bytes read. OSError when the file cannot be
    opened; ImportFileError when it cannot be read as a table."""
    emit = emit or (lambda line, bad: None)
    name_problems = check_benchmark_name(benchmark_name)
    if name_problems:
        raise ImportFileError(f"--benchmark {benchmark_name!r}: {name_problems[0].message}")
    taxonomy = services.taxonomy_from_db()
    known = services.known_actor_codes()
    report = StreamedImport(benchmark=benchmark_name, dry_run=dry_run)
    seen_keys: dict[str, int] = {}
    with tempfile.TemporaryFile("w+", encoding="utf-8") as inferences:
        with open_text(path) as stream:
            for row in _table_rows(stream, taxonomy):
                _check_row(row, taxonomy, known, seen_keys)
                report.rows += 1
                if row.problems:
                    report.bad += 1
                    for problem in row.problems:
                        emit(f"line {row.line} ({row.spec.key}): {problem}", True)
                elif not report.bad:
                    for inference in row.inferences:
                        inferences.write(f"line {row.line} ({row.spec.key}): inferred {inference}\n")
                if progress and report.rows % 5000 == 0:
                    progress(stream.bytes_read, stream.size, "checking")
        if not report.ok:
            return report
        inferences.seek(0)
        for line in inferences:
            emit(line.rstrip("\n"), False)
    del seen_keys
    # One transaction over the whole file: a chunk that fails leaves nothing written.
    with transaction.atomic():
        benchmark = Benchmark.objects.filter(name=benchmark_name).first()
        if benchmark is None:
            benchmark = Benchmark(name=benchmark_name, title=benchmark_name)
            if not dry_run:
                benchmark.save()
        saver = BulkSaver(benchmark, author=author)
        with open_text(path) as stream:
            chunk: list[TableRow] = []
            for row in _table_rows(stream, taxonomy):
                _check_row(row, taxonomy, known, None)  # resolves the actor sets again
                chunk.append(row)
                if len(chunk) == WRITE_CHUNK:
                    _write_chunk(saver, chunk, dry_run, report, emit)
                    chunk = []
                    if progress:
                        progress(stream.bytes_read, stream.size, "dry run" if dry_run else "writing")
            _write_chunk(saver, chunk, dry_run, report, emit)
    return report


WRITE_CHUNK = 1000  # rows saved together: new keys in a few inserts per table (bulk_save)


def _write_chunk(saver: BulkSaver, rows: list[TableRow], dry_run: bool, report: StreamedImport, emit):
    specs = [row.spec for row in rows]
    actions = saver.plan(specs, _planned_action) if dry_run else saver.save(specs)
    for row, action in zip(rows, actions):
        report.counts[action] = report.counts.get(action, 0) + 1
        emit(f"line {row.line} ({row.spec.key}): {'would be ' if dry_run else ''}{action}", False)


def _planned_action(benchmark: Benchmark, spec: ScenarioSpec) -> str:
    if benchmark.pk is None:
        return "created"
    current = Scenario.objects.filter(benchmark=benchmark, key=spec.key, is_current=True).first()
    if current is None:
        return "created"
    if services.same_content(services.spec_of(current), spec) and current.notes == spec.notes:
        return "unchanged"
    return "new-version" if current.is_frozen else "updated"


def _current_scenarios(benchmark: Benchmark):
    return (Scenario.objects.filter(benchmark=benchmark, is_current=True)
            .select_related("domain", "comparison", "author").order_by("domain__position", "key"))


def export_scenarios(benchmark: Benchmark, fmt: str = "csv") -> str:
    """The current version of every scenario, as Table 3 CSV or as JSON with every field."""
    scenarios = list(_current_scenarios(benchmark))
    if fmt == "csv":
        return write_table([services.spec_of(s) for s in scenarios], services.taxonomy_from_db())
    items = []
    for scenario in scenarios:
        spec = services.spec_of(scenario)
        items.append({
            "key": spec.key, "version": scenario.version, "domain": spec.domain,
            "sub_dimension": scenario.comparison.sub_dimension.slug, "comparison": spec.comparison,
            "template": spec.template, "qualified_actor": spec.qualified_actor,
            "options": [{"position": n, "text": o.text, "category": o.category}
                        for n, o in enumerate(spec.options, start=1)],
            "dyads": [list(pair) for pair in spec.dyads],
            "status": scenario.status, "notes": spec.notes,
            "author": scenario.author.get_username() if scenario.author else None,
            "frozen": scenario.is_frozen,
            "reviewers": sorted({r.reviewer.get_username() for r in scenario.reviews.filter(
                content_hash=scenario.content_hash).select_related("reviewer")}),
        })
    document = {"format": JSON_FORMAT, "format_version": JSON_FORMAT_VERSION, "benchmark": benchmark.name,
                "scenarios": items}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


QUESTION_COLUMNS = ["question_key", "benchmark", "scenario", "scenario_version", "domain", "comparison", "variant",
                    "choice_count", "actor_a", "actor_b", "qualified_actor", "option_a", "option_b", "option_c",
                    "categories", "prompt", "territory", "language", "choices", "claimants_en"]


def export_questions(out, benchmark: Benchmark | None = None) -> int:
    """Write every question (current versions) as CSV to the text stream `out`; returns the count.

    `question_key` is stable across exports: answers collected outside the tool come
    back by it. `prompt` is the exact A.4 transcript (system and user turns).
    """
    writer = SafeWriter(out, lineterminator="\n")  # prompts and options are free text: no formulas
    writer.writerow(QUESTION_COLUMNS)
    questions = Question.objects.filter(cfpd__scenario__is_current=True)
    if benchmark is not None:
        questions = questions.filter(benchmark=benchmark)
    questions = questions.select_related(
        "benchmark", "cfpd__scenario__comparison", "cfpd__domain", "cfpd__actor_a", "cfpd__actor_b",
        "cfpd__qualified_actor").order_by("key")
    count = 0
    for q in questions.iterator(chunk_size=2000):
        texts = [q.options[i]["text"] for i in q.option_order]
        lettered = texts + [""] * (3 - len(texts))
        c = q.cfpd
        writer.writerow([
            q.key, q.benchmark.name, c.scenario.key, c.scenario.version, c.domain.name, c.scenario.comparison.name,
            c.variant, q.choice_count, c.actor_a.code, c.actor_b.code, c.qualified_actor.code, *lettered[:3],
            ";".join(q.options[i]["category"] for i in q.option_order),
            render_transcript(chat_messages(q.text, q.option_texts(), q.option_order)), "", q.language, "", "",
        ])
        count += 1
    return count + _export_family_questions(writer, benchmark)


def _export_family_questions(writer, benchmark: Benchmark | None) -> int:
    """Territorial-disputes questions: the CFPD columns empty; territory, language, the
    choices as shown (JSON, letter order) and the same claimants in English."""
    questions = Question.objects.filter(is_current=True, borderlines__isnull=False)
    if benchmark is not None:
        questions = questions.filter(benchmark=benchmark)
    count = 0
    for q in questions.select_related("benchmark", "borderlines__territory").order_by("key").iterator(chunk_size=2000):
        d = q.borderlines
        texts = [q.options[i]["text"] for i in q.option_order]
        lettered = texts + [""] * (3 - len(texts))
        writer.writerow([q.key, q.benchmark.name, "", "", "", "", "", q.choice_count, "", "", "", *lettered[:3], "",
                         render_transcript([{"role": "user", "content": q.text}]), d.territory.name, q.language,
                         json.dumps(d.choices, ensure_ascii=False), json.dumps(d.claimants_en, ensure_ascii=False)])
        count += 1
    return count


def default_author():
    users = get_user_model()
    return users.objects.filter(is_superuser=True).order_by("pk").first()


def decode_upload(data: bytes) -> str:
    """The text of an uploaded or read file; ImportFileError when it is not UTF-8 text."""
    try:
        return decode_text(data)
    except TableError as exc:
        raise ImportFileError(str(exc)) from None


def read_text(path: str) -> str:
    """The text of the file at `path` (OSError when it cannot be opened; ImportFileError
    when it is not UTF-8 text: binary, UTF-16, empty)."""
    with open(path, "rb") as handle:
        return decode_upload(handle.read())

