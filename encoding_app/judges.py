"""Judge-assisted coding: a model reads the answers the encoder left unresolved.

- `request_judging` makes a judge run: one unit per unresolved answer, carrying its own
  judge prompt (the engine sends a unit's messages as they are), queued like any run.
- `record_reading` reads a judge unit's output with the never-guessing encoder and keeps
  it as a suggestion for the reviewer of the target answer; a promoted judge's reading
  is a code (source `judge`, rule `judge:<model>`), sampled for audit like a rule's.
- `promote_judge` needs the audit page's evidence: at least `min_judge_items` answers that
  both the judge read and a person coded. `demote_judge` takes its codes back (they stay
  as history) and returns those answers to the reviewers.
"""

from __future__ import annotations

from collections import Counter

from django.db import transaction
from django.utils import timezone

from runs_app import services as runs
from runs_app import unit_rows
from runs_app.models import LLMModel, Response, Run

from . import audits
from .current_code import UNRESOLVED, set_code
from .judge_prompt import judge_messages, read_verdict
from .letters import canonical_code
from .models import Code, CodingPolicy, Judge, JudgeRequest, ReviewTask, Source
from .services import CodingError, open_task, presented_options, sample_for_audit, withdraw

Purpose = ReviewTask.Purpose


def judge_for(model: LLMModel) -> Judge:
    judge, _ = Judge.objects.get_or_create(model=model)
    return judge


def unresolved_answers(run: Run):
    """The run's answers waiting for a person's first code."""
    return (Response.objects.filter(run=run, code="", code_source=UNRESOLVED, judge_request__isnull=True,
                                    review_tasks__purpose=Purpose.PRIMARY,
                                    review_tasks__status=ReviewTask.Status.OPEN)
            .select_related("question").distinct().order_by("pk"))


@transaction.atomic
def request_judging(run: Run, judge_model: LLMModel, user=None) -> Run:
    """A judge run over the unresolved answers of `run` that this judge has not read yet."""
    if judge_model.is_external:
        raise CodingError(f"{judge_model.name} only holds imported answers and cannot be called; "
                          f"choose a model that can be called as the judge")
    if run.kind == Run.Kind.JUDGE:
        raise CodingError(f"run {run.pk} is itself a judge run; judge the run whose answers it reads")
    judge = judge_for(judge_model)
    already = JudgeRequest.objects.filter(judge=judge, target_response__run=run).values("target_response_id")
    targets = list(unresolved_answers(run).exclude(pk__in=already))
    if not targets:
        raise CodingError(f"run {run.pk} has no unresolved answers that {judge_model.name} has not read yet")
    judge_run = runs.create_run(Run.Kind.JUDGE, run.benchmark, [judge_model], selection={"judge_of": run.pk},
                                repeats=1, note=f"judge of run {run.pk}", launched_by=user, use_cache=False)
    # (run, question, model, repeat) is unique: answers to the same question (other models,
    # other repeats) become repeats of the judge's unit for that question.
    repeats: Counter = Counter()
    pairs = []
    for target in targets:
        options = presented_options(target)
        unit = dict(run=judge_run, question=target.question, model=judge_model,
                    repeat=repeats[target.question_id], option_order=target.option_order,
                    messages=judge_messages(target.question.text,
                                            [(o["letter"], o["text"]) for o in options], target.raw_output))
        repeats[target.question_id] += 1
        pairs.append((unit, target))
    unit_rows.create_rows([unit for unit, _ in pairs])
    units = {(u.question_id, u.repeat): u.pk for u in judge_run.responses.all()}
    JudgeRequest.objects.bulk_create([
        JudgeRequest(judge_response_id=units[(unit["question"].pk, unit["repeat"])], target_response=target,
                     judge=judge, requested_by=user) for unit, target in pairs])
    runs.queue_new_units(judge_run, list(units.values()))
    return judge_run


def judge_units(response_ids: list[int]) -> list[int]:
    """Those of the responses that are judge units (the units of judge runs)."""
    return list(Response.objects.filter(pk__in=response_ids).judge_units().values_list("pk", flat=True))


def suggestion_text(request: JudgeRequest) -> str:
    name = request.judge.model.name
    if request.read_at is None:
        status = request.judge_response.status
        if status in (Response.Status.FAILED, Response.Status.CANCELLED):
            return f"Judge {name} gave no reading (its call {status})"
        return f"Judge {name} has not answered yet"
    return f"Judge {name} suggests {request.reading}" if request.reading else f"Judge {name} could not tell"


def _code_as_judge(request: JudgeRequest, target: Response, policy: CodingPolicy | None = None) -> Code | None:
    """Give the target the promoted judge's code, if it is still waiting for a first code."""
    current = target.codes.filter(is_current=True).first()
    if current is not None or target.code or target.code_source != UNRESOLVED or not request.code:
        return None
    new = Code(response=target, code=request.code, presented_letter=request.reading, source=Source.JUDGE,
               rule=request.judge.rule, confidence=audits.judge_agreement(request.judge).accuracy)
    set_code(target.pk, new, None)
    withdraw(target.review_tasks.filter(purpose=Purpose.PRIMARY))
    sample_for_audit(target, new, policy)
    return new


def record_reading(judge_response_id: int) -> JudgeRequest | None:
    """A judge unit was answered: keep its reading; a promoted judge's reading codes the answer."""
    with transaction.atomic():
        request = (JudgeRequest.objects.select_for_update(of=("self",)).select_related("judge__model")
                   .filter(judge_response_id=judge_response_id).first())
        if request is None:
            return None
        unit = Response.objects.get(pk=judge_response_id)
        target = Response.objects.select_for_update(of=("self",)).select_related("question").get(
            pk=request.target_response_id)
        if unit.status == Response.Status.DONE:
            verdict = read_verdict(unit.raw_output, [o["text"] for o in presented_options(target)])
        else:
            verdict = None
        request.reading = verdict.code if verdict and verdict.code else ""
        request.code = canonical_code(request.reading, target.option_order) if request.reading else ""
        request.reading_rule = verdict.rule if verdict else f"judge-{unit.status}"
        request.read_at = timezone.now()
        request.save(update_fields=["reading", "code", "reading_rule", "read_at"])
        if request.judge.promoted:
            _code_as_judge(request, target)
        return request


def latest_readings(target: Response) -> list[JudgeRequest]:
    """Each judge's latest request about an answer, for the reviewer."""
    latest: dict[int, JudgeRequest] = {}
    for request in (JudgeRequest.objects.filter(target_response=target)
                    .select_related("judge__model", "judge_response").order_by("created_at", "id")):
        if request.read_at is not None or request.judge_id not in latest:
            latest[request.judge_id] = request
    return list(latest.values())


@transaction.atomic
def promote_judge(judge: Judge, user=None) -> audits.JudgeAgreement:
    """Promote a judge once enough of its readings were checked against people's codes;
    its readings of answers still waiting for a person then become codes."""
    policy = CodingPolicy.current()
    agreement = audits.judge_agreement(judge)
    if agreement.n < policy.min_judge_items:
        raise CodingError(
            f"judge {judge.model.name} cannot be promoted yet: {agreement.n} of its readings have a person's code "
            f"beside them, and promotion needs at least {policy.min_judge_items} (see the audit page)")
    Judge.objects.filter(pk=judge.pk).update(promoted=True, promoted_at=timezone.now(), promoted_by=user)
    judge.refresh_from_db()
    for request in JudgeRequest.objects.filter(judge=judge, read_at__isnull=False).exclude(code="").select_related(
            "judge__model").order_by("target_response_id", "-read_at"):
        target = Response.objects.select_for_update(of=("self",)).get(pk=request.target_response_id)
        _code_as_judge(request, target, policy)
    return agreement


@transaction.atomic
def demote_judge(judge: Judge, user=None) -> int:
    """The judge's current codes stop being current (kept as history, never deleted) and
    their answers go back to the reviewers. Returns how many answers went back."""
    Judge.objects.filter(pk=judge.pk).update(promoted=False, demoted_at=timezone.now())
    judge.refresh_from_db()
    codes = list(Code.objects.filter(source=Source.JUDGE, rule=judge.rule, is_current=True)
                 .select_related("response"))
    for code in codes:
        response = Response.objects.select_for_update(of=("self",)).get(pk=code.response_id)
        set_code(response.pk, None, code, UNRESOLVED)
        withdraw(ReviewTask.objects.filter(caused_by=code))
        open_task(response, Purpose.PRIMARY, reason="judge-demoted",
                   explanation=f"Judge {judge.model.name} coded this {code.presented_letter}, but it was demoted; "
                               f"its code no longer counts. Code it yourself.")
    return len(codes)
