"""The bundled local models run on whichever worker has their weights (issue 42): their units
travel on a queue of their own (`runs_app.local_weights.LOCAL_QUEUE`) that a worker consumes
only when it holds the weights, decided at its start; every other unit on Celery's default
queue. Real Celery workers on this pass's PostgreSQL and Redis for the hosts; the routing and
the decision also without a worker."""

import os
import time

import pytest
from django.conf import settings
from django.db.models import Count

from gateway import local_models
from runs_app import local_weights, queueing, services
from runs_app.local_weights import LOCAL_QUEUE
from runs_app.models import LLMModel, Run
from tests.runs_app.test_worker_runs import (clean_broker, demo, fake, fake_model, hosts,  # noqa: F401
                                             run_finished, wait_for)


# The decision a worker makes at its start.

def test_the_setting_says_yes_or_no_whatever_the_weights(tmp_path):
    assert local_weights.holds_local_weights("1", tmp_path) == (True, "CFPD_LOCAL_WEIGHTS=1")
    assert local_weights.holds_local_weights(" Yes ", tmp_path)[0] is True
    assert local_weights.holds_local_weights("0", tmp_path) == (False, "CFPD_LOCAL_WEIGHTS=0")
    assert local_weights.holds_local_weights("off", tmp_path)[0] is False


def test_auto_takes_them_when_every_bundled_model_can_be_loaded_here(tmp_path, monkeypatch):
    # This machine has both weights packages installed (requirements-weights.txt): each
    # model can be converted here, so "auto" takes their units.
    assert local_weights.holds_local_weights("auto", tmp_path) == (True, "the bundled models' weights are here")
    # One bundled model whose weights this machine lacks: "auto" takes none, and says which.
    missing = local_models.BundledModel("local-absent", "absent")
    monkeypatch.setattr(local_models, "BUNDLED", [*local_models.BUNDLED, missing])
    takes, why = local_weights.holds_local_weights("auto", tmp_path)
    assert takes is False and why.startswith("no weights for local-absent: no bundled model 'absent'")


def test_the_embedded_default_takes_them_always():
    # settings_test under the embedded pass has no REDIS_URL: its one worker does everything.
    if settings.REDIS_URL:
        assert settings.CFPD_LOCAL_WEIGHTS == os.environ.get("CFPD_LOCAL_WEIGHTS", "auto")
    else:
        assert settings.CFPD_LOCAL_WEIGHTS == os.environ.get("CFPD_LOCAL_WEIGHTS", "1")


def test_subscribing_adds_the_local_queue_only_with_the_weights(settings):
    from celery.app.amqp import Queues
    from kombu import Queue

    settings.CFPD_LOCAL_WEIGHTS = "0"
    queues = Queues([Queue("celery")], create_missing=True)
    assert local_weights.subscribe(queues, "plain@h") is False
    assert set(queues.consume_from) == {"celery"}
    queues["cfpd-local"]  # learnt by sending to it (a follow-up unit): still not consumed
    assert set(queues.consume_from) == {"celery"}
    settings.CFPD_LOCAL_WEIGHTS = "1"
    queues = Queues([Queue("celery")], create_missing=True)
    assert local_weights.subscribe(queues, "weighted@h") is True
    assert set(queues.consume_from) == {"celery", LOCAL_QUEUE}


# Where the engine sends a unit, without a worker.

@pytest.fixture
def sent(monkeypatch):
    """Every message the engine sends: (task, args, queue or None)."""
    messages = []

    def send_task(name, args=None, countdown=None, producer=None, ignore_result=True, queue=None):
        messages.append((name, args, queue))

    monkeypatch.setattr(queueing.app, "send_task", send_task)
    return messages


@pytest.mark.django_db
def test_a_bundled_models_units_go_to_the_local_queue_and_the_others_to_the_default(
        demo, fake, sent, django_capture_on_commit_callbacks):  # noqa: F811
    local = LLMModel.objects.get(name="local-smollm2")
    remote = fake_model(fake)
    with django_capture_on_commit_callbacks(execute=True):
        run = services.launch_run(demo, [local, remote], services.Selection(sample=3, seed=1))
    asks = [(name, args, queue) for name, args, queue in sent if name in (queueing.ASK, queueing.ASK_BATCH)]
    by_unit = {}
    for name, args, queue in asks:
        for pk in ([args[0]] if name == queueing.ASK else args[0]):
            by_unit[pk] = queue
    units = dict(run.responses.values_list("pk", "model__name"))
    assert set(by_unit) == set(units)  # every unit sent once
    assert {pk: queue for pk, queue in by_unit.items()} == {
        pk: (LOCAL_QUEUE if name == "local-smollm2" else None) for pk, name in units.items()}
    # The sweep and the rest stay on the default queue.
    assert {queue for name, _, queue in sent if name not in (queueing.ASK, queueing.ASK_BATCH)} == {None}
    # A unit tried again later goes back to its model's queue.
    sent.clear()
    local_unit = run.responses.filter(model=local).first()
    remote_unit = run.responses.filter(model=remote).first()
    queueing.ask_later(local_unit.pk, 5)
    queueing.ask_later(remote_unit.pk, 5)
    assert sent == [(queueing.ASK, [local_unit.pk], LOCAL_QUEUE), (queueing.ASK, [remote_unit.pk], None)]
    # So do units sent again (the watcher's resend, follow-ups) and a connection test.
    sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        queueing.enqueue([local_unit.pk, remote_unit.pk])
    assert sorted(((args[0] if name == queueing.ASK else args[0][0]), queue) for name, args, queue in sent
                  if name in (queueing.ASK, queueing.ASK_BATCH)) == sorted(
        [(local_unit.pk, LOCAL_QUEUE), (remote_unit.pk, None)])
    assert queueing.routing_of_model(local.pk) == {"queue": LOCAL_QUEUE} and queueing.routing_of_model(remote.pk) == {}


# Real workers, one without the weights and one with them.



@pytest.mark.services
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_worker_without_the_weights_never_takes_a_local_unit(demo, fake, hosts, tmp_path):  # noqa: F811
    if not settings.REDIS_URL:
        pytest.skip("workers on several hosts share one broker: the services pass (Redis)")
    fake.configure(latency=0.05)
    local = LLMModel.objects.get(name="local-smollm2")
    remote = fake_model(fake, max_concurrency=8)
    run = services.launch_run(demo, [local, remote], services.Selection(sample=4, seed=4))
    counts = dict(run.responses.values_list("model__name").annotate(n=Count("pk")).order_by())
    assert counts == {"local-smollm2": 4, "fake": 4}
    hosts("plain", CFPD_LOCAL_WEIGHTS="0")
    wait_for(lambda: run.responses.filter(model=remote, status="done").count() == 4, 120,
             "the remote model's units answered by the worker without the weights")
    # The watcher sends the pending local units again every few seconds (CFPD_REQUEUE_AFTER 3):
    # through a resend of every one of them, and a second after it, the worker without the
    # weights takes none (a message on a queue it consumed would be taken in milliseconds).
    # The resend waited for (a fixed 8 s before: it did not show that a resend happened).
    sent = dict(run.responses.filter(model=local).values_list("pk", "enqueued_at"))
    wait_for(lambda: all(at is not None and (sent[pk] is None or at > sent[pk]) for pk, at in
                         run.responses.filter(model=local).values_list("pk", "enqueued_at")), 60,
             "the watcher to send the local units again")
    time.sleep(1.0)
    assert set(run.responses.filter(model=local).values_list("status", "worker")) == {("pending", "")}
    assert "does not take the local models' units (queue cfpd-local): CFPD_LOCAL_WEIGHTS=0" in (
        tmp_path / "plain.log").read_text()
    # A worker with the weights (found here: "auto") joins and takes them; the run finishes.
    hosts("weighted", CFPD_LOCAL_WEIGHTS="auto")
    wait_for(lambda: run_finished(run), 600, "the local units answered by the worker with the weights")
    assert run.status == Run.Status.DONE
    rows = list(run.responses.values_list("model__name", "status", "worker"))
    assert len(rows) == 8 and {status for _, status, _ in rows} == {"done"}
    assert all(worker.startswith("weighted@") for name, _, worker in rows if name == "local-smollm2"), rows
    assert all(worker.startswith("plain@") for name, _, worker in rows if name == "fake"), rows
    assert "takes the local models' units (queue cfpd-local): the bundled models' weights are here" in (
        tmp_path / "weighted.log").read_text()
