"""Every state change of a panel, one function each (issue 40): its questions picked, links
made, withdrawn or opened, a respondent joining through the open link, consenting (and being
dealt a block), answering the profile and each item, finishing. Views, the console and
`invite_panel` call these; each takes what the respondent sent as untrusted input."""

from __future__ import annotations

import csv
import io
import math
import secrets
from dataclasses import dataclass

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from benchmarks_app import families
from benchmarks_app.lettering import LETTERS, option_letters
from benchmarks_app.models import Benchmark, Question
from benchmarks_app.services import render_messages
from runs_app import launch_plan, option_design
from runs_app.launching import launch_limits, select_questions
from runs_app.selection import ENGINE_KEYS, Selection, listed, read_family_keys

from . import design
from .models import AttentionCheck, Panel, PanelAnswer, PanelQuestion, ProfileQuestion, ReferenceShare, Respondent

MAX_LINKS = 10_000  # links made at once
MAX_REASON = 2_000  # characters of a free-text reason
MAX_PROFILE_TEXT = 200


class PanelError(ValueError):
    """A change that cannot go ahead; the message says why and what to do."""


class AnswerInvalid(PanelError):
    """What a respondent sent cannot be read as an answer; the message is for them."""


def new_token() -> str:
    """128 random bits, URL-safe (22 characters)."""
    return secrets.token_urlsafe(16)


# --- the author's side ---------------------------------------------------------------------

def read_selection(panel: Panel) -> Selection:
    """The panel's stored selection read as a launch's is (runs_app's checks and the family's
    own keys); PanelError names every problem."""
    data = panel.selection or {}
    if not isinstance(data, dict):
        raise PanelError('selection: must be an object, e.g. {"sample": 20, "seed": 7}')
    errors: dict[str, list[str]] = {}
    settings = None
    try:
        settings = launch_plan.check_settings({"repeats": 1, "sample": data.get("sample"),
                                               "seed": data.get("seed", panel.seed),
                                               "choice_counts": listed(data.get("choice_counts"))}, launch_limits())
    except launch_plan.LaunchInvalid as exc:
        errors.update(exc.errors)
    family_keys = read_family_keys(panel.benchmark, data, errors)
    known = set(ENGINE_KEYS) | set(families.family(panel.benchmark.family).selection_keys)
    unknown = sorted(set(data) - known)
    if unknown:
        errors["selection"] = [f"unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"]
    if errors:
        raise PanelError("; ".join(f"{key}: {' '.join(messages)}" for key, messages in errors.items()))
    return Selection(choice_counts=settings.choice_counts, sample=settings.sample, seed=settings.seed,
                     family_keys=family_keys)


@transaction.atomic
def pick_questions(panel: Panel) -> list[int]:
    """Pick the panel's questions with the launch's selection (and sample, seeded): kept as
    they are once anyone has consented. The selection is stored back as read, seed included."""
    panel = Panel.objects.select_for_update().get(pk=panel.pk)
    if panel.respondents.filter(consented_at__isnull=False).exists():
        raise PanelError(f"panel {panel.name!r} has respondents: its questions are kept as they are")
    selection = read_selection(panel)
    selected = select_questions(panel.benchmark, selection)
    # people answer options: free-text questions are left out
    ids = sorted(Question.objects.filter(pk__in=selected, choice_count__gte=2).values_list("id", flat=True))
    if not ids:
        raise PanelError(f"no multiple-choice question of benchmark {panel.benchmark.name!r} matches the selection")
    panel.panel_questions.all().delete()
    PanelQuestion.objects.bulk_create([PanelQuestion(panel=panel, question_id=qid) for qid in ids])
    Panel.objects.filter(pk=panel.pk).update(selection=selection.as_dict())
    return ids


def create_invitations(panel: Panel, count: int) -> list[Respondent]:
    """`count` single-use links (1–MAX_LINKS), each its own respondent."""
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_LINKS:
        raise PanelError(f"count: must be a whole number from 1 to {MAX_LINKS:,}; got {count!r}")
    if panel.kind == Panel.Kind.REFERENCE:
        raise PanelError(f"panel {panel.name!r} is a published reference: it has no links")
    if not panel.panel_questions.exists():
        raise PanelError(f"panel {panel.name!r} has no questions yet: save it with a selection that matches some")
    return Respondent.objects.bulk_create([Respondent(panel=panel, token=new_token()) for _ in range(count)])


def open_link(panel: Panel, cap: int) -> str:
    """Open (or re-cap) the panel's open link, admitting `cap` respondents in all; its token."""
    if isinstance(cap, bool) or not isinstance(cap, int) or not 1 <= cap <= 1_000_000:
        raise PanelError(f"cap: must be a whole number from 1 to 1,000,000; got {cap!r}")
    if panel.kind == Panel.Kind.REFERENCE:
        raise PanelError(f"panel {panel.name!r} is a published reference: it has no links")
    token = panel.open_token or new_token()
    Panel.objects.filter(pk=panel.pk).update(open_token=token, open_cap=cap)
    panel.open_token, panel.open_cap = token, cap
    return token


def withdraw(respondent: Respondent) -> bool:
    """Withdraw a link: it opens nothing from now on (its answers so far are kept). False if
    it was withdrawn already."""
    return bool(Respondent.objects.filter(pk=respondent.pk, withdrawn_at__isnull=True)
                .update(withdrawn_at=timezone.now()))


# --- the respondent's side -----------------------------------------------------------------

def respondent_for(token: str) -> Respondent | None:
    """The respondent of a link, or None for a token that names none (the view answers 404).
    The token is looked up by its unique index: guessing one means guessing 128 random bits."""
    if not isinstance(token, str) or not 16 <= len(token) <= 64:
        return None
    found = (Respondent.objects.select_related("panel").filter(token=token, panel__kind=Panel.Kind.INVITED)
             .first())  # a reference's respondents have tokens but no pages
    return found if found is not None and secrets.compare_digest(found.token, token) else None


class PanelFull(PanelError):
    pass


@transaction.atomic
def join_open_link(open_token: str) -> Respondent | None:
    """A new respondent through the panel's open link (None: no such link); PanelFull when its
    cap is reached."""
    if not isinstance(open_token, str) or not 16 <= len(open_token) <= 64:
        return None
    panel = Panel.objects.select_for_update().filter(open_token=open_token).first()
    if panel is None or not secrets.compare_digest(panel.open_token, open_token):
        return None
    if panel.respondents.filter(via_open_link=True).count() >= (panel.open_cap or 0):
        raise PanelFull("This survey has all the respondents it needs: thank you for your interest.")
    return Respondent.objects.create(panel=panel, token=new_token(), via_open_link=True)


def _deal(respondent: Respondent, panel: Panel) -> None:
    """The respondent's pages: its block of questions, each option order the Latin square's
    rotation for its showing, and the attention checks spread among them."""
    number = panel.started
    Panel.objects.filter(pk=panel.pk).update(started=F("started") + 1)
    question_ids = list(panel.panel_questions.values_list("question_id", flat=True))
    dealt = design.block(question_ids, panel.items_per_respondent, panel.seed, number)
    questions = Question.objects.select_related("benchmark").in_bulk([qid for qid, _ in dealt])
    checks = list(panel.attention_checks.all())
    rows = []
    for position, (kind, index) in enumerate(design.with_checks(len(dealt), len(checks))):
        if kind == "check":
            rows.append(PanelAnswer(respondent=respondent, position=position, attention_check=checks[index],
                                    option_order=list(range(len(checks[index].options)))))
            continue
        qid, shown = dealt[index]
        question = questions[qid]
        count = len(question.options)
        # The launch's Latin square (runs_app.option_design): the base order seeded per
        # question, rotated by how many respondents were shown the question before.
        base = option_design.balanced_orders(count, [["base"]], panel.seed, f"panel:{panel.pk}:q{qid}")[0][0]
        order = option_design.rotation(base, shown % count)
        rows.append(PanelAnswer(respondent=respondent, position=position, question=question, option_order=order,
                                messages=render_messages(question, order, None)))
    PanelAnswer.objects.bulk_create(rows)
    Respondent.objects.filter(pk=respondent.pk).update(number=number)
    respondent.number = number


@transaction.atomic
def consent(respondent: Respondent) -> Respondent:
    """The respondent agrees: dealt its block (once; a second press changes nothing)."""
    respondent = Respondent.objects.select_for_update().select_related("panel").get(pk=respondent.pk)
    if respondent.withdrawn_at or respondent.consented_at:
        return respondent
    panel = Panel.objects.select_for_update().get(pk=respondent.panel_id)  # one block number each
    _deal(respondent, panel)
    respondent.consented_at = timezone.now()
    Respondent.objects.filter(pk=respondent.pk).update(consented_at=respondent.consented_at)
    if not respondent.answers.exists():  # a panel left with no question and no check: nothing to ask
        finish(respondent)
        respondent.refresh_from_db(fields=["finished_at"])
    return respondent


def read_profile(questions: list[ProfileQuestion], data) -> tuple[dict, dict[str, str]]:
    """({key: value}, {key: problem}) from what the profile form sent."""
    values, errors = {}, {}
    for question in questions:
        raw = data.get(question.key, "")
        raw = raw.strip() if isinstance(raw, str) else ""
        if not raw:
            if question.required:
                errors[question.key] = f"{question.label}: please answer."
            continue
        if question.kind == ProfileQuestion.Kind.NUMBER:
            if not (raw.isascii() and raw.isdigit() and len(raw) <= 4):
                errors[question.key] = f"{question.label}: please give a whole number from 0 to 9999."
                continue
            values[question.key] = int(raw)
        elif question.kind == ProfileQuestion.Kind.CHOICE:
            if raw not in question.choice_list():
                errors[question.key] = f"{question.label}: please choose one of the choices."
                continue
            values[question.key] = raw
        else:
            if len(raw) > MAX_PROFILE_TEXT:
                errors[question.key] = f"{question.label}: at most {MAX_PROFILE_TEXT} characters, please."
                continue
            values[question.key] = raw
    return values, errors


@transaction.atomic
def save_profile(respondent: Respondent, data) -> dict[str, str]:
    """Store the profile answers ({} when saved; else each question's problem, nothing saved)."""
    respondent = Respondent.objects.select_for_update().get(pk=respondent.pk)
    if respondent.profiled_at or not respondent.consented_at or respondent.withdrawn_at:
        return {}
    values, errors = read_profile(list(respondent.panel.profile_questions.all()), data)
    if errors:
        return errors
    Respondent.objects.filter(pk=respondent.pk).update(profile=values, profiled_at=timezone.now())
    return {}


def current_page(respondent: Respondent) -> PanelAnswer | None:
    """The first page not answered yet (None when every page is), marked shown the first time."""
    page = respondent.answers.filter(answered_at__isnull=True).select_related("question", "attention_check").first()
    if page is not None and page.shown_at is None:
        page.shown_at = timezone.now()
        PanelAnswer.objects.filter(pk=page.pk, shown_at__isnull=True).update(shown_at=page.shown_at)
    return page


@dataclass(frozen=True)
class Page:
    """What one page shows: its text, its options in the order shown ([(letter, text)]), its
    language and direction, and where it stands ("3 of 10")."""

    answer: PanelAnswer
    text: str
    options: list[tuple[str, str]]
    language: str
    direction: str
    number: int
    total: int


RTL_LANGUAGES = {"ar", "arc", "dv", "fa", "he", "ku", "ps", "sd", "ug", "ur", "yi"}


def page_of(answer: PanelAnswer, total: int) -> Page:
    if answer.attention_check_id:
        check = answer.attention_check
        texts = [str(option) for option in check.options]
        return Page(answer, check.text, list(zip(option_letters(len(texts)), texts)), "", "", answer.position + 1,
                    total)
    question = answer.question
    texts = question.option_texts()
    shown = [(letter, texts[index]) for letter, index in zip(option_letters(len(answer.option_order)),
                                                             answer.option_order)]
    language = question.language or "en"
    direction = "rtl" if language.split("-")[0].lower() in RTL_LANGUAGES else "ltr"
    return Page(answer, question.text, shown, language, direction, answer.position + 1, total)


@transaction.atomic
def answer_item(respondent: Respondent, position, letter, reason="") -> PanelAnswer:
    """Record the answer to the page at `position`. A page answered already is left as it is
    (a double submit, a back button: no second answer); AnswerInvalid for an option that is
    not on the page or a page that is not the respondent's next."""
    respondent = Respondent.objects.select_for_update().get(pk=respondent.pk)
    if respondent.withdrawn_at or respondent.finished_at:
        raise AnswerInvalid("This link is closed: your earlier answers are kept.")
    try:
        position = int(position)
    except (TypeError, ValueError):
        raise AnswerInvalid("That page does not exist.") from None
    answer = respondent.answers.filter(position=position).select_related("attention_check").first()
    if answer is None:
        raise AnswerInvalid("That page does not exist.")
    if answer.answered_at is not None:
        return answer
    if respondent.answers.filter(position__lt=position, answered_at__isnull=True).exists():
        raise AnswerInvalid("Please answer the pages in order.")
    letters = option_letters(len(answer.option_order))
    if not isinstance(letter, str) or letter not in letters:
        raise AnswerInvalid(f"Please choose one of the options ({letters[0]} to {letters[-1]}).")
    reason = reason if isinstance(reason, str) else ""
    if len(reason) > MAX_REASON:
        raise AnswerInvalid(f"Your reason is {len(reason):,} characters long; at most {MAX_REASON:,}, please.")
    index = answer.option_order[letters.index(letter)]
    now = timezone.now()
    answer.chosen_letter = letter
    answer.code = LETTERS[index]
    answer.reason = reason.strip()
    answer.answered_at = now
    answer.seconds = (now - answer.shown_at).total_seconds() if answer.shown_at else None
    answer.save(update_fields=["chosen_letter", "code", "reason", "answered_at", "seconds"])
    if answer.attention_check_id and index + 1 != answer.attention_check.expected:
        Respondent.objects.filter(pk=respondent.pk).update(failed_checks=F("failed_checks") + 1)
    if not respondent.answers.filter(answered_at__isnull=True).exists():
        finish(respondent)
    return answer


def finish(respondent: Respondent) -> bool:
    """The respondent is done (every page answered): the link is used from now on."""
    return bool(Respondent.objects.filter(pk=respondent.pk, finished_at__isnull=True)
                .update(finished_at=timezone.now()))


def stage(respondent: Respondent) -> str:
    """Where a link stands: withdrawn, consent, profile, item or finished."""
    if respondent.withdrawn_at:
        return "withdrawn"
    if respondent.finished_at:
        return "finished"
    if not respondent.consented_at:
        return "consent"
    if not respondent.profiled_at and respondent.panel.profile_questions.exists():
        return "profile"
    return "item"


def make_links_for(panel: Panel, count: int, base_url: str) -> list[str]:
    """`count` new single-use links as full URLs (the console's button and `invite_panel`)."""
    from django.urls import reverse

    return [base_url.rstrip("/") + reverse("panels_app:respond", args=[r.token])
            for r in create_invitations(panel, count)]


def check_attention_check(check: AttentionCheck) -> None:
    """An attention check the author wrote must have 2–10 options and name one of them."""
    if not isinstance(check.options, list) or not 2 <= len(check.options) <= len(LETTERS):
        raise PanelError(f"attention check {check.text[:40]!r}: options must be a list of 2 to {len(LETTERS)} texts")
    if not 1 <= check.expected <= len(check.options):
        raise PanelError(f"attention check {check.text[:40]!r}: the expected option must be 1 to {len(check.options)}")


# --- published references (import_reference) -----------------------------------------------

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
