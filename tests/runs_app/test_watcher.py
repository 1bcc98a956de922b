"""The watcher's writer (services.watch_services) and what infrastructure failures do to
a unit (issue 32), in-process on this pass's database: a run waiting on a service says
so; once the service is back its pending units are sent again once, by one watcher; the
limiter's Redis failing and a model's server refusing connections fail no unit."""

from datetime import datetime, timezone as dt_timezone

import pytest
import redis.exceptions

from runs_app import batch_execution, execution, queueing, services
from runs_app.models import Run
from tests.runs_app.test_execution import benchmark, launch, model  # noqa: F401 — fixtures

pytestmark = pytest.mark.django_db

SINCE = datetime(2026, 11, 25, 12, 4, tzinfo=dt_timezone.utc)


@pytest.fixture
def run(benchmark, monkeypatch, settings):
    settings.TIME_ZONE = "UTC"
    chooser = model(type("Fake", (), {"base_url": "http://127.0.0.1:9/v1"})())
    return launch(benchmark, [chooser], monkeypatch)  # four pending units, nothing sent


def test_a_run_waiting_on_redis_says_so_and_is_sent_again_once_when_it_returns(run, monkeypatch):
    sent = []
    monkeypatch.setattr(queueing, "enqueue", lambda ids: sent.append(sorted(ids)))
    assert services.watch_services({"redis": SINCE})["noted"] == 1
    run.refresh_from_db()
    assert run.service_wait["waiting"] == {"service": "redis", "since": SINCE.isoformat(), "units": 4}
    assert services.service_notice(run) == "Redis unreachable since 12:04; 4 units will be queued again when it returns."
    assert sent == []  # nothing is sent while Redis is down
    assert services.watch_services({"redis": SINCE})["noted"] == 0  # unchanged: not written again

    assert services.watch_services({}, ended={"redis": SINCE})["requeued"] == 4
    run.refresh_from_db()
    assert services.service_notice(run) == "" and "waiting" not in run.service_wait
    ids = sorted(run.responses.values_list("pk", flat=True))
    assert sent[0] == ids
    # A second watcher that saw the same outage end: the run was recovered since it began.
    assert services.watch_services({}, ended={"redis": SINCE})["requeued"] == 0
    assert [batch for batch in sent if batch == ids] == [ids]


def test_a_full_disk_says_so(run):
    services.watch_services({"disk_full": SINCE})
    run.refresh_from_db()
    assert services.service_notice(run) == ("The database's disk is full since 12:04: no answer can be written; "
                                            "4 units will be asked again once it has room.")
    assert services.watch_services({}, ended={"disk_full": SINCE})["requeued"] == 0  # its messages were not lost
    run.refresh_from_db()
    assert services.service_notice(run) == ""


def test_a_run_that_finished_while_it_waited_has_its_notice_cleared(run):
    services.watch_services({"disk_full": SINCE})
    run.responses.update(status="done")  # its last units written once the disk had room
    Run.objects.filter(pk=run.pk).update(status="done")
    assert services.watch_services({"disk_full": SINCE})["noted"] == 0
    assert "waiting" in Run.objects.get(pk=run.pk).service_wait  # still full: still said
    services.watch_services({})
    assert services.service_notice(Run.objects.get(pk=run.pk)) == ""


def test_the_api_gives_the_notice(run, client, admin_user):
    services.watch_services({"database": SINCE})
    client.force_login(admin_user)
    body = client.get(f"/api/runs/{run.pk}/").json()
    assert body["service_notice"] == ("The database unreachable since 12:04; 4 units will be queued again when it "
                                      "returns.")


class DownLimiter:
    """The limiter's Redis refusing connections."""

    def __getattr__(self, name):
        def refuse(*args, **kwargs):
            raise redis.exceptions.ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")
        return refuse


def test_the_limiters_redis_down_fails_no_unit(run, monkeypatch):
    monkeypatch.setattr(batch_execution, "get_limiter", lambda url: DownLimiter())
    outcomes = dict(batch_execution.execute_batch(list(run.responses.values_list("pk", flat=True))))
    assert {outcome.action for outcome in outcomes.values()} == {"requeue"}
    # Back to pending, the attempt not counted, no error recorded against the unit.
    assert set(run.responses.values_list("status", "attempts", "error_kind")) == {("pending", 0, "")}


@pytest.fixture
def limiter_state(settings):
    limiter = execution.get_limiter(settings.REDIS_URL)
    yield limiter
    if hasattr(limiter, "pauses"):
        limiter.pauses.clear()
        limiter.down.clear()
    else:
        limiter.redis.delete(*limiter.redis.keys(f"{limiter.prefix}:*") or ["none"])
        limiter._paused.clear()


def test_a_model_refusing_connections_is_paused_and_its_units_not_failed(run, monkeypatch, settings, limiter_state):
    # api_base 127.0.0.1:9: nothing listens, every call is refused.
    settings.CFPD_CONNECTION_PAUSE, settings.CFPD_CONNECTION_PATIENCE = 30, 600
    ids = list(run.responses.values_list("pk", flat=True))
    first = dict(batch_execution.execute_batch(ids))
    assert {outcome.action for outcome in first.values()} == {"requeue"}
    assert all(30 <= outcome.countdown <= 60 for outcome in first.values())  # the pause, jittered
    assert set(run.responses.values_list("status", "attempts", "error_kind")) == {("pending", 0, "connection")}
    # The model is paused: the next try calls nothing and counts nothing.
    again = dict(batch_execution.execute_batch(ids))
    assert {outcome.action for outcome in again.values()} == {"requeue"}
    assert set(run.responses.values_list("status", "attempts")) == {("pending", 0)}


def test_refusals_count_once_the_outage_outlasts_the_patience(run, settings, limiter_state):
    settings.CFPD_CONNECTION_PAUSE, settings.CFPD_CONNECTION_PATIENCE, settings.CFPD_MAX_ATTEMPTS = 1, 0, 1
    ids = list(run.responses.values_list("pk", flat=True))
    outcomes = dict(batch_execution.execute_batch(ids))
    assert {outcome.action for outcome in outcomes.values()} == {"failed"}
    assert set(run.responses.values_list("status", "error_kind")) == {("failed", "connection")}
    assert Run.objects.get(pk=run.pk).status == "done"


def test_stopping_waits_for_the_tick_under_way_and_logs_no_failure(monkeypatch, settings, caplog):
    """A worker shutting down: the tick in progress ends before stop() returns, and a tick
    that fails because its connections are being closed under it logs nothing."""
    import threading

    from runs_app import watcher

    settings.CFPD_SWEEP_SECONDS = 0.01
    entered, release = threading.Event(), threading.Event()

    def tick():
        entered.set()
        release.wait(5)
        raise RuntimeError("connection already closed")

    monkeypatch.setattr(watcher, "tick", tick)
    monkeypatch.setattr(watcher, "close_old_connections", lambda: None)
    watcher.start()
    assert entered.wait(5)
    threading.Timer(0.2, release.set).start()  # the tick fails only once stop() has been asked
    with caplog.at_level("ERROR", logger="runs_app.watcher"):
        watcher.stop()
    assert not watcher._thread.is_alive()
    assert "watcher tick failed" not in caplog.text
