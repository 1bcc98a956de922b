"""Coding answers: the one entry point for every change to a code.

- `encode_answers` codes answers as they arrive, alone or in a batch (choice mode from the
  chosen letter, generate mode by the family's reading or the automatic encoder) or queues
  them for reviewers; re-running it after the rules change (`encode_responses`) never
  overwrites a reviewer's or an adjudicator's code.
- `next_task` leases the next item to a reviewer (SELECT … FOR UPDATE SKIP LOCKED on
  PostgreSQL, then a conditional update that also guards SQLite); a lease that runs out
  returns the item to the queue.
- `submit_code`, `skip_task`, `undo_last` are the reviewer's keys.

Codes are canonical (the author's option order, `A` … `J` for 2 to 10 options, `R` for a
refusal, or `X` for an invalid answer that chooses no option and is no refusal);
reviewers see and type the letters as they were presented to the model, and the mapping
happens here. An automatic code's confidence is its rule's audited accuracy
(`audits.refresh_rule`); a suspended rule's answers go to reviewers.
"""

from __future__ import annotations

import math
from datetime import timedelta

from django.db import connection, transaction
from django.db.models import Case, IntegerField, Q, Value, When
from django.utils import timezone

from benchmarks_app import families
from benchmarks_app.id_filter import id_filter
from benchmarks_app.language_codes import reader_first
from benchmarks_app.models import Question
from runs_app import infra
from runs_app.models import Response

from . import audits, auto_encoder
from .current_code import MISSING, UNRESOLVED, codes_on_the_way, record_code, set_code, set_codes
from .filters import Filters
from .letters import INVALID, LETTERS, REFUSAL, canonical_code, picked
from .models import Code, CodingPolicy, Judge, ReviewTask, Source

Purpose = ReviewTask.Purpose
REVIEW_PURPOSES = [Purpose.PRIMARY, Purpose.SECOND, Purpose.AUDIT]
HUMAN_SOURCES = [Source.REVIEWER, Source.ADJUDICATION]


class CodingError(Exception):
    """A reviewer's action that cannot be done; the message says why, for the page."""


# ---------------------------------------------------------------- what the reviewer sees

def presented_options(response: Response) -> list[dict]:
    """The options in the order the model saw them, with the letters it saw."""
    options = response.question.options
    order = response.option_order or list(range(len(options)))
    return [{"letter": LETTERS[i], "text": options[index]["text"], "category": options[index].get("category", ""),
             "canonical": LETTERS[index]} for i, index in enumerate(order)]


def automatic_encoding(response: Response) -> auto_encoder.Encoding:
    """The automatic encoder's reading, in presented letters (R stays R)."""
    return auto_encoder.encode(response.raw_output, [o["text"] for o in presented_options(response)])


def family_encoding(response: Response) -> auto_encoder.Encoding | None:
    """The question's family's own reading of a generated answer (BorderLines: a claimant
    named), as an Encoding in presented letters; None leaves it to the generic encoder."""
    try:
        read = families.family(response.question.benchmark.family).read_answer
    except families.UnknownFamily:
        return None
    if read is None or not (response.raw_output or "").strip():
        return None
    reading = read(response.question, response.raw_output)
    if reading is None:
        return None
    index, rule, reason = reading
    if index is None:
        generic = automatic_encoding(response)  # a refusal is a refusal in every family
        return generic if generic.code == REFUSAL else auto_encoder.Encoding(None, rule, 0.0, reason)
    order = list(response.option_order) or list(range(len(response.question.options)))
    return auto_encoder.Encoding(LETTERS[order.index(index)], rule, 1.0, reason)


# ---------------------------------------------------------------- automatic coding

def _choice_confidence(response: Response) -> float | None:
    logprobs = response.option_logprobs or {}
    if response.chosen_letter not in logprobs:
        return None
    total = sum(math.exp(lp) for lp in logprobs.values() if lp is not None)
    return math.exp(logprobs[response.chosen_letter]) / total if total else None


def open_task(response: Response, purpose: str, caused_by: Code | None = None, reason: str = "",
               explanation: str = "") -> ReviewTask:
    reason = reason[:40]
    task = ReviewTask.objects.filter(response=response, purpose=purpose, status=ReviewTask.Status.OPEN).first()
    if task is not None:
        if (reason and task.reason != reason) or (explanation and task.explanation != explanation):
            ReviewTask.objects.filter(pk=task.pk).update(reason=reason or task.reason,
                                                         explanation=explanation or task.explanation)
        return task
    return ReviewTask.objects.create(response=response, purpose=purpose, caused_by=caused_by, reason=reason,
                                     explanation=explanation)


def _withdraw_audit_of(code: Code | None):
    """A code that stops being current needs no audit any more."""
    if code is not None:
        withdraw(ReviewTask.objects.filter(caused_by=code, purpose=Purpose.AUDIT))


def sample_for_audit(response: Response, code: Code, policy: CodingPolicy | None = None):
    """Automatic and promoted judges' codes: a reproducible share goes blind to a reviewer."""
    policy = policy or CodingPolicy.current()
    if (picked(response.pk, policy.audit_share, policy.seed, "audit")
            and not response.review_tasks.filter(purpose=Purpose.AUDIT, status=ReviewTask.Status.OPEN).exists()):
        ReviewTask.objects.create(response=response, purpose=Purpose.AUDIT, caused_by=code)


def _promoted_judge_code(current: Code | None) -> bool:
    """A current code by a judge that is still promoted stands until the judge is demoted."""
    if current is None or current.source != Source.JUDGE:
        return False
    return any(judge.rule == current.rule for judge in Judge.objects.filter(promoted=True).select_related("model"))


def suspended_explanation(rule: str, letter: str) -> str:
    return (f"The rule {rule} read this answer as {letter}, but the rule is suspended: its audited accuracy "
            f"fell below the coding policy's threshold. Code it yourself; an admin can re-enable the rule.")


def withdraw(tasks):
    return tasks.filter(status=ReviewTask.Status.OPEN).update(status=ReviewTask.Status.WITHDRAWN, leased_by=None,
                                                              lease_expires_at=None)


def _code_one(response_id: int, policy: CodingPolicy | None = None) -> str:
    """The rules for one answer: code it automatically, or queue it for a reviewer (the
    path of `encode_answers` for an answer already coded or queued; what its few
    statements for new answers reproduce). Returns what happened:
    `choice`, `auto`, `unresolved`, `missing`, `kept` (a person's or a promoted judge's
    code stands) or `not-applicable` (a free-text question without options, or a judge
    unit, which is not an answer of its own)."""
    with transaction.atomic():
        # A judge unit is not an answer: not found among the answers, not applicable.
        response = (Response.objects.answers().select_for_update(of=("self",)).select_related("question__benchmark")
                    .filter(pk=response_id).first())
        if response is None or not response.question.options:
            return "not-applicable"
        current = response.codes.filter(is_current=True).first()
        if current is not None and (current.source in HUMAN_SOURCES or _promoted_judge_code(current)):
            return "kept"
        if response.status != Response.Status.DONE:
            return "missing"
        if response.chosen_letter:
            rule = "rank-classification" if (response.params or {}).get("mode") == "rank" else "logprobs"
            letter, source, confidence = response.chosen_letter, Source.CHOICE, _choice_confidence(response)
        else:
            encoding = family_encoding(response) or automatic_encoding(response)
            if encoding.rule == "empty":
                withdraw(response.review_tasks.filter(purpose=Purpose.PRIMARY))
                set_code(response.pk, None, current, MISSING)
                return "missing"
            if encoding.code is None:
                _withdraw_audit_of(current)
                set_code(response.pk, None, current, UNRESOLVED)
                open_task(response, Purpose.PRIMARY, reason=encoding.rule, explanation=encoding.reason)
                return "unresolved"
            if encoding.rule in audits.suspended_rules():
                if current is not None and response.codes.filter(source__in=HUMAN_SOURCES,
                                                                 undone_at__isnull=True).exists():
                    # A person has audited this code (a disagreement is with the adjudicators).
                    return "kept"
                _withdraw_audit_of(current)
                set_code(response.pk, None, current, UNRESOLVED)
                open_task(response, Purpose.PRIMARY, reason="rule-suspended",
                           explanation=suspended_explanation(encoding.rule, encoding.code))
                return "unresolved"
            letter, source, rule = encoding.code, Source.AUTO, encoding.rule
            confidence = audits.rule_confidence(rule)
        code = canonical_code(letter, response.option_order)
        withdraw(response.review_tasks.filter(purpose=Purpose.PRIMARY))
        if current is not None and (current.code, current.source, current.rule) == (code, source, rule):
            return source
        new = Code(response=response, code=code, presented_letter=letter, source=source, rule=rule,
                   confidence=confidence, supersedes=current)
        set_code(response.pk, new, current)
        if source == Source.AUTO and not response.review_tasks.filter(purpose=Purpose.AUDIT).exists():
            sample_for_audit(response, new, policy)
        return source


def queue_for_review(response_id: int, reason: str, explanation: str = "") -> ReviewTask:
    response = Response.objects.get(pk=response_id)
    if not response.code:
        set_code(response_id, None, None, UNRESOLVED)
    return open_task(response, Purpose.PRIMARY, reason=reason, explanation=explanation)


def encode_responses(responses, progress=None) -> dict[str, int]:
    """Re-run `encode_answers` over a queryset of responses, answer by answer (for the
    progress); counts by outcome."""
    policy = CodingPolicy.current()
    counts: dict[str, int] = {}
    ids = list(responses.order_by("pk").values_list("pk", flat=True))
    for done, response_id in enumerate(ids, 1):
        for outcome, n in encode_answers([response_id], policy).items():
            counts[outcome] = counts.get(outcome, 0) + n
        if progress:
            progress(done, len(ids))
    return counts


# What a fresh answer's reading needs (not its prompt, tokens or cost): loading whole rows,
# each with its own copy of its question and the question's options decoded again, was most
# of the time of coding a large import (issue 32).
_READ_FIELDS = ("id", "run_id", "question_id", "status", "option_order", "params", "raw_output", "option_logprobs",
                "chosen_letter")


def _fresh_reading(response: Response, suspended: set[str]) -> tuple[str, str, str] | None:
    """(letter, source, rule) of an answer that `_code_one` would code at once, or
    None for every other outcome (no code, a suspended rule, a review to open)."""
    first = _first_coding(response, suspended)
    return first[1:] if first[0] == "code" else None


def _first_coding(response: Response, suspended: set[str], options: list[str] | None = None) -> tuple:
    """What `_code_one` does with an answer that has no code and no review item yet:
    ("code", letter, source, rule), ("missing", writes) with `writes` False when the
    answer is not done (nothing is written), or ("unresolved", reason, explanation) (a
    primary review item). `options`: the presented options' wording, when the caller
    already has it."""
    if response.status != Response.Status.DONE:
        return ("missing", False)
    if response.chosen_letter:
        rule = "rank-classification" if (response.params or {}).get("mode") == "rank" else "logprobs"
        return ("code", response.chosen_letter, Source.CHOICE, rule)
    encoding = family_encoding(response)
    if encoding is None:
        encoding = (automatic_encoding(response) if options is None
                    else auto_encoder.encode(response.raw_output, options))
    if encoding.rule == "empty":
        return ("missing", True)
    if encoding.code is None:
        return ("unresolved", encoding.rule, encoding.reason)
    if encoding.rule in suspended:
        return ("unresolved", "rule-suspended", suspended_explanation(encoding.rule, encoding.code))
    return ("code", encoding.code, Source.AUTO, encoding.rule)


def code_chosen_letters(rows: list[Response]):
    """The first codes of answers about to be written whose code is their chosen letter
    (what `_first_coding` gives a done answer with a letter: source "choice", rule
    "logprobs" or "rank-classification", confidence from the options' log-probabilities),
    set on the rows for the engine's statement to write (`runs_app.signals.answers_writing`,
    `current_code.codes_on_the_way`); the function that then writes their `Code` rows,
    current, for the ids written (the ids whose codes stand). Left
    alone (coded after the write, `encode_answers`): a judge run's units, an answer with no
    letter or to a question without options. An answer on its way has no code and no review
    item yet: it is a unit just answered under its claim, which only a pending unit
    becomes, and no unit goes back to pending once done. None when no row is coded."""
    codes: dict[int, Code] = {}
    for row in rows:
        if (row.status != Response.Status.DONE or not row.chosen_letter or row.run.kind == row.run.Kind.JUDGE
                or not row.question.options):
            continue
        rule = "rank-classification" if (row.params or {}).get("mode") == "rank" else "logprobs"
        codes[row.pk] = Code(response_id=row.pk, code=canonical_code(row.chosen_letter, row.option_order),
                             presented_letter=row.chosen_letter, source=Source.CHOICE, rule=rule,
                             confidence=_choice_confidence(row))
    return codes_on_the_way(rows, codes) if codes else None


def _answers_to_code(response_ids: list[int], questions: dict[int, Question] | None = None) -> list[Response]:
    """The answers, locked, each with its question (and benchmark) loaded once per
    question, not once per answer; `questions`: those loaded by an earlier call (an
    import's earlier slice), added to."""
    responses = list(Response.objects.select_for_update(of=("self",)).only(*_READ_FIELDS)
                     .filter(id_filter(response_ids)).order_by("pk"))
    questions = {} if questions is None else questions
    missing = {r.question_id for r in responses} - questions.keys()
    if missing:
        questions.update((q.pk, q) for q in Question.objects.select_related("benchmark").filter(pk__in=missing))
    cache_question = Response._meta.get_field("question").set_cached_value
    for response in responses:
        cache_question(response, questions[response.question_id])
    return responses


def encode_answers(response_ids: list[int], policy: CodingPolicy | None = None,
                   questions: dict[int, Question] | None = None) -> dict[str, int]:
    """Code answers (one or many), as `_code_one` codes each, with a few statements for
    the whole list: an answer with no code and no review item yet gets what `_code_one`
    would give it (its code, read from the chosen letter or by the automatic encoder
    under a rule not suspended, and its audit item when the share picks it; or no code,
    "missing" or "unresolved", and its primary review item) in one insert per table and
    one update per code value. Every other answer (already coded or queued) goes through
    `_code_one`; a judge unit or a question without options is not applicable. Counts by
    outcome. Large lists are fine (an import codes a million answers through here, a
    few thousand per call, passing the same `questions` dict so that each question is read
    once per import, not once per slice)."""
    policy = policy or CodingPolicy.current()
    counts: dict[str, int] = {}
    slow: list[int] = []

    def count(outcome, n=1):
        counts[outcome] = counts.get(outcome, 0) + n

    with transaction.atomic():
        infra.check_simulated_disk_full()  # the fault tests' full disk (issue 44: answers written, coding not)
        responses = _answers_to_code(response_ids, questions)
        ids = [r.pk for r in responses]
        judged = set(Response.objects.filter(id_filter(ids)).judge_units().values_list("pk", flat=True))
        touched = set(Code.objects.filter(id_filter(ids, "response_id")).values_list("response_id", flat=True)) | set(
            ReviewTask.objects.filter(id_filter(ids, "response_id")).values_list("response_id", flat=True))
        suspended = audits.suspended_rules()
        confidences: dict[str, float | None] = {}
        presented: dict[tuple, list[str]] = {}  # (question, option order) -> the options' wording as shown
        new_codes: list[Code] = []
        states: dict[str, list[int]] = {}  # "missing" / "unresolved" -> answers left without a code
        tasks: list[ReviewTask] = []
        for response in responses:
            if response.pk in judged or not response.question.options:
                count("not-applicable")
                continue
            if response.pk in touched:
                slow.append(response.pk)
                continue
            shown = (response.question_id, tuple(response.option_order or ()))
            if shown not in presented:
                presented[shown] = [o["text"] for o in presented_options(response)]
            first = _first_coding(response, suspended, presented[shown])
            if first[0] == "missing":
                if first[1]:
                    states.setdefault(MISSING, []).append(response.pk)
                count("missing")
                continue
            if first[0] == "unresolved":
                _, reason, explanation = first
                states.setdefault(UNRESOLVED, []).append(response.pk)
                tasks.append(ReviewTask(response_id=response.pk, purpose=Purpose.PRIMARY, reason=reason[:40],
                                        explanation=explanation))
                count("unresolved")
                continue
            _, letter, source, rule = first
            if source == Source.CHOICE:
                confidence = _choice_confidence(response)
            else:
                if rule not in confidences:
                    confidences[rule] = audits.rule_confidence(rule)
                confidence = confidences[rule]
            new_codes.append(Code(response_id=response.pk, code=canonical_code(letter, response.option_order),
                                  presented_letter=letter, source=source, rule=rule, confidence=confidence))
            count(source)
        _write_first_codes(new_codes, states, tasks, policy)
    for response_id in slow:
        count(_code_one(response_id, policy))
    return counts


def _write_first_codes(new_codes: list[Code], states: dict[str, list[int]], tasks: list[ReviewTask],
                       policy: CodingPolicy):
    """`encode_answers`' writes: the new codes in one insert, each answer's code and code
    source in one update per value (answers left "missing" or "unresolved" too), the
    audit items the share picks and the review items in one insert."""
    set_codes(new_codes, states)
    audits_due = [ReviewTask(response_id=code.response_id, purpose=Purpose.AUDIT, caused_by=code)
                  for code in new_codes if code.source == Source.AUTO
                  and picked(code.response_id, policy.audit_share, policy.seed, "audit")]
    ReviewTask.objects.bulk_create(audits_due + tasks, batch_size=_INSERT_BATCH)


_INSERT_BATCH = 2000  # rows per INSERT of review items


# ---------------------------------------------------------------- the reviewer's queue

def _lease_for(policy: CodingPolicy) -> timedelta:
    return timedelta(minutes=policy.lease_minutes)


def _free_for(user, now) -> Q:
    """Not held by anyone else: never leased, the lease ran out, or held by this user."""
    return Q(leased_by__isnull=True) | Q(lease_expires_at__lt=now) | Q(leased_by=user)


def available(user, queue: str, filters: Filters, now):
    """The open items `user` may take now in `queue` (the one they hold among them)."""
    purposes = [Purpose.ADJUDICATION] if queue == "adjudication" else REVIEW_PURPOSES
    tasks = (ReviewTask.objects.filter(status=ReviewTask.Status.OPEN, purpose__in=purposes)
             .filter(_free_for(user, now)).exclude(skipped_by=user))
    if not (queue == "adjudication" and user.is_superuser):
        # Nobody codes an answer twice, and nobody adjudicates their own disagreement.
        coded = Code.objects.filter(coder=user, undone_at__isnull=True).values("response_id")
        tasks = tasks.exclude(response_id__in=coded)
    return filters.apply(tasks)


def _reader_order(user) -> list:
    """The items in a language the reviewer reads (their profile's languages, issue 41:
    `zh` reads `zh`, `zh-Hant`, …) before the others; nothing when they list none. The
    others stay offered after them: a reviewer's languages steer, they do not hide."""
    profile = getattr(user, "profile", None)  # accounts.Profile, by its reverse accessor
    subtags = reader_first(list(profile.languages)) if profile is not None else []
    if not subtags:
        return []
    language = "response__question__language"
    read = Q()
    for subtag in subtags:
        read |= Q(**{language: subtag}) | Q(**{f"{language}__istartswith": f"{subtag}-"})
    return [Case(When(read, then=Value(0)), default=Value(1), output_field=IntegerField())]


def next_task(user, queue: str = "review", filters: Filters = Filters()) -> ReviewTask | None:
    """The reviewer's current item (the one they hold), or the next free one, leased to them:
    first those in a language they read (`_reader_order`), then the oldest."""
    policy = CodingPolicy.current()
    for _ in range(20):  # a lost race on SQLite moves on to the next candidate
        now = timezone.now()
        with transaction.atomic():
            found = available(user, queue, filters, now)
            held = found.filter(leased_by=user, lease_expires_at__gte=now).order_by("id").first()
            if held is not None:
                return held
            candidates = found.order_by(*_reader_order(user), "id")
            if connection.features.has_select_for_update_skip_locked:
                # Rows another reviewer is leasing right now are skipped, not waited for.
                candidates = candidates.select_for_update(skip_locked=True, of=("self",))
            task = candidates.first()
            if task is None:
                return None
            # Conditional: zero rows means someone took it between the read and here.
            expires = now + _lease_for(policy)
            taken = (ReviewTask.objects.filter(_free_for(user, now), pk=task.pk, status=ReviewTask.Status.OPEN)
                     .update(leased_by=user, lease_expires_at=expires))
            if taken:
                task.leased_by, task.lease_expires_at = user, expires
                return task
    return None


class AlreadyDone(CodingError):
    """The item was dealt with by this same reviewer (in another tab or window)."""


def _hold(task_id: int, user) -> ReviewTask:
    task = ReviewTask.objects.select_for_update().filter(pk=task_id).first()
    if task is None:
        raise CodingError("no such item")
    if task.status == ReviewTask.Status.DONE and task.done_by_id == user.pk:
        # The same reviewer with two tabs: tell them the truth, not "someone else".
        mine = (Code.objects.filter(task=task, coder=user, undone_at__isnull=True).order_by("-id")
                .values_list("presented_letter", flat=True).first())
        raise AlreadyDone(f"you already coded item {task.pk} in another tab as {mine or '?'}; this key was not "
                          f"saved (U undoes your last code)")
    if task.status != ReviewTask.Status.OPEN:
        raise CodingError("this item is no longer open (coded by someone else, or withdrawn after re-encoding)")
    if task.leased_by_id != user.pk:
        if task.skipped_by.filter(pk=user.pk).exists():
            raise AlreadyDone(f"you skipped item {task.pk} in another tab; it is back in the queue for others")
        raise CodingError("your hold on this item ran out and it went back to the queue; take the next item")
    return task


MAX_NOTE_CHARS = 2000


def submit_code(task_id: int, user, letter: str, note: str = "") -> Code:
    """A reviewer's (or adjudicator's) code for the item they hold, in presented letters."""
    letter = (letter or "").strip().upper()
    if len(note or "") > MAX_NOTE_CHARS:
        raise CodingError(f"a note holds at most {MAX_NOTE_CHARS} characters")
    with transaction.atomic():
        task = _hold(task_id, user)
        response = Response.objects.select_for_update(of=("self",)).get(pk=task.response_id)
        valid = LETTERS[: len(response.question.options)] + REFUSAL + INVALID
        if len(letter) != 1 or letter not in valid:
            raise CodingError(f"{letter or 'an empty code'} is not one of {', '.join(valid)}")
        code = canonical_code(letter, response.option_order)
        current = response.codes.filter(is_current=True).first()
        purpose = task.purpose
        new = Code(response=response, code=code, presented_letter=letter, task=task, coder=user, note=note.strip(),
                   source=Source.ADJUDICATION if purpose == Purpose.ADJUDICATION else Source.REVIEWER,
                   supersedes=current)
        if purpose in (Purpose.PRIMARY, Purpose.ADJUDICATION):
            set_code(response.pk, new, current)
            if purpose == Purpose.ADJUDICATION:
                withdraw(response.review_tasks.filter(purpose__in=REVIEW_PURPOSES))
            else:
                policy = CodingPolicy.current()
                if picked(response.pk, policy.double_coding_share, policy.seed, "second"):
                    ReviewTask.objects.create(response=response, purpose=Purpose.SECOND, caused_by=new)
        else:
            # Blind second coding or audit: recorded beside the current code; a different
            # code sends the answer to adjudication.
            record_code(new)
            if current is not None and current.code != code:
                open_task(response, Purpose.ADJUDICATION, caused_by=new)
        ReviewTask.objects.filter(pk=task.pk).update(status=ReviewTask.Status.DONE, done_by=user,
                                                     done_at=timezone.now(), leased_by=None, lease_expires_at=None)
        if purpose in (Purpose.AUDIT, Purpose.ADJUDICATION):
            audits.refresh_rules_of(response.pk)
        return new


def skip_task(task_id: int, user):
    """Pass on an item: it goes back to the queue for others and is not offered to this user again."""
    with transaction.atomic():
        task = _hold(task_id, user)
        task.skipped_by.add(user)
        ReviewTask.objects.filter(pk=task.pk).update(leased_by=None, lease_expires_at=None)


def undo_last(user) -> ReviewTask:
    """Take back the user's last code: the previous code is current again, tasks that code
    caused are withdrawn, and the item is the user's to code again."""
    with transaction.atomic():
        last = (Code.objects.select_for_update().filter(coder=user, undone_at__isnull=True, source__in=HUMAN_SOURCES)
                .order_by("-created_at", "-id").first())
        if last is None:
            raise CodingError("nothing to undo")
        caused = ReviewTask.objects.filter(caused_by=last)
        if caused.filter(status=ReviewTask.Status.DONE).exists():
            raise CodingError("another reviewer has already coded this answer after you; it cannot be undone here")
        withdraw(caused)
        response = Response.objects.select_for_update(of=("self",)).get(pk=last.response_id)
        if last.is_current:
            previous = last.supersedes if last.supersedes and last.supersedes.undone_at is None else None
            set_code(response.pk, previous, last, UNRESOLVED)
        Code.objects.filter(pk=last.pk).update(undone_at=timezone.now())
        policy = CodingPolicy.current()
        ReviewTask.objects.filter(pk=last.task_id).update(
            status=ReviewTask.Status.OPEN, done_by=None, done_at=None, leased_by=user,
            lease_expires_at=timezone.now() + _lease_for(policy))
        task = ReviewTask.objects.get(pk=last.task_id)
        if task.purpose in (Purpose.AUDIT, Purpose.ADJUDICATION):
            audits.refresh_rules_of(last.response_id)
        return task


def release_expired_leases() -> int:
    """Clear leases that ran out (the queue already treats them as free; this tidies the list)."""
    return ReviewTask.objects.filter(status=ReviewTask.Status.OPEN, lease_expires_at__lt=timezone.now()).update(
        leased_by=None, lease_expires_at=None)
