"""One unit of work, start to finish: claim the response row, build the request, use
the cache or call the model (with no transaction open), write the result.

Called by the Celery task; returns what the task should do next, so the task stays a
few lines and this stays testable without a broker.
"""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal

from celery.utils.time import get_exponential_backoff_interval
from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, F, Q, Sum
from django.utils import timezone

from benchmarks_app import families
from benchmarks_app.lettering import option_letters
from benchmarks_app.services import render_messages

from . import llm, local_provider, queueing
from .launch_plan import budget_reached
from .limits import LimitBusy, get_limiter, slot
from .models import CachedCompletion, LLMModel, Response, Run
from .planning import cache_key
from .signals import response_answered, run_finished


@dataclass
class Outcome:
    action: str  # done, failed, retry, requeue, skipped, paused (budget reached), cancelled
    countdown: float = 0.0


def build_request(response: Response, model: LLMModel, run: Run) -> llm.LLMRequest:
    """The request of one unit: the messages as the question's family renders them under
    the unit's condition (kept on the row once sent, so a retry asks the same), and the
    model's parameters with the condition's temperature where it sets one."""
    question, condition = response.question, response.condition
    options = question.option_texts()
    messages = response.messages or conversation(response, run)
    mode = model.answer_mode if options else LLMModel.AnswerMode.GENERATE
    params = model.sampling_params() if mode == LLMModel.AnswerMode.GENERATE else {}
    if params and condition.temperature is not None:
        params["temperature"] = condition.temperature
    if mode == LLMModel.AnswerMode.RANK and not response.messages:
        # What is scored: the family's plain prompt, each option's text as its continuation.
        rank_prompt = families.family(question.benchmark.family).rank_prompt
        if rank_prompt is None:
            raise llm.LLMError("bad_request", f"rank classification is not defined for {question.benchmark.family} "
                               "questions; ask this model in choice or generate mode", transient=False)
        prompt, continuations = rank_prompt(question, response.option_order, condition, run.system_prompt)
        messages = [{"role": "user", "content": prompt}]
        params = {"mode": "rank", "continuations": list(continuations)}
    elif mode == LLMModel.AnswerMode.RANK:
        params = {"mode": "rank", "continuations": list(response.params.get("continuations") or [])}
    if model.is_bundled:
        local_provider.configure(settings.CFPD_MODELS_DIR, settings.CFPD_LOCAL_THREADS)
    return llm.LLMRequest(
        model=model.litellm_model, messages=messages, params=params,
        api_base=None if model.is_bundled else (model.api_base or None),
        timeout=model.timeout_seconds, mode=mode, letters=option_letters(len(options)),
        strategy=model.choice_strategy, top_logprobs=model.top_logprobs,
        input_cost_per_token=float(model.input_cost_per_token) if model.input_cost_per_token is not None else None,
        output_cost_per_token=float(model.output_cost_per_token) if model.output_cost_per_token is not None else None,
    )


def conversation(response: Response, run: Run) -> list[dict[str, str]]:
    """The unit's messages as its family renders them; a follow-up continues the
    conversation of the unit it follows: that unit's messages and answer, then the
    follow-up's own turns (its system message is the earlier one)."""
    messages = render_messages(response.question, response.option_order, response.condition, run.system_prompt)
    if response.previous_id is None:
        return messages
    previous = Response.objects.only("messages", "raw_output").get(pk=response.previous_id)
    return (list(previous.messages) + [{"role": "assistant", "content": previous.raw_output}]
            + [message for message in messages if message["role"] != "system"])


def _create_follow_ups(response: Response) -> list[int]:
    """The units that follow this answer in the same conversation (same run, model,
    condition and repeat), once: the unique unit constraint makes a second creation a
    no-op. Called inside the transaction that writes the answer."""
    follow_ups = families.family(response.question.benchmark.family).follow_ups
    if follow_ups is None:
        return []
    question_ids = follow_ups(response.question)
    if not question_ids:
        return []
    Response.objects.bulk_create(
        [Response(run_id=response.run_id, question_id=question_id, model_id=response.model_id,
                  condition_id=response.condition_id, repeat=response.repeat, previous_id=response.pk)
         for question_id in question_ids], ignore_conflicts=True)
    return list(Response.objects.filter(previous_id=response.pk, status=Response.Status.PENDING,
                                        enqueued_at__isnull=True).values_list("id", flat=True))


def _finish_answered(response: Response, token: str, **fields) -> bool:
    """Write a done answer and create the units that follow it, in one transaction: a
    follow-up exists exactly when the answer it follows is written. Follow-ups of a run
    cancelled meanwhile end cancelled (a resume asks them)."""
    with transaction.atomic():
        written = _finish(response.pk, token, status=Response.Status.DONE, **fields)
        follow_up_ids = _create_follow_ups(response) if written else []
        if follow_up_ids:
            queueing.enqueue(follow_up_ids)
    if follow_up_ids:
        Response.objects.filter(of_runs(Run.Status.CANCELLED), pk__in=follow_up_ids,
                                status=Response.Status.PENDING).update(status=Response.Status.CANCELLED)
    return written


def uses_cache(run: Run, model: LLMModel) -> bool:
    if run.use_cache is not None:
        return run.use_cache
    return model.answer_mode in (LLMModel.AnswerMode.CHOICE, LLMModel.AnswerMode.RANK) or (
        model.temperature == 0 and run.repeats == 1)


def call_lease(model: LLMModel) -> float:
    """Seconds a claim or a slot holds for one call: the model's timeout and a margin."""
    return model.timeout_seconds + settings.CFPD_LEASE_MARGIN


def of_runs(*statuses: str) -> Q:
    """Units of runs in these statuses, as a sub-select of the runs alone. Not
    `run__status__in`: Django turns a filter across a join into `id IN (SELECT … JOIN …)`
    with the unit's own conditions inside it, and PostgreSQL does not re-check those after
    an UPDATE waited for another transaction's lock on the row, so two claims meeting on
    one unit would both take it (tests/integration/test_claim_race.py)."""
    return Q(run_id__in=Run.objects.filter(status__in=statuses).values("pk"))


def claim(response_id: int, lease_seconds: float) -> str | None:
    """Take the unit if it is pending, or running under a lease that ran out (its worker
    died). Zero rows updated means another worker has it or it is finished."""
    token = uuid.uuid4().hex
    now = timezone.now()
    taken = (Response.objects.filter(pk=response_id)
             .filter(Q(status=Response.Status.PENDING) | Q(status=Response.Status.RUNNING, lease_expires_at__lt=now))
             .filter(of_runs(Run.Status.QUEUED, Run.Status.RUNNING))
             .update(status=Response.Status.RUNNING, claim_token=token, attempts=F("attempts") + 1,
                     lease_expires_at=now + timedelta(seconds=lease_seconds)))
    return token if taken else None


def _finish(response_id: int, token: str, **fields) -> bool:
    """Write the result only if this worker still holds the claim (one UPDATE: atomic by itself)."""
    return bool(Response.objects.filter(pk=response_id, claim_token=token, status=Response.Status.RUNNING)
                .update(claim_token="", lease_expires_at=None, **fields))


def _result_fields(result: llm.LLMResult) -> dict:
    return dict(
        raw_output=result.text, resolved_model=result.resolved_model, finish_reason=result.finish_reason,
        latency_ms=result.latency_ms, prompt_tokens=result.prompt_tokens, completion_tokens=result.completion_tokens,
        cost=result.cost, option_logprobs=result.option_logprobs, chosen_letter=result.chosen_letter or "",
        option_mean_logprobs=result.option_mean_logprobs,
    )


def spent(run_id: int, money: bool = True) -> tuple[Decimal, int]:
    """What a run has spent: US$ of the calls it made (answers from the cache cost
    nothing) and the units it finished (done or failed). Without `money` only the units
    are counted, from the (run, status) index alone."""
    finished = Response.objects.filter(run_id=run_id, status__in=[Response.Status.DONE, Response.Status.FAILED])
    if not money:
        return Decimal(0), finished.count()
    totals = finished.aggregate(cost=Sum("cost", filter=Q(cache_hit=False)), units=Count("id"))
    return Decimal(totals["cost"] or 0), totals["units"]


def over_budget(run: Run) -> bool:
    """Pause the run if what it spent reaches its budget; whether it is paused (or was).
    A run without a budget costs no query; one with a budget one aggregate per check
    (before each call and after each answer)."""
    if run.budget_usd is None and run.budget_units is None:
        return False
    spent_usd, spent_units = spent(run.pk, money=run.budget_usd is not None)
    if not budget_reached(run.budget_usd, run.budget_units, spent_usd, spent_units):
        return False
    Run.objects.filter(pk=run.pk, status__in=[Run.Status.QUEUED, Run.Status.RUNNING]).update(status=Run.Status.PAUSED)
    return True


def _give_back(response_id: int, token: str, **fields) -> bool:
    """Return a claimed unit to pending (to be asked later). If its run was cancelled
    meanwhile, the unit ends cancelled instead: a cancelled run sends no more messages,
    so a pending unit of it would stay pending forever. Returns whether it is pending."""
    Response.objects.filter(pk=response_id, claim_token=token).update(
        status=Response.Status.PENDING, claim_token="", lease_expires_at=None, **fields)
    # After the write, not before: `cancel_run` cancels pending units in one update, so
    # either it saw this unit pending, or this sees the run cancelled.
    cancelled = Response.objects.filter(of_runs(Run.Status.CANCELLED), pk=response_id,
                                        status=Response.Status.PENDING).update(status=Response.Status.CANCELLED)
    return not cancelled


def execute(response_id: int) -> Outcome:
    response = (Response.objects.select_related("run", "model", "question__benchmark", "condition")
                .filter(pk=response_id).first())
    if response is None:
        return Outcome("skipped")
    run, model = response.run, response.model
    if model.is_external:
        return Outcome("skipped")
    token = claim(response_id, call_lease(model))
    if token is None:
        return Outcome("skipped")
    if over_budget(run):
        # Not asked: the unit waits, pending, for a resume with a higher budget.
        _give_back(response_id, token, attempts=F("attempts") - 1)
        return Outcome("paused")
    if run.status == Run.Status.QUEUED:
        Run.objects.filter(pk=run.pk, status=Run.Status.QUEUED).update(status=Run.Status.RUNNING,
                                                                       started_at=timezone.now())
    try:
        request = build_request(response, model, run)
    except llm.LLMError as error:  # the question cannot be asked this way: nothing to retry
        written = _finish(response_id, token, status=Response.Status.FAILED, error_kind=error.kind,
                          error_message=error.message, answered_at=timezone.now())
        finish_run_if_complete(run.pk)
        return Outcome("failed" if written else "skipped")
    record = dict(messages=request.messages, params=request.resolved_params())
    key = cache_key(request.model, request.api_base, request.mode, record["params"], request.messages,
                    request.letters) if uses_cache(run, model) else ""
    if key:
        cached = CachedCompletion.objects.filter(key=key).first()
        if cached is not None:
            written = _finish_answered(response, token, cache_hit=True, cache_key=key,
                                       answered_at=timezone.now(), error_kind="", error_message="",
                                       **record, **_result_fields(llm.LLMResult(**cached.result)))
            return _after_write(response_id, run, written)
    # Give the database connection back while the model answers (to the pool on
    # PostgreSQL): a thread waiting on a model holds no connection and no transaction.
    # (Inside an atomic block, as in a test case, closing would break the block.)
    if not connection.in_atomic_block:
        connection.close()
    limiter = get_limiter(settings.REDIS_URL)
    try:
        with slot(limiter, f"model-{model.pk}", model.max_concurrency, model.requests_per_minute,
                  lease=call_lease(model), wait=settings.CFPD_SLOT_WAIT):
            result = (llm.rank(request, request.messages[0]["content"], request.params["continuations"])
                      if request.mode == LLMModel.AnswerMode.RANK else llm.complete(request))
    except LimitBusy as busy:
        # Not the model's fault: give the unit back untouched (attempt not counted).
        if not _give_back(response_id, token, attempts=F("attempts") - 1):
            finish_run_if_complete(run.pk)
            return Outcome("cancelled")
        return Outcome("requeue", countdown=busy.retry_in * (1 + random.random()))
    except llm.LLMError as error:
        attempts = Response.objects.values_list("attempts", flat=True).get(pk=response_id)
        if error.transient and attempts < settings.CFPD_MAX_ATTEMPTS:
            wait = get_exponential_backoff_interval(settings.CFPD_BACKOFF_FACTOR, attempts, settings.CFPD_BACKOFF_MAX,
                                                    full_jitter=True)
            wait = max(wait, error.retry_after or 0)
            if not _give_back(response_id, token, error_kind=error.kind, error_message=error.message,
                              enqueued_at=timezone.now(), **record):
                finish_run_if_complete(run.pk)
                return Outcome("cancelled")
            return Outcome("retry", countdown=wait)
        written = _finish(response_id, token, status=Response.Status.FAILED, error_kind=error.kind,
                          error_message=error.message, answered_at=timezone.now(), **record)
        finish_run_if_complete(run.pk)
        over_budget(run)
        return Outcome("failed" if written else "skipped")
    fields = _result_fields(result)
    written = _finish_answered(response, token, cache_key=key, answered_at=timezone.now(),
                               error_kind="", error_message="", **record, **fields)
    if key:
        CachedCompletion.objects.get_or_create(key=key, defaults={"model_name": request.model, "result": {
            "text": result.text, "resolved_model": result.resolved_model, "finish_reason": result.finish_reason,
            "latency_ms": result.latency_ms, "prompt_tokens": result.prompt_tokens,
            "completion_tokens": result.completion_tokens, "cost": result.cost,
            "option_logprobs": result.option_logprobs, "chosen_letter": result.chosen_letter,
            "option_mean_logprobs": result.option_mean_logprobs}})
    return _after_write(response_id, run, written)


def _after_write(response_id: int, run: Run, written: bool) -> Outcome:
    """A result reached the row only if this worker still held its claim; otherwise
    another worker took the unit over (lease ran out) and reports it: nothing done here."""
    if not written:
        finish_run_if_complete(run.pk)
        return Outcome("skipped")
    _answered(response_id, run.pk)
    over_budget(run)
    return Outcome("done")


def _answered(response_id: int, run_id: int):
    """Code the answer (receivers of `response_answered`) before the run can be marked
    done, so a finished run has every answer coded or queued for reviewers."""
    response_answered.send(sender=Response, response_id=response_id)
    finish_run_if_complete(run_id)


def finish_run_if_complete(run_id: int):
    """Mark the run done once no unit is pending or running (a conditional update, so
    concurrent workers finishing the last units agree). A cancelled run is finished
    (its finished time written) once the last unit a worker had taken ends."""
    open_units = Response.objects.filter(run_id=run_id, status__in=[Response.Status.PENDING, Response.Status.RUNNING])
    if not open_units.exists():
        finished = Run.objects.filter(pk=run_id, status__in=[Run.Status.QUEUED, Run.Status.RUNNING]).update(
            status=Run.Status.DONE, finished_at=timezone.now())
        if finished:
            run_finished.send_robust(sender=Run, run_id=run_id)
        else:
            Run.objects.filter(pk=run_id, status=Run.Status.CANCELLED, finished_at__isnull=True).update(
                finished_at=timezone.now())
