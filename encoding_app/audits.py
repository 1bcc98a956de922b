"""How far the automatic codes can be trusted: each rule's (and each judge's) codes
against people's on the audited sample, with a Wilson 95% interval; rules whose lower
bound falls below the coding policy's threshold are suspended.

Queries here; the statistics come from the pure `agreement` module.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from runs_app.models import Response

from .agreement import cohens_kappa, too_few, wilson_interval
from .filters import Filters
from .models import Code, CodingPolicy, Judge, JudgeRequest, ReviewTask, RuleStatus, Source

JUDGE_PREFIX = "judge:"


def coded_responses(filters: Filters = Filters()):
    """CFPD answers to questions with options: free-text questions are not coded, and a
    judge unit (a response of a judge run) is never an answer of its own."""
    return filters.apply(Response.objects.answers().filter(question__choice_count__gt=0), to_response="")


@dataclass
class RuleAudit:
    rule: str
    n: int
    correct: int
    confusion: dict  # {(auto code, reference code): n}
    status: RuleStatus | None = None

    @property
    def accuracy(self):
        return self.correct / self.n if self.n else None

    @property
    def interval(self):
        return wilson_interval(self.correct, self.n)

    @property
    def too_few(self):
        return too_few(self.n)

    @property
    def is_judge(self):
        return self.rule.startswith(JUDGE_PREFIX)


def _references(response_ids) -> dict[int, str]:
    """The people's code of each answer: the adjudicated one where there is one, else the
    first reviewer's (undone codes do not count)."""
    codes = (Code.objects.filter(source__in=[Source.REVIEWER, Source.ADJUDICATION], undone_at__isnull=True,
                                 response_id__in=response_ids)
             .order_by("id").values_list("response_id", "source", "code"))
    reviewer, adjudicated = {}, {}
    for response_id, source, code in codes:
        if source == Source.ADJUDICATION:
            adjudicated[response_id] = code
        else:
            reviewer.setdefault(response_id, code)
    return {**reviewer, **adjudicated}


def rule_audits(filters: Filters = Filters(), rule: str | None = None, since=None) -> list[RuleAudit]:
    """Automatic (and promoted judges') codes against people's on the audited sample, per
    rule. The reference is the adjudicated code where there is one, else the audit
    reviewer's."""
    tasks = ReviewTask.objects.filter(purpose=ReviewTask.Purpose.AUDIT, status=ReviewTask.Status.DONE,
                                      caused_by__isnull=False, response__in=coded_responses(filters))
    if rule is not None:
        tasks = tasks.filter(caused_by__rule=rule)
    if since is not None:
        tasks = tasks.filter(caused_by__created_at__gte=since)
    tasks = list(tasks.select_related("caused_by"))
    reviewer = dict(Code.objects.filter(task__in=tasks, undone_at__isnull=True).values_list("task_id", "code"))
    adjudicated = dict(Code.objects.filter(source=Source.ADJUDICATION, undone_at__isnull=True,
                                           response_id__in=[t.response_id for t in tasks])
                       .order_by("id").values_list("response_id", "code"))
    by_rule: dict[str, RuleAudit] = {}
    for task in tasks:
        reference = adjudicated.get(task.response_id) or reviewer.get(task.pk)
        if reference is None:
            continue
        auto = task.caused_by
        entry = by_rule.setdefault(auto.rule, RuleAudit(auto.rule, 0, 0, Counter()))
        entry.n += 1
        entry.correct += auto.code == reference
        entry.confusion[(auto.code, reference)] += 1
    return sorted(by_rule.values(), key=lambda r: -r.n)


def refresh_rule(rule: str, policy: CodingPolicy | None = None) -> RuleStatus | None:
    """Recount a rule's audit (since it was last re-enabled) and suspend it when, with at
    least `min_audited_items` audited answers, the Wilson lower bound of its accuracy
    falls below `min_rule_accuracy`. Judges are governed by promotion, not here."""
    if not rule or rule.startswith(JUDGE_PREFIX) or rule == "logprobs":
        return None
    policy = policy or CodingPolicy.current()
    with transaction.atomic():
        status, _ = RuleStatus.objects.select_for_update().get_or_create(rule=rule)
        audits = rule_audits(rule=rule, since=status.counted_from)
        audited = audits[0] if audits else RuleAudit(rule, 0, 0, Counter())
        status.audited, status.correct = audited.n, audited.correct
        status.lower, status.upper = audited.interval if audited.n else (None, None)
        if (not status.suspended and audited.n >= policy.min_audited_items
                and status.lower is not None and status.lower < policy.min_rule_accuracy):
            status.suspended, status.suspended_at = True, timezone.now()
        status.save()
        return status


def refresh_rules_of(response_id: int):
    """After a person's code on an answer: recount the rules whose codes it audits."""
    rules = set(Code.objects.filter(response_id=response_id, source=Source.AUTO).values_list("rule", flat=True))
    policy = CodingPolicy.current()
    for rule in rules:
        refresh_rule(rule, policy)


def reenable_rule(rule: str, user=None) -> RuleStatus:
    """An admin's decision: the rule codes again, and its audit window starts afresh (the
    audits that suspended it no longer count towards suspension; the page still shows them)."""
    now = timezone.now()
    status, _ = RuleStatus.objects.get_or_create(rule=rule)
    RuleStatus.objects.filter(pk=status.pk).update(suspended=False, suspended_at=None, counted_from=now,
                                                   reenabled_by=user, audited=0, correct=0, lower=None, upper=None)
    status.refresh_from_db()
    return status


def suspended_rules() -> set[str]:
    return set(RuleStatus.objects.filter(suspended=True).values_list("rule", flat=True))


def rule_confidence(rule: str) -> float | None:
    """A code's confidence: its rule's audited accuracy (None before any audit)."""
    status = RuleStatus.objects.filter(rule=rule).first()
    return status.accuracy if status else None


# ---------------------------------------------------------------- judges

@dataclass
class JudgeAgreement:
    judge: Judge
    n: int = 0  # answers the judge read as a code and a person coded
    agree: int = 0
    kappa: float | None = None
    unread: int = 0  # answers it could not tell
    confusion: Counter = field(default_factory=Counter)

    @property
    def accuracy(self):
        return self.agree / self.n if self.n else None

    @property
    def interval(self):
        return wilson_interval(self.agree, self.n)

    @property
    def too_few(self):
        return too_few(self.n)


def judge_agreement(judge: Judge) -> JudgeAgreement:
    """The judge's readings against people's codes of the same answers (the latest reading
    per answer; readings it could not make are counted apart)."""
    readings: dict[int, str] = {}
    for target, code in (JudgeRequest.objects.filter(judge=judge, read_at__isnull=False)
                         .order_by("read_at", "id").values_list("target_response_id", "code")):
        readings[target] = code
    result = JudgeAgreement(judge)
    references = _references(list(readings))
    pairs = [(code, references[target]) for target, code in readings.items() if target in references]
    result.unread = sum(1 for code, _ in pairs if not code)
    pairs = [(code, ref) for code, ref in pairs if code]
    result.n = len(pairs)
    result.agree = sum(a == b for a, b in pairs)
    result.confusion.update(pairs)
    result.kappa = cohens_kappa([a for a, _ in pairs], [b for _, b in pairs]) if pairs else None
    return result
