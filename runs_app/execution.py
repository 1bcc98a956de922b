"""Every unit's path, start to finish, alone or in a batch (a unit asked alone is a
batch of one): claim the response rows in one update, build the requests, use the cache
or call the models (with no transaction open), and write the results with one writer,
`write_answers`, which sends one signal, `responses_answered`, with the answers' ids.

`execute` asks one unit in this thread (the Celery task `ask`); `batch_execution` asks a
batch together on the event loop (`ask_batch`). Both return what the task should do next
for each unit, so the tasks stay a few lines and this stays testable without a broker.
"""

from __future__ import annotations

import logging
import random
import time
import uuid
from dataclasses import dataclass, field
from datetime import timedelta
from decimal import Decimal
from functools import partial

from celery.utils.time import get_exponential_backoff_interval
from django.conf import settings
from django.db import connection
from django.db.models import Count, F, Q, Sum
from django.utils import timezone

from benchmarks_app import families
from benchmarks_app.lettering import option_letters
from benchmarks_app.services import render_messages

import gateway
from gateway import LimitBusy, get_limiter, slot

from . import health, infra, queueing, unit_rows
from .answer_rows import _atomically, _cache_entry, patiently
from .launch_plan import budget_reached
from .models import CachedCompletion, LLMModel, Response, Run
from .planning import cache_key
from .signals import answers_writing, responses_answered
from .transitions import (answered_row, cancel_follow_ups, claim as claim_units, failed_row,
                          finish_run_if_complete, finish_units, give_back as _give_back, of_these_runs, pause_run,
                          start_runs)


@dataclass
class Outcome:
    action: str  # done, failed, retry, requeue, skipped, paused (budget reached), cancelled
    countdown: float = 0.0


def build_request(response: Response, model: LLMModel, run: Run) -> gateway.LLMRequest:
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
            raise gateway.LLMError("bad_request", f"rank classification is not defined for {question.benchmark.family} "
                               "questions; ask this model in choice or generate mode", transient=False)
        prompt, continuations = rank_prompt(question, response.option_order, condition, run.system_prompt)
        messages = [{"role": "user", "content": prompt}]
        params = {"mode": "rank", "continuations": list(continuations)}
    elif mode == LLMModel.AnswerMode.RANK:
        params = {"mode": "rank", "continuations": list(response.params.get("continuations") or [])}
    if model.is_bundled:
        gateway.configure_local(settings.CFPD_MODELS_DIR, settings.CFPD_LOCAL_THREADS)
    return gateway.LLMRequest(
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
    unit_rows.create_rows(
        [dict(run_id=response.run_id, question_id=question_id, model_id=response.model_id,
              condition_id=response.condition_id, repeat=response.repeat, previous_id=response.pk)
         for question_id in question_ids], ignore_conflicts=True)
    return list(Response.objects.filter(previous_id=response.pk, status=Response.Status.PENDING,
                                        enqueued_at__isnull=True).values_list("id", flat=True))


def uses_cache(run: Run, model: LLMModel) -> bool:
    if run.use_cache is not None:
        return run.use_cache
    return model.answer_mode in (LLMModel.AnswerMode.CHOICE, LLMModel.AnswerMode.RANK) or (
        model.temperature == 0 and run.repeats == 1)


def call_lease(model: LLMModel) -> float:
    """Seconds a claim or a slot holds for one call: the model's timeout and a margin."""
    return model.timeout_seconds + settings.CFPD_LEASE_MARGIN


def _result_fields(result: gateway.LLMResult) -> dict:
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
    pause_run(run.pk)
    return True


# ---------------------------------------------------------------- the one path of every unit

UNIT_FIELDS = ("run", "model", "question__benchmark", "condition")


@dataclass
class Unit:
    """One claimed unit on its way through `ask_units`: its request, cache key and what
    the asking brought back (a result, an error, or its model's slots busy)."""
    response: Response
    request: gateway.LLMRequest | None = None
    key: str = ""
    record: dict = field(default_factory=dict)
    result: gateway.LLMResult | None = None
    error: gateway.LLMError | None = None
    busy: LimitBusy | None = None
    cache_hit: bool = False
    infra: str | None = None  # a service failed around its call (infra.service_of): not the unit's failure


def execute(response_id: int, token: str | None = None) -> Outcome:
    """One unit asked alone: a batch of one, asked in this thread (a bundled model is
    computed here, a rank-mode unit scored here, a budgeted run's unit checked before its
    call). What the task should do next."""
    response = Response.objects.select_related(*UNIT_FIELDS).filter(pk=response_id).first()
    if response is None or response.model.is_external:
        return Outcome("skipped")
    return ask_units([response], ask_in_turn, token).get(response_id, Outcome("skipped"))


def ask_units(responses: list[Response], ask, token: str | None = None) -> dict[int, Outcome]:
    """Every unit's path, alone or in a batch: claim the units in one update; give back,
    unasked, those of a run whose budget is spent; build the requests; answer from the
    cache; `ask(units)` the rest with no database connection held; write every result with
    `write_answers`. Outcomes of the units taken (one another worker holds is not here).
    `token`: the claim's, given by a task retried after a service failed, so that it
    takes back the units it held (see `claim`)."""
    token, taken = claim(responses, token)
    outcomes: dict[int, Outcome] = {}
    for response in taken:
        if over_budget(response.run):
            # Not asked: the unit waits, pending, for a resume with a higher budget.
            _give_back(response.pk, token, response.run_id, attempts=F("attempts") - 1)
            outcomes[response.pk] = Outcome("paused")
    taken = [r for r in taken if r.pk not in outcomes]
    if not taken:
        return outcomes
    queued = {r.run_id for r in taken if r.run.status == Run.Status.QUEUED}
    if queued:
        start_runs(queued, timezone.now())
    units = [Unit(response) for response in taken]
    for unit in units:
        prepare(unit)
    answer_from_cache([u for u in units if u.key and u.error is None])
    to_ask = [u for u in units if u.request is not None and u.error is None and not u.cache_hit]
    if to_ask:
        # Give the database connection back while the models answer (to the pool on
        # PostgreSQL): a thread waiting on a model holds no connection and no transaction.
        # (Inside an atomic block, as in a test case, closing would break the block.)
        if not connection.in_atomic_block:
            connection.close()
        ask(to_ask)
    outcomes.update(write_answers(token, units))
    if to_ask:
        record_throughput(to_ask)
    return outcomes


def _held(ids: list[int], token: str, runs=()):
    """The units of `ids` (of `runs`: `transitions.of_these_runs`) still under the claim
    `token`. By primary key: claim_token has no index, and a lookup by token alone would
    read the whole table once per batch, a cost that grows with every run kept."""
    return Response.objects.filter(of_these_runs(runs), pk__in=ids, claim_token=token)


def claim(responses: list[Response], token: str | None = None) -> tuple[str, list[Response]]:
    """Take the units that are pending, or running under a lease that ran out (their
    worker died), in one update; the claim's token and the units taken, with their
    attempts counted. A unit not taken is another worker's, or finished. With the
    `token` of an earlier claim (a task retried after a service failed under it), the
    units still under that claim are taken back, their attempt not counted again."""
    token = token or uuid.uuid4().hex
    now = timezone.now()
    # Its units may wait for a slot under this claim, so the claim covers that wait too.
    lease = max(call_lease(r.model) for r in responses) + settings.CFPD_SLOT_WAIT
    ids = [r.pk for r in responses]
    runs = {r.run_id for r in responses}
    claim_units(ids, token, now + timedelta(seconds=lease), now, runs)
    attempts = dict(_held(ids, token, runs).values_list("pk", "attempts"))
    taken = []
    for response in responses:
        if response.pk in attempts:
            response.attempts, response.claim_token = attempts[response.pk], token
            taken.append(response)
    return token, taken


def prepare(unit: Unit):
    response = unit.response
    try:
        unit.request = build_request(response, response.model, response.run)
    except gateway.LLMError as error:  # the question cannot be asked this way: nothing to retry
        unit.error = error
        return
    unit.record = dict(messages=unit.request.messages, params=unit.request.resolved_params())
    if uses_cache(response.run, response.model):
        unit.key = cache_key(unit.request.model, unit.request.api_base, unit.request.mode, unit.record["params"],
                             unit.request.messages, unit.request.letters)


def answer_from_cache(units: list[Unit]):
    if not units:
        return
    found = dict(CachedCompletion.objects.filter(key__in={u.key for u in units}).values_list("key", "result"))
    for unit in units:
        if unit.key in found:
            unit.result, unit.cache_hit = gateway.LLMResult(**found[unit.key]), True


def ask_in_turn(units: list[Unit]):
    """Ask each unit in this thread, under one of its model's shared slots (a rank-mode
    unit's options scored as continuations)."""
    limiter = get_limiter(settings.REDIS_URL)
    for unit in units:
        model, request = unit.response.model, unit.request
        try:
            with slot(limiter, f"model-{model.pk}", partial(model_limit, limiter, model),
                      model.requests_per_minute, lease=call_lease(model), wait=settings.CFPD_SLOT_WAIT,
                      waiters=settings.CFPD_SLOT_WAITERS):
                unit.result = gateway.ask(request)
        except LimitBusy as busy:
            unit.busy = busy
        except gateway.LLMError as error:
            unit.error = error
        except Exception as exc:  # the limiter's Redis: never the unit's failure
            if unit.result is None and not set_infra(unit, exc):
                raise
        observe(limiter, unit)


def adaptive_on(model: LLMModel) -> bool:
    """Whether the model's calls in flight follow its adaptive controller (a bundled
    model is computed in this process: nothing to find out)."""
    return settings.CFPD_ADAPTIVE and not model.is_bundled


def model_limit(limiter, model: LLMModel) -> int:
    """Calls of the model in flight at once: its controller's limit, under its
    `max_concurrency` (a hard ceiling), or the ceiling itself with CFPD_ADAPTIVE=0."""
    if not adaptive_on(model):
        return model.max_concurrency
    return limiter.adaptive_limit(f"model-{model.pk}", model.max_concurrency)


def observe(limiter, unit: Unit):
    """Give the call's outcome (an answer with its rate-limit headers, a 429, a timeout)
    to its model's controller and pacing (`gateway.learn`). A unit that never got a slot
    made no call: nothing to learn."""
    model = unit.response.model
    if not adaptive_on(model) or unit.busy is not None or unit.infra is not None:
        return
    try:
        gateway.learn(limiter, f"model-{model.pk}", model.max_concurrency, unit.result, unit.error,
                      run_id=unit.response.run_id)
    except Exception as exc:  # noqa: BLE001 — the limiter's Redis: the answer stands; only the lesson is lost
        logging.getLogger(__name__).warning("adaptive limit of model %s not updated: %s", model.pk, exc)


_throughput_recorded: dict[int, float] = {}


def record_throughput(units: list[Unit]):
    """Write each run's figures per model (concurrency now, calls per minute since the
    last record, calls, 429s, timeouts) to `Run.throughput`: at most once every
    CFPD_THROUGHPUT_EVERY seconds per run and process, not a write per call."""
    if not settings.CFPD_ADAPTIVE:
        return
    now, wall = time.monotonic(), time.time()
    by_run: dict[int, dict[str, LLMModel]] = {}
    for unit in units:
        by_run.setdefault(unit.response.run_id, {})[f"model-{unit.response.model.pk}"] = unit.response.model
    try:
        limiter = get_limiter(settings.REDIS_URL)
        for run_id, models in by_run.items():
            if now - _throughput_recorded.get(run_id, float("-inf")) < settings.CFPD_THROUGHPUT_EVERY:
                continue
            _throughput_recorded[run_id] = now
            before = Run.objects.filter(pk=run_id).values_list("throughput", flat=True).first() or {}
            figures = dict(before)
            for key, counts in limiter.run_calls(run_id).items():
                model = models.get(key)
                pk = key.removeprefix("model-")
                previous = before.get(pk) or {}
                if model is None and not previous:
                    continue
                ceiling = model.max_concurrency if model is not None else previous.get("ceiling", 1)
                figures[pk] = {
                    "model": model.name if model is not None else previous.get("model", ""),
                    "concurrency": limiter.adaptive_limit(key, ceiling), "ceiling": ceiling,
                    "calls": counts["calls"], "rate_limited": counts[gateway.RATE_LIMITED],
                    "timeouts": counts[gateway.TIMEOUT], "at": wall,
                    "calls_per_minute": (gateway.calls_per_minute(previous["calls"], previous["at"], counts["calls"],
                                                                  wall) if "at" in previous else None),
                }
            if figures != before:
                Run.objects.filter(pk=run_id).update(throughput=figures)
    except Exception as exc:  # noqa: BLE001 — figures for the page: never a unit's failure
        logging.getLogger(__name__).warning("throughput not recorded: %s", exc)


def set_infra(unit: Unit, exc: Exception) -> bool:
    """Mark the unit as held up by a service (reported to this process's health), if
    `exc` is an infrastructure failure; whether it was."""
    service = infra.service_of(exc)
    if service is None:
        return False
    unit.infra = service
    health.report(service)
    logging.getLogger(__name__).warning("unit %s: %s unreachable (%s); queued again", unit.response.pk,
                                        infra.LABELS[service], exc)
    return True


def _answer_row(unit: Unit, now) -> Response:
    row = unit.response
    return answered_row(row, cache_key=unit.key, cache_hit=unit.cache_hit, answered_at=now, error_kind="",
                        error_message="", **unit.record, **_result_fields(unit.result))


def _failed_row(unit: Unit, now) -> Response:
    row = unit.response
    return failed_row(row, cache_key=unit.key, cache_hit=False, answered_at=now, error_kind=unit.error.kind,
                      error_message=unit.error.message, **unit.record)


def _connection_refused(unit: Unit) -> float | None:
    """A unit whose model's server could not be reached (connection refused, reset, no
    route): the model's calls are paused (every worker's) for CFPD_CONNECTION_PAUSE
    seconds, and while its server has been refusing for less than
    CFPD_CONNECTION_PATIENCE seconds the attempt is not counted; the unit goes back after
    the pause. Seconds to wait, or None once the outage is older than that (the attempt
    then counts like any transient error's)."""
    if unit.error is None or unit.error.kind != "connection":
        return None
    model = unit.response.model
    try:
        limiter = get_limiter(settings.REDIS_URL)
        pause = settings.CFPD_CONNECTION_PAUSE
        refusing_for = limiter.refused(f"model-{model.pk}", pause, memory=max(60.0, 4 * pause))
    except Exception as exc:  # the limiter's own service down: the unit waits for it instead
        if not set_infra(unit, exc):
            raise
        return None
    if refusing_for >= settings.CFPD_CONNECTION_PATIENCE:
        return None
    return pause * (1 + random.random())


def _retry_wait(unit: Unit) -> float | None:
    """Seconds to wait before asking a transiently failed unit again (exponential, full
    jitter, capped, never sooner than Retry-After); None when it has had its attempts."""
    error, attempts = unit.error, unit.response.attempts
    if not error.transient or attempts >= settings.CFPD_MAX_ATTEMPTS:
        return None
    wait = get_exponential_backoff_interval(settings.CFPD_BACKOFF_FACTOR, attempts, settings.CFPD_BACKOFF_MAX,
                                            full_jitter=True)
    return max(wait, error.retry_after or 0)


def loaded_questions(units: list[Unit]) -> dict:
    """The units' questions already loaded with their benchmark (a batch's, `batch_execution.
    load_units`), by id: passed with `responses_answered` so that coding the answers reads
    none of them again (issue 45: the coding's question query was 1.3 % of a worker's CPU
    at concurrency 128)."""
    question_field = Response._meta.get_field("question")
    found = {}
    for unit in units:
        if question_field.is_cached(unit.response):
            question = unit.response.question
            if type(question)._meta.get_field("benchmark").is_cached(question):
                found[question.pk] = question
    return found


def _code_on_the_way(rows: list[Response]) -> list:
    """`answers_writing`'s receivers given the answers about to be written (the coding app
    codes those read from a chosen letter onto the rows: issue 45, one row version, one
    transaction and its reads fewer per answer than coding them after the write); what
    they return to be called once the rows are written. A receiver that fails codes
    nothing: the answers are coded after the write, as before. The rows' copies are
    cleared first: a failed answer reopened (`transitions.reopen_missing`) still says
    "missing", which the statement would write again."""
    for row in rows:
        row.code = row.code_source = ""
    after = []
    for receiver, result in answers_writing.send_robust(sender=Response, rows=rows):
        if isinstance(result, Exception):
            logging.getLogger(__name__).error("coding answers on the way failed (%s: %s); they are coded after "
                                              "the write", receiver, result, exc_info=result)
            for row in rows:
                row.code = row.code_source = ""
            return []
        if result is not None:
            after.append(result)
    return after


def _write_with_codes(rows: list[Response], held: set[int], after: list) -> set[int]:
    """What goes with the codes written on the way (`_code_on_the_way`), for the rows the
    writer's statement wrote: each receiver's function, given the ids written, writes it
    and says which codes stand (the coding app takes its codes off the rows again, and
    leaves the answers to be coded after the write, should it fail: see
    `encoding_app.current_code.codes_on_the_way`). The ids coded."""
    written = {row.pk for row in rows if row.pk in held}
    coded: set[int] = set()
    for then in after:
        coded |= then(written)
    return coded


def write_answers(token: str, units: list[Unit]) -> dict[int, Outcome]:
    """The one writer of results. Every answer and failure in one transaction, each only
    where this claim still holds (a unit whose lease ran out may have been taken over:
    that worker reports it), with the units that follow an answer (created and queued
    once the answer exists; those of a run cancelled meanwhile end cancelled, a resume
    asks them); new answers into the cache; a transient failure or a busy model's unit
    back to pending (cancelled if its run was); then one `responses_answered` with the
    answers' ids, before a run can be marked done (so a finished run has every answer
    coded or queued for reviewers), and each run's end and budget checked."""
    now = timezone.now()
    outcomes: dict[int, Outcome] = {}
    answered = [u for u in units if u.result is not None]
    errors = [u for u in units if u.error is not None and u.result is None]
    refused = {u.response.pk: wait for u in errors if (wait := _connection_refused(u)) is not None}
    retries = {u.response.pk: _retry_wait(u) for u in errors if u.response.pk not in refused and u.infra is None}
    failed = [u for u in errors if u.response.pk in retries and retries[u.response.pk] is None]

    def write():
        infra.check_simulated_disk_full()
        rows = [_answer_row(u, now) for u in answered]
        after = _code_on_the_way(rows)
        # Written only where the claim still holds: the statement's own condition (issue 45:
        # not a `SELECT … FOR UPDATE` of the batch first, see `answer_rows._update_rows`).
        held = finish_units(rows + [_failed_row(u, now) for u in failed], token)
        written = [u for u in answered if u.response.pk in held], [u for u in failed if u.response.pk in held]
        coded = _write_with_codes(rows, held, after)
        follow_ups: list[int] = []
        for unit in written[0]:
            follow_ups += _create_follow_ups(unit.response)
        if follow_ups:
            queueing.enqueue(follow_ups)
        return written, follow_ups, coded

    (answered, failed), follow_up_ids, coded = patiently(lambda: _atomically(write))
    if follow_up_ids:
        cancel_follow_ups(follow_up_ids)
    new_cache = [CachedCompletion(key=u.key, model_name=u.request.model, result=_cache_entry(u.result))
                 for u in answered if u.key and not u.cache_hit]
    if new_cache:
        CachedCompletion.objects.bulk_create(new_cache, ignore_conflicts=True)
    for unit in answered:
        outcomes[unit.response.pk] = Outcome("done")
    for unit in failed:
        outcomes[unit.response.pk] = Outcome("failed")
    for unit in units:
        pk, run_id = unit.response.pk, unit.response.run_id
        if unit.result is not None:
            continue
        if unit.busy is not None:
            # Not the model's fault: back untouched (the attempt not counted), sent again
            # now: with the old send time the sweep would take its message for lost once
            # units sent later are answered, and send it a second time (each copy then
            # sent back again when busy: the messages multiply).
            pending = _give_back(pk, token, run_id, attempts=F("attempts") - 1, enqueued_at=timezone.now())
            outcomes[pk] = (Outcome("requeue", countdown=unit.busy.retry_in * (1 + random.random())) if pending
                            else Outcome("cancelled"))
        elif unit.infra is not None:
            # A service failed around the call (the limiter's Redis): not the unit's failure.
            pending = _give_back(pk, token, run_id, attempts=F("attempts") - 1, enqueued_at=timezone.now())
            outcomes[pk] = (Outcome("requeue", countdown=settings.CFPD_SERVICE_RETRY * (1 + random.random()))
                            if pending else Outcome("cancelled"))
        elif pk in refused:
            # Its model's server refused the connection: paused, the attempt not counted.
            pending = _give_back(pk, token, run_id, attempts=F("attempts") - 1, error_kind=unit.error.kind,
                                 error_message=unit.error.message, enqueued_at=timezone.now(), **unit.record)
            outcomes[pk] = Outcome("requeue", countdown=refused[pk]) if pending else Outcome("cancelled")
        elif unit.error is not None and retries[pk] is not None:
            pending = _give_back(pk, token, run_id, error_kind=unit.error.kind, error_message=unit.error.message,
                                 enqueued_at=timezone.now(), **unit.record)
            outcomes[pk] = Outcome("retry", countdown=retries[pk]) if pending else Outcome("cancelled")
    if answered:
        responses_answered.send(sender=Response, response_ids=[u.response.pk for u in answered],
                                questions=loaded_questions(answered), coded=coded)
    runs = {u.response.run_id: u.response.run for u in units}
    for run_id in runs:
        finish_run_if_complete(run_id)
    # After the run's end: a run whose last unit reaches its budget is done, not paused.
    for run in {u.response.run_id: u.response.run for u in answered + failed}.values():
        over_budget(run)
    return outcomes
