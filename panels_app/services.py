"""Every state change of a panel, one function each (issue 40): its questions picked, links
made, withdrawn or opened, a respondent joining through the open link, consenting (and being
dealt a block), answering the profile and each item, finishing. Views, the console and
`invite_panel` call these; each takes what the respondent sent as untrusted input."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from benchmarks_app import families
from benchmarks_app.lettering import LETTERS, option_letters
from benchmarks_app.models import Question
from benchmarks_app.services import render_messages
from runs_app import launch_plan, option_design
from runs_app.launching import launch_limits, select_questions
from runs_app.selection import ENGINE_KEYS, Selection, listed, read_family_keys

from . import design
from .models import AttentionCheck, Panel, PanelAnswer, PanelQuestion, ProfileQuestion, Respondent

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



# --- the operator's side: one respondent's data ------------------------------------------

def respondent_export(respondent: Respondent) -> dict:
    """Everything kept of one respondent, as plain JSON values: the link's times, the profile
    and each page's answer (no address is kept, so none is given)."""
    answers = respondent.answers.select_related("question", "attention_check").order_by("position")
    return {
        "panel": respondent.panel.name, "respondent": respondent.pk, "external_id": respondent.external_id,
        "consented_at": _iso(respondent.consented_at), "finished_at": _iso(respondent.finished_at),
        "withdrawn_at": _iso(respondent.withdrawn_at), "failed_checks": respondent.failed_checks,
        "profile": respondent.profile,
        "answers": [{"position": a.position, "question": a.question.key if a.question_id else None,
                     "attention_check": a.attention_check.text if a.attention_check_id else None,
                     "option_order": a.option_order, "chosen_letter": a.chosen_letter, "code": a.code,
                     "reason": a.reason, "shown_at": _iso(a.shown_at), "answered_at": _iso(a.answered_at),
                     "seconds": a.seconds} for a in answers]}


def _iso(moment) -> str | None:
    return moment.isoformat() if moment else None


@transaction.atomic
def erase_respondent(respondent: Respondent) -> int:
    """Delete one respondent's answers and profile (on their request) and close the link; the
    respondent's row stays, counted as a withdrawn link. The panel's figures are computed from
    the answers kept whenever they are read, so they recompute without them. The answers
    deleted."""
    deleted, _ = PanelAnswer.objects.filter(respondent=respondent).delete()
    Respondent.objects.filter(pk=respondent.pk).update(
        profile={}, failed_checks=0, withdrawn_at=respondent.withdrawn_at or timezone.now())
    return deleted
