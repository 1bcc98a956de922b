"""A resumed run is never marked done over the units its resume made pending.

Seen as an intermittent stall (test_crisis_runs' cancel-then-resume, three copies at
once on PostgreSQL + Redis): the worker that ended the cancelled run's last unit in
flight counted the open units (none: the resume had not committed), the resume then
committed (units pending, the run running again), and the worker's update marked the
run done, over twelve pending units. Their messages found a finished run and were
dropped; the run never finished. `finish_run_if_complete` now locks the run's row
before it counts, and `resume_run` locks it first. These tests hold a resume open
inside its transaction and run the finish behind it, on both passes (on SQLite the
second writer waits for the whole database).
"""

import threading
import time

import pytest
from django.db import connections
from django.db.models.query import QuerySet

from runs_app import execution, queueing, services
from runs_app.models import LLMModel, Run
from tests.runs_app.test_execution import benchmark, launch  # noqa: F401 — fixtures

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)


def _cancelled_run(benchmark, monkeypatch) -> Run:
    chooser = LLMModel.objects.create(name="m", litellm_model="openai/m", api_base="http://127.0.0.1:9/v1",
                                      answer_mode="choice", timeout_seconds=5)
    run = launch(benchmark, [chooser], monkeypatch)
    services.cancel_run(run)
    run.refresh_from_db()
    assert run.status == "cancelled" and run.finished_at is not None
    assert set(run.responses.values_list("status", flat=True)) == {"cancelled"}
    return run


def _in_thread(target, errors, name=None):
    def body():
        try:
            target()
        except Exception as error:  # surfaced by the test
            errors.append(error)
        finally:
            connections.close_all()

    thread = threading.Thread(target=body, name=name)
    thread.start()
    return thread


def test_a_finish_counting_during_a_resume_leaves_the_run_running(benchmark, monkeypatch):
    """The interleaving of the stall, forced: the finish counts the open units while the
    resume is open, and writes only after the resume has committed."""
    run = _cancelled_run(benchmark, monkeypatch)
    inside, release, resumed, errors = threading.Event(), threading.Event(), threading.Event(), []

    def enqueue_and_wait(ids):
        # Called by resume_run inside its transaction, once the units are pending again
        # and the run is running: hold the transaction open here.
        inside.set()
        release.wait(30)

    counting = QuerySet.exists

    def exists_then_wait(queryset):
        # The finish's count, then (in the finish's thread only) a pause until the resume
        # has committed: the window between the count and the update, made wide.
        found = counting(queryset)
        if threading.current_thread().name == "finish":
            resumed.wait(30)
        return found

    monkeypatch.setattr(queueing, "enqueue", enqueue_and_wait)
    monkeypatch.setattr(QuerySet, "exists", exists_then_wait)
    resume = _in_thread(lambda: services.resume_run(Run.objects.get(pk=run.pk)), errors)
    assert inside.wait(30)
    finish = _in_thread(lambda: execution.finish_run_if_complete(run.pk), errors, name="finish")
    time.sleep(1.0)  # the finish has counted (before the fix) or waits for the run's row (after it)
    release.set()
    resume.join(30)
    resumed.set()
    finish.join(30)
    assert not resume.is_alive() and not finish.is_alive() and not errors, errors
    run.refresh_from_db()
    assert (run.status, run.finished_at) == ("running", None)
    assert set(run.responses.values_list("status", flat=True)) == {"pending"}


def test_a_run_with_no_open_unit_is_still_finished(benchmark, monkeypatch):
    run = _cancelled_run(benchmark, monkeypatch)
    Run.objects.filter(pk=run.pk).update(status="running", finished_at=None)
    run.responses.update(status="done")
    execution.finish_run_if_complete(run.pk)
    run.refresh_from_db()
    assert run.status == "done" and run.finished_at is not None
