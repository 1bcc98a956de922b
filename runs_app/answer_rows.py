"""Writing the answers' rows: the fields an answer writes (`ANSWER_FIELDS`), one statement
for a batch's rows (`_update_rows`), the write tried again while the database is away
(`patiently`), and the entry a new answer leaves in the cache (`_cache_entry`)."""

from __future__ import annotations

import json
import logging
import random
import time
from datetime import datetime
from decimal import Decimal

from django.conf import settings
from django.db import connection, transaction

from gateway import LLMResult

from . import health, infra
from .models import Response

# What an answer writes on its row (the writer's statement needs the list): its code too, when
# it was coded on the way (`signals.answers_writing`; otherwise as the unit was read: none).
ANSWER_FIELDS = ["status", "claim_token", "lease_expires_at", "cache_key", "cache_hit", "answered_at",
                 "error_kind", "error_message", "messages", "params", "raw_output", "resolved_model",
                 "finish_reason", "latency_ms", "prompt_tokens", "completion_tokens", "cost", "option_logprobs",
                 "chosen_letter", "option_mean_logprobs", "code", "code_source"]


def _atomically(write):
    with transaction.atomic():
        return write()


def patiently(write):
    """`write()`, tried again while a service it needs is down (the database gone, its
    disk full: `infra.service_of`), for up to CFPD_WRITE_PATIENCE seconds, waiting
    0.5 s doubling to 5 s between tries (jittered): a worker holding answers keeps them
    until the database takes them, rather than losing them and asking the provider
    again. Each failure is reported to this process's health (the watcher tells the
    run's page). Inside an enclosing transaction (a test's) it is tried once."""
    delay, started = 0.5, time.monotonic()
    while True:
        try:
            return write()
        except Exception as exc:
            service = infra.service_of(exc)
            if (service is None or connection.in_atomic_block
                    or time.monotonic() - started > settings.CFPD_WRITE_PATIENCE):
                raise
            health.report(service)
            logging.getLogger(__name__).warning("writing answers: %s failed (%s); trying again",
                                                infra.LABELS[service], exc)
            try:
                connection.close()  # a broken connection is not reused
            except Exception:  # noqa: BLE001 — it was broken already
                pass
            time.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 2, 5.0)


def _update_rows(rows: list[Response], token: str | None = None) -> set[int]:
    """Write ANSWER_FIELDS of each row; with `token`, only of the rows still running under
    that claim (a unit whose lease ran out may have been taken over: that worker reports
    it). The ids of the rows written. On PostgreSQL one statement for the batch with
    one parameter: the rows as a JSON array, read back into typed columns by
    `jsonb_to_recordset` (one pass of the answers' statement triggers, see
    scenarios_app.analysis.tally, instead of one per row), the claim checked in its
    WHERE and the rows written named by RETURNING: the statement locks the rows it
    writes, and a row another worker took meanwhile is re-checked after its lock and left
    alone (issue 45: a `SELECT … FOR UPDATE` of the batch before it locked each row, a
    write of every row's header, once more per answer). A statement with a placeholder per
    value (21 per row) cost the worker more CPU in psycopg splitting and quoting it than
    PostgreSQL spent running it (`bench/update_rows.py`). Elsewhere the rows under the
    claim are read, then written in one statement sent with every row's values
    (`executemany`). Django's `bulk_update` builds a CASE per field and row, which cost
    more worker CPU than the model call itself."""
    if not rows:
        return set()
    fields = [Response._meta.get_field(name) for name in ANSWER_FIELDS]
    quote = connection.ops.quote_name
    table, pk = quote(Response._meta.db_table), quote(Response._meta.pk.column)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            held = (f" AND t.{quote('claim_token')} = %s AND t.{quote('status')} = %s" if token is not None else "")
            # The rows' runs named as constants: on answers partitioned by run
            # (`partition_answers`) the statement plans and locks their partitions alone.
            runs = sorted({row.run_id for row in rows})
            held += f" AND t.{quote('run_id')} IN (" + ", ".join("%s" for _ in runs) + ")"
            cursor.execute(
                f"UPDATE {table} AS t SET "
                + ", ".join(f"{quote(field.column)} = v.{quote(field.column)}" for field in fields)
                + " FROM jsonb_to_recordset(%s::jsonb) AS v("
                + ", ".join(f"{quote(field.column)} {field.db_type(connection)}" for field in fields)
                + f", {quote(ROW_ID)} bigint) WHERE t.{pk} = v.{quote(ROW_ID)}{held} RETURNING t.{pk}",
                [_rows_as_json(rows, fields)] + ([token, Response.Status.RUNNING] if token is not None else [])
                + runs)
            return {row_id for (row_id,) in cursor.fetchall()}
        if token is not None:
            held = set(Response.objects.filter(pk__in=[row.pk for row in rows], claim_token=token,
                                               status=Response.Status.RUNNING).values_list("pk", flat=True))
            rows = [row for row in rows if row.pk in held]
        values = [[field.get_db_prep_save(getattr(row, field.attname), connection) for field in fields] + [row.pk]
                  for row in rows]
        if values:
            cursor.executemany(f"UPDATE {table} SET " + ", ".join(f"{quote(field.column)} = %s" for field in fields)
                               + f" WHERE {pk} = %s", values)
        return {row.pk for row in rows}


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


def _cache_entry(result: LLMResult) -> dict:
    return {"text": result.text, "resolved_model": result.resolved_model, "finish_reason": result.finish_reason,
            "latency_ms": result.latency_ms, "prompt_tokens": result.prompt_tokens,
            "completion_tokens": result.completion_tokens, "cost": result.cost,
            "option_logprobs": result.option_logprobs, "chosen_letter": result.chosen_letter,
            "option_mean_logprobs": result.option_mean_logprobs}
