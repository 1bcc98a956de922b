"""A launch's messages (issue 31, paper scale): a run of up to CFPD_DISPATCH_INLINE units is
sent by the process that launched it; a larger one by a worker's `dispatch` message, page
by page, every unit in exactly one batch of its own model; a broker gone half-way leaves
every pending unit to the watcher."""

import pytest
import redis.exceptions

from runs_app import queueing, services, tasks, unit_rows
from runs_app.models import LLMModel, Response
from scenarios_app import services as authoring
from scenarios_app.models import Benchmark
from tests.factories import escalation_spec

pytestmark = pytest.mark.django_db


@pytest.fixture
def benchmark():
    benchmark = Benchmark.objects.create(name="dispatch")
    authoring.save_spec(benchmark, escalation_spec())
    return benchmark


@pytest.fixture
def models():
    return [LLMModel.objects.create(name=f"m{i}", litellm_model="openai/x", api_base="http://127.0.0.1:9/v1",
                                    answer_mode="generate", max_concurrency=4) for i in (1, 2)]


@pytest.fixture
def sent(monkeypatch):
    messages = []
    monkeypatch.setattr(queueing, "publish", lambda task, args, countdown=None, producer=None:
                        messages.append((task, args)))
    monkeypatch.setattr(queueing, "schedule_sweep", lambda run_id: None)
    return messages


def _unit_batches(messages):
    return [args[0] if task == queueing.ASK_BATCH else [args[0]] for task, args in messages
            if task in (queueing.ASK, queueing.ASK_BATCH)]


def test_a_small_launch_sends_its_batches_itself(benchmark, models, sent, settings,
                                                 django_capture_on_commit_callbacks):
    settings.CFPD_DISPATCH_INLINE = 10_000
    with django_capture_on_commit_callbacks(execute=True):
        run = services.launch_run(benchmark, models, repeats=2)
    units = set(run.responses.values_list("pk", flat=True))
    assert not [task for task, _ in sent if task == queueing.DISPATCH]
    batches = _unit_batches(sent)
    assert sorted(pk for batch in batches for pk in batch) == sorted(units)  # each unit once
    model_of = dict(run.responses.values_list("pk", "model_id"))
    # batch size: half of max_concurrency 4 = 2, each batch of one model
    assert all(len(batch) <= 2 and len({model_of[pk] for pk in batch}) == 1 for batch in batches)


def test_a_large_launch_sends_one_dispatch_message_and_the_worker_sends_every_unit_once(
        benchmark, models, sent, settings, django_capture_on_commit_callbacks):
    settings.CFPD_DISPATCH_INLINE = 3
    with django_capture_on_commit_callbacks(execute=True):
        run = services.launch_run(benchmark, models, repeats=2)
    units = set(run.responses.values_list("pk", flat=True))
    assert len(units) > 3
    assert sent == [(queueing.DISPATCH, [run.pk])]  # the launch sent nothing else
    sent.clear()
    queueing.dispatch_units(run.pk, page=3)  # what the worker's `dispatch` task does, a few units a page
    batches = _unit_batches(sent)
    assert sorted(pk for batch in batches for pk in batch) == sorted(units)
    model_of = dict(run.responses.values_list("pk", "model_id"))
    assert all(len(batch) <= 2 and len({model_of[pk] for pk in batch}) == 1 for batch in batches)
    assert tasks.dispatch.name == queueing.DISPATCH


def test_a_broker_gone_half_way_leaves_every_pending_unit_to_the_watcher(benchmark, models, monkeypatch, settings):
    settings.CFPD_DISPATCH_INLINE = 3
    monkeypatch.setattr(queueing, "schedule_sweep", lambda run_id: None)
    monkeypatch.setattr(queueing, "publish", lambda *a, **k: None)
    run = services.launch_run(benchmark, models, repeats=2)
    assert not run.responses.filter(enqueued_at__isnull=True).exists()  # marked as sent when written
    calls = []

    def publish(task, args, countdown=None, producer=None):
        calls.append(task)
        if len(calls) > 2:
            raise redis.exceptions.ConnectionError("Connection refused")

    monkeypatch.setattr(queueing, "publish", publish)
    queueing.dispatch_units(run.pk, page=2)
    pending = run.responses.filter(status=Response.Status.PENDING)
    assert pending.exists() and not pending.filter(enqueued_at__isnull=False).exists()


def test_the_dispatch_task_refreshes_the_tables_statistics_then_sends(benchmark, models, sent, settings, monkeypatch):
    settings.CFPD_DISPATCH_INLINE = 3
    run = services.launch_run(benchmark, models, repeats=1)
    steps = []
    monkeypatch.setattr(tasks.unit_rows, "refresh_statistics", lambda: steps.append("analyse"))
    monkeypatch.setattr(tasks.queueing, "dispatch_units", lambda run_id: steps.append(("send", run_id)))
    tasks.dispatch(run.pk)
    assert steps == ["analyse", ("send", run.pk)]
    unit_rows.refresh_statistics()  # the real one: ANALYZE on PostgreSQL (inside the test's transaction), nothing on SQLite
