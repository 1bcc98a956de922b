"""Published references (issue 40): a population's answers read from a CSV in either shape
as a panel without links (`Panel.Kind.REFERENCE`), one services function, `import_reference`:
every row is checked first, each bad one named by line and column, and nothing is written
unless all are good (one transaction). The shapes: one row per respondent and question
(respondents and their `PanelAnswer` rows) or one row per question and option (`ReferenceShare`)."""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from benchmarks_app.lettering import option_letters
from benchmarks_app.models import Benchmark, Question

from .models import Panel, PanelAnswer, PanelQuestion, ReferenceShare, Respondent
from .services import PanelError, new_token


RESPONDENT_COLUMNS = ("panel", "respondent", "question_key", "answer")
SHARE_COLUMNS = ("panel", "question_key", "option", "share", "n")
MAX_REFERENCE_ROWS = 500_000
SHARE_TOLERANCE = 0.01  # a question's shares must sum to 1 within this (published shares are rounded)
REFERENCE_STANDS_FOR = "published reference"


class ReferenceInvalid(PanelError):
    """The file cannot be imported; `problems` are its bad rows, each "line N, column C: …"."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("\n".join(problems))


@dataclass(frozen=True)
class ImportedReference:
    panel: str
    shape: str  # "respondents" or "shares"
    questions: int
    respondents: int  # people named in the file (respondents' shape), or the largest n (shares')
    rows: int


def _read_reference_rows(text: str) -> tuple[str, list[tuple[int, dict[str, str]]]]:
    """(shape, [(line, {column: value})]) of a reference file; ReferenceInvalid for a header
    that is neither shape or a row of the wrong length."""
    reader = csv.reader(io.StringIO(text))
    try:
        header = next(reader)
    except StopIteration:
        raise ReferenceInvalid(["line 1: the file is empty"]) from None
    except csv.Error as exc:
        raise ReferenceInvalid([f"line 1: not CSV ({exc})"]) from None
    columns = tuple(name.strip().lower() for name in header)
    if sorted(columns) == sorted(RESPONDENT_COLUMNS):
        shape = "respondents"
    elif sorted(columns) == sorted(SHARE_COLUMNS):
        shape = "shares"
    else:
        raise ReferenceInvalid([f"line 1: the columns must be either {', '.join(RESPONDENT_COLUMNS)} (one row per "
                                f"respondent and question) or {', '.join(SHARE_COLUMNS)} (one row per question and "
                                f"option); got {', '.join(columns) or 'none'}"])
    rows, problems = [], []
    try:
        for values in reader:
            if not any(v.strip() for v in values):
                continue  # a blank line
            line = reader.line_num
            if len(rows) >= MAX_REFERENCE_ROWS:
                raise ReferenceInvalid([f"line {line}: more than {MAX_REFERENCE_ROWS:,} rows; split the file"])
            if len(values) != len(columns):
                problems.append(f"line {line}: {len(values)} value(s), the header has {len(columns)}")
                continue
            rows.append((line, {c: v.strip() for c, v in zip(columns, values)}))
    except csv.Error as exc:
        problems.append(f"line {reader.line_num}: not CSV ({exc})")
    if problems:
        raise ReferenceInvalid(problems)
    if not rows:
        raise ReferenceInvalid(["line 2: the file has a header and no rows"])
    return shape, rows


def _reference_panels(rows, benchmark: str | None, replace: bool, problems: list[str]):
    """({panel name: benchmark id}, {question key: Question}) of the file's rows; each
    problem with a panel name or question key appended to `problems` with its line."""
    keys = {row["question_key"] for _, row in rows}
    questions = Question.objects.select_related("benchmark").filter(key__in=keys)
    if benchmark is not None:
        questions = questions.filter(benchmark__name=benchmark)
    found = {q.key: q for q in questions}
    existing = {p.name: p for p in Panel.objects.filter(name__in={row["panel"] for _, row in rows})}
    panels: dict[str, int] = {}
    named: set[str] = set()
    for line, row in rows:
        name, key = row["panel"], row["question_key"]
        if not name or len(name) > 120:
            problems.append(f"line {line}, column panel: must be a name of 1 to 120 characters")
        elif name not in named:
            named.add(name)
            other = existing.get(name)
            if other is not None and other.kind != Panel.Kind.REFERENCE:
                problems.append(f"line {line}, column panel: {name!r} is a panel with links; "
                                "a reference needs a name of its own")
            elif other is not None and not replace:
                problems.append(f"line {line}, column panel: a reference named {name!r} exists; "
                                "import with --replace to replace it")
        question = found.get(key)
        if question is None:
            where = f" of benchmark {benchmark!r}" if benchmark is not None else ""
            problems.append(f"line {line}, column question_key: no question{where} with key {key!r}")
            continue
        if question.choice_count < 2 or question.kind != Question.Kind.CHOICE:
            problems.append(f"line {line}, column question_key: {key!r} is not a multiple-choice question")
            continue
        if name:
            first = panels.setdefault(name, question.benchmark_id)
            if first != question.benchmark_id:
                problems.append(f"line {line}, column question_key: {key!r} is of benchmark "
                                f"{question.benchmark.name!r}; the panel's earlier rows are of another benchmark")
    return panels, found


def _letter(line, row, column, question, problems) -> str | None:
    letters = option_letters(len(question.options))
    letter = row[column].upper()
    if letter not in letters:
        problems.append(f"line {line}, column {column}: {row[column]!r} is not an option of {question.key} "
                        f"({', '.join(letters)})")
        return None
    return letter


def _check_respondent_rows(rows, questions, problems) -> dict[str, dict[str, list[tuple[Question, str]]]]:
    """{panel: {respondent: [(question, letter)]}} in the file's order."""
    seen: dict[tuple[str, str, str], int] = {}
    found: dict[str, dict[str, list]] = {}
    for line, row in rows:
        question = questions.get(row["question_key"])
        if not row["respondent"] or len(row["respondent"]) > 120:
            problems.append(f"line {line}, column respondent: must be an identifier of 1 to 120 characters")
            continue
        if question is None:
            continue
        letter = _letter(line, row, "answer", question, problems)
        triple = (row["panel"], row["respondent"], question.key)
        if triple in seen:
            problems.append(f"line {line}, column question_key: respondent {row['respondent']!r} answered "
                            f"{question.key} already on line {seen[triple]}")
            continue
        seen[triple] = line
        if letter is not None:
            found.setdefault(row["panel"], {}).setdefault(row["respondent"], []).append((question, letter))
    return found


def _number(line, row, column, problems, whole=False):
    text = row[column]
    try:
        value = int(text) if whole else float(text)
    except ValueError:
        value = None
    if value is None or (not whole and not math.isfinite(value)):
        kind = "a whole number" if whole else "a number"
        problems.append(f"line {line}, column {column}: must be {kind}; got {text!r}")
        return None
    return value


def _check_share_rows(rows, questions, problems) -> dict[str, dict[Question, dict[str, tuple[float, int]]]]:
    """{panel: {question: {letter: (share, n)}}}; a question's n the same on each of its rows
    and its shares summing to 1 (within SHARE_TOLERANCE)."""
    found: dict[str, dict] = {}
    first_line: dict[tuple[str, str], int] = {}
    seen: dict[tuple[str, str, str], int] = {}
    for line, row in rows:
        question = questions.get(row["question_key"])
        share = _number(line, row, "share", problems)
        n = _number(line, row, "n", problems, whole=True)
        if share is not None and not 0 <= share <= 1:
            problems.append(f"line {line}, column share: must be from 0 to 1; got {row['share']!r}")
            share = None
        if n is not None and n < 1:
            problems.append(f"line {line}, column n: must be at least 1; got {row['n']!r}")
            n = None
        if question is None:
            continue
        letter = _letter(line, row, "option", question, problems)
        if letter is None or share is None or n is None:
            continue
        triple = (row["panel"], question.key, letter)
        if triple in seen:
            problems.append(f"line {line}, column option: {letter} of {question.key} is given already on line "
                            f"{seen[triple]}")
            continue
        seen[triple] = line
        by_option = found.setdefault(row["panel"], {}).setdefault(question, {})
        other_n = next(iter(by_option.values()), (None, None))[1]
        if other_n is not None and other_n != n:
            problems.append(f"line {line}, column n: {n} differs from the n of {question.key}'s earlier rows "
                            f"({other_n}): n is how many answered the question")
            continue
        first_line.setdefault((row["panel"], question.key), line)
        by_option[letter] = (share, n)
    for panel, by_question in found.items():
        for question, by_option in by_question.items():
            total = sum(share for share, _ in by_option.values())
            if abs(total - 1) > SHARE_TOLERANCE:
                problems.append(f"line {first_line[(panel, question.key)]}, column share: the shares of "
                                f"{question.key} in panel {panel!r} sum to {total:g}, not 1 (±{SHARE_TOLERANCE:g})")
    return found


def import_reference(text: str, *, benchmark: str | None = None, stands_for: str = REFERENCE_STANDS_FOR,
                     replace: bool = False) -> list[ImportedReference]:
    """Read a population's published answers as panels without links (kind reference), in
    either shape: one row per respondent and question (`panel, respondent, question_key,
    answer`, the canonical option's letter) or one row per question and option (`panel,
    question_key, option, share, n`). Every row is checked first; ReferenceInvalid lists
    each bad one by line and column and nothing is written. `replace` replaces references of
    the same name (never a panel with links)."""
    shape, rows = _read_reference_rows(text)
    problems: list[str] = []
    if benchmark is not None and not Benchmark.objects.filter(name=benchmark).exists():
        raise ReferenceInvalid([f"--benchmark: no benchmark named {benchmark!r}"])
    panels, questions = _reference_panels(rows, benchmark, replace, problems)
    if shape == "respondents":
        answers = _check_respondent_rows(rows, questions, problems)
    else:
        shares = _check_share_rows(rows, questions, problems)
    if problems:
        raise ReferenceInvalid(problems)
    now = timezone.now()
    done = []
    with transaction.atomic():
        Panel.objects.filter(name__in=list(panels), kind=Panel.Kind.REFERENCE).delete()
        for name, benchmark_id in panels.items():
            panel = Panel.objects.create(name=name, kind=Panel.Kind.REFERENCE, stands_for=stands_for,
                                         benchmark_id=benchmark_id, consent_text="", closing_text="",
                                         ask_reason=False)
            if shape == "respondents":
                by_respondent = answers[name]
                asked = {q.pk for given in by_respondent.values() for q, _ in given}
                made = Respondent.objects.bulk_create([
                    Respondent(panel=panel, token=new_token(), external_id=rid, consented_at=now, finished_at=now)
                    for rid in by_respondent])
                PanelAnswer.objects.bulk_create([
                    PanelAnswer(respondent=respondent, position=position, question=question, chosen_letter=letter,
                                code=letter, answered_at=now)
                    for respondent, given in zip(made, by_respondent.values())
                    for position, (question, letter) in enumerate(given)])
                done.append(ImportedReference(name, shape, len(asked), len(made),
                                              sum(len(g) for g in by_respondent.values())))
            else:
                by_question = shares[name]
                asked = {q.pk for q in by_question}
                ReferenceShare.objects.bulk_create([
                    ReferenceShare(panel=panel, question=question, code=letter, share=share, n=n)
                    for question, by_option in by_question.items() for letter, (share, n) in by_option.items()])
                done.append(ImportedReference(name, shape, len(asked),
                                              max(n for by in by_question.values() for _, n in by.values()),
                                              sum(len(by) for by in by_question.values())))
            PanelQuestion.objects.bulk_create([PanelQuestion(panel=panel, question_id=qid) for qid in sorted(asked)])
    return done
