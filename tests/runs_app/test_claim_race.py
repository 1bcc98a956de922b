"""A unit is claimed by one worker only, also when two claims meet on the same row.

On PostgreSQL under READ COMMITTED an UPDATE that waited for another transaction's lock
re-checks its WHERE clause on the row as that transaction left it — but only the
conditions on the updated table itself. A condition moved into a sub-select (Django does
this for a filter across a join, such as the run's status) is not re-checked, so a unit
just taken by another worker would be taken a second time, its attempt counted twice.
These tests hold one claim open on a second connection, start the engine's claim behind
it, then commit the first: the engine's claim must find the unit taken. On SQLite the
second writer waits for the whole database and sees the committed row; the tests run
on both passes.
"""

import threading
import time

import pytest
from django.db import connection, connections

from runs_app import execution
from runs_app.models import LLMModel, Response
from tests.runs_app.test_execution import benchmark, launch  # noqa: F401 — fixtures

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)


def _unit(benchmark, monkeypatch) -> Response:
    chooser = LLMModel.objects.create(name="m", litellm_model="openai/m", api_base="http://127.0.0.1:9/v1",
                                      answer_mode="choice", timeout_seconds=5)
    run = launch(benchmark, [chooser], monkeypatch)
    return run.responses.order_by("pk").select_related("run", "model").first()


def _behind_an_open_claim(response_id: int, engine_claim) -> object:
    """Take the unit on a second connection and keep the transaction open; run the
    engine's claim in a thread (its own connection), which waits for the row; commit the
    first claim; what the engine's claim returned."""
    other = connections.create_connection("default")
    other.set_autocommit(False)
    with other.cursor() as cursor:
        cursor.execute("UPDATE runs_app_response SET status = 'running', claim_token = 'other', "
                       "attempts = attempts + 1 WHERE id = %s", [response_id])
    result, errors = {}, []

    def claim():
        try:
            result["value"] = engine_claim()
        except Exception as error:  # surfaced below
            errors.append(error)
        finally:
            connections.close_all()

    thread = threading.Thread(target=claim)
    thread.start()
    time.sleep(1.0)  # the engine's claim is now waiting for the row (PostgreSQL) or the database (SQLite)
    other.commit()
    other.close()
    thread.join(30)
    assert not thread.is_alive() and not errors, errors
    return result["value"]


def test_a_unit_being_claimed_is_not_claimed_again(benchmark, monkeypatch):
    # One claim for every unit, asked alone (a batch of one) or in a batch.
    unit = _unit(benchmark, monkeypatch)
    _, taken = _behind_an_open_claim(unit.pk, lambda: execution.claim([unit]))
    unit.refresh_from_db()
    assert taken == []
    assert (unit.status, unit.claim_token, unit.attempts) == ("running", "other", 1)


def test_a_unit_being_claimed_is_not_asked_again_alone(benchmark, monkeypatch):
    unit = _unit(benchmark, monkeypatch)
    outcome = _behind_an_open_claim(unit.pk, lambda: execution.execute(unit.pk))
    unit.refresh_from_db()
    assert outcome.action == "skipped"
    assert (unit.status, unit.claim_token, unit.attempts) == ("running", "other", 1)


def test_the_claims_filter_the_run_without_a_join(benchmark, monkeypatch):
    """The reason the tests above pass on PostgreSQL: every condition of a claim is
    on the response row or in a sub-select of the run alone, so the row's own conditions
    stay in the UPDATE's WHERE clause and are re-checked after a wait."""
    unit = _unit(benchmark, monkeypatch)
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        execution.claim([unit])
    [update] = [q["sql"] for q in queries.captured_queries if q["sql"].startswith("UPDATE")]
    where = update.split(" WHERE ", 1)[1]
    assert '"runs_app_response"."status"' in where and "JOIN" not in update
