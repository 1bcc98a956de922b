"""Faults that were silent (issue 44), at unit scale on this pass's database: the broker
coming back without its messages though no watcher saw it down (its life marker
changed), answers left uncoded by a write outage, and a model whose provider refuses
connections named while its units wait. The limiter's leases of a previous Redis life
need Redis (the PostgreSQL + Redis pass)."""

import os
import time
from datetime import timedelta

import pytest
from django.db import OperationalError
from django.utils import timezone

from encoding_app import receivers
from encoding_app import services as encoding
from encoding_app.models import ReviewTask
from runs_app import execution, health, queueing, services, watcher
from gateway.limits import RedisLimiter
from runs_app.models import Response, Run
from tests.runs_app.test_execution import benchmark, launch, model  # noqa: F401 — fixtures

pytestmark = pytest.mark.django_db


@pytest.fixture
def run(benchmark, monkeypatch, settings):
    settings.TIME_ZONE = "UTC"
    chooser = model(type("Fake", (), {"base_url": "http://127.0.0.1:9/v1"})(), name="chooser")
    return launch(benchmark, [chooser], monkeypatch)  # four pending units, nothing sent


def started(run) -> Run:
    """The run started five minutes ago, with no broker life recorded at its launch (the
    lives below are named by the tests)."""
    Run.objects.filter(pk=run.pk).update(status="running", started_at=timezone.now() - timedelta(minutes=5),
                                         service_wait={})
    return Run.objects.get(pk=run.pk)


def test_a_launch_records_the_brokers_life_and_the_first_look_finds_nothing_lost(benchmark, monkeypatch):
    # A fresh broker (no life yet): the launch writes the life and records it, so the
    # first look is not taken for a flush (issue 44: "Redis restarted empty" said falsely).
    if not os.environ.get("REDIS_URL"):
        run = launch(benchmark, [model(type("Fake", (), {"base_url": "http://127.0.0.1:9/v1"})())], monkeypatch)
        assert queueing.broker_life() is None and "broker_life" not in run.service_wait  # no broker to lose
        return
    queueing.broker_life()  # the connection
    queueing._redis.delete(queueing.BROKER_LIFE_KEY)
    run = launch(benchmark, [model(type("Fake", (), {"base_url": "http://127.0.0.1:9/v1"})())], monkeypatch)
    marker, born = queueing.broker_life()
    assert run.service_wait == {"broker_life": marker}
    Run.objects.filter(pk=run.pk).update(status="running", started_at=timezone.now())
    sent = []
    monkeypatch.setattr(queueing, "enqueue", lambda ids: sent.append(ids))
    assert services.watch_services({}, broker_life=(marker, born))["requeued"] == 0
    run.refresh_from_db()
    assert sent == [] and services.service_notice(run) == ""


def test_a_broker_that_lost_its_messages_unseen_has_the_pending_units_sent_again_once(run, monkeypatch):
    run = started(run)
    sent = []
    monkeypatch.setattr(queueing, "enqueue", lambda ids: sent.append(sorted(ids)))
    born = run.started_at - timedelta(minutes=1)
    assert services.watch_services({}, broker_life=("first", born))["requeued"] == 0  # recorded, nothing lost
    assert services.watch_services({}, broker_life=("first", born))["requeued"] == 0
    Response.objects.filter(pk=run.responses.order_by("pk")[0].pk).update(status="done")
    # FLUSHALL and a restart of a second: no watcher saw Redis down, its life is new.
    now = timezone.now()
    assert services.watch_services({}, now=now, broker_life=("second", now))["requeued"] == 3
    assert sent == [sorted(run.responses.filter(status="pending").values_list("pk", flat=True))]
    run.refresh_from_db()
    assert services.service_notice(run) == f"Redis restarted empty at {now:%H:%M}; 3 units queued again."
    # A second watcher that reads the same life sends nothing twice.
    assert services.watch_services({}, broker_life=("second", now))["requeued"] == 0
    assert len(sent) == 1


def test_a_run_launched_before_a_life_it_never_recorded_is_sent_again(run, monkeypatch):
    run = started(run)
    sent = []
    monkeypatch.setattr(queueing, "enqueue", lambda ids: sent.append(ids))
    # The broker emptied between the launch and the run's first look: its life is younger.
    assert services.watch_services({}, broker_life=("new", timezone.now()))["requeued"] == 4


def test_a_broker_outage_seen_and_a_new_life_send_the_units_once(run, monkeypatch):
    run = started(run)
    sent = []
    monkeypatch.setattr(queueing, "enqueue", lambda ids: sent.append(ids))
    born = run.started_at - timedelta(minutes=1)
    services.watch_services({}, broker_life=("first", born))
    since = timezone.now()
    services.watch_services({"redis": since})
    assert services.watch_services({}, ended={"redis": since}, broker_life=("second", timezone.now()))["requeued"] == 4
    assert len(sent) == 1
    assert services.watch_services({}, broker_life=("second", timezone.now()))["requeued"] == 0


def answered(run, when=None):
    run.responses.update(status="done", chosen_letter="A", answered_at=when or timezone.now())
    return list(run.responses.values_list("pk", flat=True))


def look(ended=None, first=False, now=None) -> int:
    """A watcher's look for lost codes, as `watcher.tick` makes it; how many were sent."""
    now = now or timezone.now()
    ended = ended or {}
    return services.watch_services({}, ended=ended, now=now,
                                   uncoded_from=services.uncoded_since(now, ended, first))["coded"]


def test_answers_whose_code_was_lost_are_coded_once_the_grace_is_over(run, settings):
    # A worker killed between an answer's write and its code: written, never coded.
    settings.CFPD_UNCODED_GRACE = 60
    run = started(run)
    written = timezone.now()
    ids = answered(run, when=written)
    assert look(now=written + timedelta(seconds=59)) == 0  # within the grace the engine may be coding them
    assert set(run.responses.values_list("code_source", flat=True)) == {""}
    assert look(now=written + timedelta(seconds=61)) == 4
    assert set(run.responses.values_list("code", "code_source")) == {("A", "choice")}
    assert look(now=written + timedelta(seconds=62)) == 0  # nothing left
    assert ReviewTask.objects.filter(response_id__in=ids).count() == 0


def test_the_look_skips_free_form_answers_imports_and_what_is_past_its_window(run, settings):
    settings.CFPD_UNCODED_GRACE = 60
    run = started(run)
    long_ago = timezone.now() - timedelta(hours=2)
    answered(run, when=long_ago)
    first, second, *_ = run.responses.order_by("pk")
    Response.objects.filter(pk=first.pk).update(option_order=[], chosen_letter="")  # a question without options
    # Two hours old: past the window of a later look (the last 10 minutes before the grace) ...
    assert look() == 0
    # ... read on a process's first look (a worker restarted after a long stop), but the
    # free-form answer, which is never coded, is not sent.
    assert look(first=True) == 3
    assert Response.objects.get(pk=first.pk).code_source == ""
    # An import's answers are coded by its importer, not by the watchers.
    Response.objects.filter(pk=second.pk).update(code="", code_source="")
    Run.objects.filter(pk=run.pk).update(kind="import")
    assert look(first=True) == 0


def test_from_when_a_look_reads(settings):
    settings.CFPD_UNCODED_GRACE = 60
    now = timezone.now()
    assert services.uncoded_since(now, {}, first_look=True) is None  # everything
    # 60 s of grace and 10 minutes of window: 11 minutes back.
    assert services.uncoded_since(now, {}, first_look=False) == now - timedelta(minutes=11)
    # A database outage that began 30 minutes ago: from 10 minutes before it (40 back).
    outage = now - timedelta(minutes=30)
    assert services.uncoded_since(now, {"database": outage}, False) == now - timedelta(minutes=40)
    assert services.uncoded_since(now, {"redis": outage}, False) == now - timedelta(minutes=11)  # no write lost


def test_answers_whose_coding_met_a_database_outage_are_coded_once_it_is_back(run, monkeypatch, settings):
    health.reset()
    ids = answered(run)

    def database_gone(*args, **kwargs):
        raise OperationalError("server closed the connection unexpectedly")

    with monkeypatch.context() as patch:
        patch.setattr(encoding, "encode_answers", database_gone)
        receivers.encode_on_arrival(sender=Response, response_ids=ids)
    # Neither coded nor queued for a reviewer (the reviewer's item could not be written
    # either), and the outage is known to this process's watcher.
    assert set(run.responses.values_list("code", "code_source")) == {("", "")}
    assert not ReviewTask.objects.filter(response_id__in=ids).exists()
    since = health.down()["database"]
    health.reset()
    after = timezone.now() + timedelta(seconds=settings.CFPD_UNCODED_GRACE + 1)
    assert look({"database": since}, now=after) == 4
    assert {source for _, source in run.responses.values_list("code", "code_source")} == {"choice"}
    assert look({"database": since}, now=after) == 0  # nothing left uncoded


def test_answers_left_uncoded_by_a_full_disk_end_coded_or_queued(run, monkeypatch, tmp_path, settings):
    health.reset()
    flag = tmp_path / "full"
    monkeypatch.setenv("CFPD_FAULT_DISK_FULL", str(flag))
    ids = answered(run)
    Response.objects.filter(pk=ids[0]).update(chosen_letter="", raw_output="I will not say")  # for a reviewer
    flag.write_text("full")
    receivers.encode_on_arrival(sender=Response, response_ids=ids)
    assert set(run.responses.values_list("code_source", flat=True)) == {""}
    since = health.down()["disk_full"]
    flag.unlink()
    after = timezone.now() + timedelta(seconds=settings.CFPD_UNCODED_GRACE + 1)
    assert look({"disk_full": since}, now=after) == 4
    # Every answer ends coded or queued: no answer without a code and without a code source.
    assert not run.responses.filter(code="", code_source="").exists()
    assert ReviewTask.objects.filter(response_id=ids[0]).exists() or Response.objects.get(pk=ids[0]).code


def test_a_model_refusing_connections_is_named_while_its_units_wait(run, client, admin_user):
    run = started(run)
    since = timezone.now()
    chooser = run.llm_models.get()
    services.watch_services({}, refusing={chooser.pk: since})
    run.refresh_from_db()
    expected = (f"chooser's provider refuses connections since {since:%H:%M}: its units wait and are asked when "
                "it answers.")
    assert services.service_notice(run) == expected
    client.force_login(admin_user)
    assert client.get(f"/api/runs/{run.pk}/").json()["service_notice"] == expected
    services.watch_services({}, refusing={})  # answering again
    run.refresh_from_db()
    assert services.service_notice(run) == ""


def test_the_watcher_reads_a_refusing_model_from_the_limiter(run, settings):
    started(run)
    chooser = run.llm_models.get()
    limiter = execution.get_limiter(settings.REDIS_URL)
    try:
        limiter.refused(f"model-{chooser.pk}", pause=1, memory=60)
        assert set(watcher.refusing_models(timezone.now())) == {chooser.pk}
    finally:
        if hasattr(limiter, "down"):
            limiter.down.clear()
            limiter.pauses.clear()
        else:
            limiter.redis.delete(*limiter.redis.keys(f"{limiter.prefix}:model-{chooser.pk}:*") or ["none"])


@pytest.mark.services
@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs Redis (REDIS_URL)")
def test_slots_held_in_a_previous_redis_life_are_released_at_once():
    limiter = RedisLimiter(os.environ["REDIS_URL"], prefix=f"cfpd:test-life:{os.getpid()}")
    key = f"{limiter.prefix}:m:inflight"
    try:
        held = limiter.try_acquire_many("m", limit=2, lease=600, count=2)
        assert len(held) == 2 and limiter.try_acquire("m", limit=2, lease=600) is None  # full
        # Redis restarted with its append-only file: the slots are back, their calls
        # ended while it was down (their release lost); its run_id is new.
        limiter.redis.set(f"{key}:life", "a-previous-life")
        limiter.redis.zadd(key, {f"a-previous-life/{n}": time.time() + 600 for n in range(2)})
        limiter.redis.zrem(key, *held)
        token = limiter.try_acquire("m", limit=2, lease=600)
        assert token is not None and limiter.in_flight("m") == 1  # the old leases dropped, not waited out
        limiter.release("m", token)
        assert limiter.in_flight("m") == 0
    finally:
        limiter.redis.delete(key, f"{key}:life")
