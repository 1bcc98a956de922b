"""A batch of units, start to finish, with one set of statements for the whole batch:
claim every unit in one update, ask the models together on the process's event loop
(`litellm.acompletion`, each call still holding one of its model's shared slots), write
the answers in one transaction. The promises of `execution` hold unit by unit: a unit
is asked only under its claim, its answer written only while the claim is held, a
transient failure goes back to pending with its backoff, a unit of a cancelled run ends
cancelled.

Units that must be asked one at a time go through `execution.execute` unchanged: those
of a run with a budget (checked before each call), of a bundled model (computed in this
process, not awaited) and in rank mode.
"""

from __future__ import annotations

import asyncio
import json
import random
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal

from celery.utils.time import get_exponential_backoff_interval
from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from . import batching, event_loop, llm, queueing
from .execution import (Outcome, _create_follow_ups, _give_back, _result_fields, build_request, call_lease,
                        execute, finish_run_if_complete, of_runs, uses_cache)
from .limits import LimitBusy, aslot, get_limiter
from .models import CachedCompletion, LLMModel, Response, Run
from .planning import cache_key
from .signals import responses_answered

UNIT_FIELDS = ("run", "model", "question__benchmark", "condition")
# What an answer writes on its row (bulk_update needs the list).
ANSWER_FIELDS = ["status", "claim_token", "lease_expires_at", "cache_key", "cache_hit", "answered_at",
                 "error_kind", "error_message", "messages", "params", "raw_output", "resolved_model",
                 "finish_reason", "latency_ms", "prompt_tokens", "completion_tokens", "cost", "option_logprobs",
                 "chosen_letter", "option_mean_logprobs"]


def asked_alone(model: LLMModel, run: Run) -> bool:
    """Units asked one at a time, through `execution.execute` (see `batching.asked_alone`)."""
    return batching.asked_alone(model.is_bundled, model.answer_mode, run.budget_usd, run.budget_units)


@dataclass
class _Unit:
    response: Response
    request: llm.LLMRequest | None = None
    key: str = ""
    record: dict = field(default_factory=dict)
    result: llm.LLMResult | None = None
    error: llm.LLMError | None = None
    busy: LimitBusy | None = None
    cache_hit: bool = False


def execute_batch(response_ids: list[int]) -> list[tuple[int, Outcome]]:
    """Ask the units; what the task should do next for each (retry and requeue with a
    countdown; anything else is finished)."""
    responses = list(Response.objects.select_related(*UNIT_FIELDS).filter(pk__in=response_ids).order_by("pk"))
    outcomes: dict[int, Outcome] = {pk: Outcome("skipped") for pk in response_ids}
    together = []
    for response in responses:
        if response.model.is_external:
            continue
        if asked_alone(response.model, response.run):
            outcomes[response.pk] = execute(response.pk)
        else:
            together.append(response)
    if together:
        outcomes.update(_execute_together(together))
    return list(outcomes.items())


def _held(ids: list[int], token: str):
    """The units of `ids` still under the claim `token`. By primary key: claim_token has
    no index, and a lookup by token alone read the whole table once per batch (26 ms at
    26,000 rows, growing with every run kept)."""
    return Response.objects.filter(pk__in=ids, claim_token=token)


def _claim(responses: list[Response]) -> tuple[str, list[Response]]:
    """Take the units that are pending, or running under a lease that ran out, in one
    update; the ones taken, with their attempts counted."""
    token = uuid.uuid4().hex
    now = timezone.now()
    # Its units may wait for a slot under this claim, so the claim covers that wait too.
    lease = max(call_lease(r.model) for r in responses) + settings.CFPD_SLOT_WAIT
    ids = [r.pk for r in responses]
    Response.objects.filter(pk__in=ids).filter(
        Q(status=Response.Status.PENDING) | Q(status=Response.Status.RUNNING, lease_expires_at__lt=now)).filter(
        of_runs(Run.Status.QUEUED, Run.Status.RUNNING)).update(
        status=Response.Status.RUNNING, claim_token=token, attempts=F("attempts") + 1,
        lease_expires_at=now + timedelta(seconds=lease))
    attempts = dict(_held(ids, token).values_list("pk", "attempts"))
    taken = []
    for response in responses:
        if response.pk in attempts:
            response.attempts, response.claim_token = attempts[response.pk], token
            taken.append(response)
    return token, taken


def _execute_together(responses: list[Response]) -> dict[int, Outcome]:
    token, taken = _claim(responses)
    if not taken:
        return {}
    queued = {r.run_id for r in taken if r.run.status == Run.Status.QUEUED}
    if queued:
        Run.objects.filter(pk__in=queued, status=Run.Status.QUEUED).update(status=Run.Status.RUNNING,
                                                                           started_at=timezone.now())
    units = [_Unit(response) for response in taken]
    for unit in units:
        _prepare(unit)
    _answer_from_cache([u for u in units if u.key and u.error is None])
    to_ask = [u for u in units if u.request is not None and u.error is None and not u.cache_hit]
    if to_ask:
        # No connection held while the models answer (given back to the pool on PostgreSQL).
        if not connection.in_atomic_block:
            connection.close()
        event_loop.run(_ask_all(to_ask))
    return _write(token, units)


def _prepare(unit: _Unit):
    response = unit.response
    try:
        unit.request = build_request(response, response.model, response.run)
    except llm.LLMError as error:  # the question cannot be asked this way: nothing to retry
        unit.error = error
        return
    unit.record = dict(messages=unit.request.messages, params=unit.request.resolved_params())
    if uses_cache(response.run, response.model):
        unit.key = cache_key(unit.request.model, unit.request.api_base, unit.request.mode, unit.record["params"],
                             unit.request.messages, unit.request.letters)


def _answer_from_cache(units: list[_Unit]):
    if not units:
        return
    found = dict(CachedCompletion.objects.filter(key__in={u.key for u in units}).values_list("key", "result"))
    for unit in units:
        if unit.key in found:
            unit.result, unit.cache_hit = llm.LLMResult(**found[unit.key]), True


async def _ask_all(units: list[_Unit]):
    limiter = get_limiter(settings.REDIS_URL)
    await asyncio.gather(*(_ask_one(limiter, unit) for unit in units))


async def _ask_one(limiter, unit: _Unit):
    model = unit.response.model
    try:
        async with aslot(limiter, f"model-{model.pk}", model.max_concurrency, model.requests_per_minute,
                         lease=call_lease(model), wait=settings.CFPD_SLOT_WAIT):
            unit.result = await llm.acomplete(unit.request)
    except LimitBusy as busy:
        unit.busy = busy
    except llm.LLMError as error:
        unit.error = error
    except Exception as exc:  # noqa: BLE001 — anything else a provider library raises
        unit.error = llm.classify(exc)


def _answer_row(unit: _Unit, now) -> Response:
    result = unit.result
    row = unit.response
    fields = dict(status=Response.Status.DONE, claim_token="", lease_expires_at=None, cache_key=unit.key,
                  cache_hit=unit.cache_hit, answered_at=now, error_kind="", error_message="", **unit.record,
                  **_result_fields(result))
    for name, value in fields.items():
        setattr(row, name, value)
    return row


def _failed_row(unit: _Unit, now) -> Response:
    row = unit.response
    fields = dict(status=Response.Status.FAILED, claim_token="", lease_expires_at=None, cache_key=unit.key,
                  cache_hit=False, answered_at=now, error_kind=unit.error.kind, error_message=unit.error.message,
                  **unit.record)
    for name, value in fields.items():
        setattr(row, name, value)
    return row


def _retry_wait(unit: _Unit) -> float | None:
    """Seconds to wait before asking a transiently failed unit again; None when it has
    had its attempts and fails."""
    error, attempts = unit.error, unit.response.attempts
    if not error.transient or attempts >= settings.CFPD_MAX_ATTEMPTS:
        return None
    wait = get_exponential_backoff_interval(settings.CFPD_BACKOFF_FACTOR, attempts, settings.CFPD_BACKOFF_MAX,
                                            full_jitter=True)
    return max(wait, error.retry_after or 0)


def _write(token: str, units: list[_Unit]) -> dict[int, Outcome]:
    """Every result in one transaction, each only where this batch still holds the claim
    (a unit whose lease ran out may have been taken over: that worker reports it)."""
    now = timezone.now()
    outcomes: dict[int, Outcome] = {}
    answered = [u for u in units if u.result is not None]
    retries = {u.response.pk: _retry_wait(u) for u in units if u.error is not None and u.result is None}
    failed = [u for u in units if u.error is not None and u.result is None and retries[u.response.pk] is None]
    follow_up_ids: list[int] = []
    with transaction.atomic():
        held = set(_held([u.response.pk for u in units], token).select_for_update().filter(
            status=Response.Status.RUNNING).values_list("pk", flat=True))
        answered = [u for u in answered if u.response.pk in held]
        failed = [u for u in failed if u.response.pk in held]
        _update_rows([_answer_row(u, now) for u in answered] + [_failed_row(u, now) for u in failed])
        for unit in answered:
            follow_up_ids += _create_follow_ups(unit.response)
        if follow_up_ids:
            queueing.enqueue(follow_up_ids)
    if follow_up_ids:
        Response.objects.filter(of_runs(Run.Status.CANCELLED), pk__in=follow_up_ids,
                                status=Response.Status.PENDING).update(status=Response.Status.CANCELLED)
    new_cache = [CachedCompletion(key=u.key, model_name=u.request.model, result=_cache_entry(u.result))
                 for u in answered if u.key and not u.cache_hit]
    if new_cache:
        CachedCompletion.objects.bulk_create(new_cache, ignore_conflicts=True)
    for unit in answered:
        outcomes[unit.response.pk] = Outcome("done")
    for unit in failed:
        outcomes[unit.response.pk] = Outcome("failed")
    for unit in units:
        pk = unit.response.pk
        if unit.busy is not None:
            # Not the model's fault: back untouched (the attempt not counted).
            pending = _give_back(pk, token, attempts=F("attempts") - 1)
            outcomes[pk] = (Outcome("requeue", countdown=unit.busy.retry_in * (1 + random.random())) if pending
                            else Outcome("cancelled"))
        elif unit.error is not None and unit.result is None and retries[pk] is not None:
            pending = _give_back(pk, token, error_kind=unit.error.kind, error_message=unit.error.message,
                                 enqueued_at=timezone.now(), **unit.record)
            outcomes[pk] = Outcome("retry", countdown=retries[pk]) if pending else Outcome("cancelled")
    if answered:
        # Coded before the run can be marked done (see execution._answered).
        responses_answered.send(sender=Response, response_ids=[u.response.pk for u in answered])
    for run_id in {u.response.run_id for u in units}:
        finish_run_if_complete(run_id)
    return outcomes


def _update_rows(rows: list[Response]):
    """Write ANSWER_FIELDS of each row. On PostgreSQL one statement for the batch with
    one parameter: the rows as a JSON array, read back into typed columns by
    `jsonb_to_recordset` (one pass of the answers' statement triggers, see
    analysis_app.tally, instead of one per row). A statement with a placeholder per
    value (21 per row) cost the worker more CPU in psycopg splitting and quoting it than
    PostgreSQL spent running it (`bench/update_rows.py`). Elsewhere one statement sent
    with every row's values (`executemany`). Django's `bulk_update` builds a CASE per
    field and row, which cost more worker CPU than the model call itself."""
    if not rows:
        return
    fields = [Response._meta.get_field(name) for name in ANSWER_FIELDS]
    quote = connection.ops.quote_name
    table, pk = quote(Response._meta.db_table), quote(Response._meta.pk.column)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                f"UPDATE {table} AS t SET "
                + ", ".join(f"{quote(field.column)} = v.{quote(field.column)}" for field in fields)
                + " FROM jsonb_to_recordset(%s::jsonb) AS v("
                + ", ".join(f"{quote(field.column)} {field.db_type(connection)}" for field in fields)
                + f", {quote(ROW_ID)} bigint) WHERE t.{pk} = v.{quote(ROW_ID)}",
                [_rows_as_json(rows, fields)])
        else:
            values = [[field.get_db_prep_save(getattr(row, field.attname), connection) for field in fields] + [row.pk]
                      for row in rows]
            cursor.executemany(f"UPDATE {table} SET " + ", ".join(f"{quote(field.column)} = %s" for field in fields)
                               + f" WHERE {pk} = %s", values)


ROW_ID = "row_id"  # the key of each row's primary key in _rows_as_json (no field of Response)


def _rows_as_json(rows: list[Response], fields) -> str:
    """`fields` of each row, and its primary key under ROW_ID, as one JSON array for
    `jsonb_to_recordset`: each value as the field prepares it for the database
    (`get_prep_value`: a JSON field's object, a cleaned decimal, an aware datetime),
    dates and decimals as the text PostgreSQL reads them from (an ISO 8601 timestamp with
    its offset, the decimal's digits: no float rounding on the way)."""
    return json.dumps([{ROW_ID: row.pk, **{field.column: _json_scalar(field.get_prep_value(getattr(row, field.attname)))
                                           for field in fields}} for row in rows])


def _json_scalar(value):
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    return value


def _cache_entry(result: llm.LLMResult) -> dict:
    return {"text": result.text, "resolved_model": result.resolved_model, "finish_reason": result.finish_reason,
            "latency_ms": result.latency_ms, "prompt_tokens": result.prompt_tokens,
            "completion_tokens": result.completion_tokens, "cost": result.cost,
            "option_logprobs": result.option_logprobs, "chosen_letter": result.chosen_letter,
            "option_mean_logprobs": result.option_mean_logprobs}
