"""Which failures are the infrastructure's (runs_app.infra): never a unit's failure."""

import errno
import sqlite3

import django.db.utils
import kombu.exceptions
import psycopg.errors
import pytest
import redis.exceptions

from runs_app import health, infra


def raised_from(outer, inner):
    try:
        try:
            raise inner
        except Exception as exc:
            raise outer from exc
    except Exception as exc:
        return exc


@pytest.mark.parametrize("exc, service", [
    (redis.exceptions.ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused."), infra.REDIS),
    (redis.exceptions.TimeoutError("Timeout reading from socket"), infra.REDIS),
    (raised_from(django.db.utils.OperationalError("server closed the connection unexpectedly"),
                 psycopg.OperationalError("server closed the connection unexpectedly")), infra.DATABASE),
    (django.db.utils.InterfaceError("connection already closed"), infra.DATABASE),
    (raised_from(django.db.utils.OperationalError("could not extend file"),
                 psycopg.errors.DiskFull("could not extend file: No space left on device")), infra.DISK_FULL),
    (raised_from(django.db.utils.OperationalError("database or disk is full"),
                 sqlite3.OperationalError("database or disk is full")), infra.DISK_FULL),
    (OSError(errno.ENOSPC, "No space left on device"), infra.DISK_FULL),
    (infra.SimulatedDiskFull(), infra.DISK_FULL),
    (raised_from(kombu.exceptions.OperationalError("Error 111"), ConnectionRefusedError(111, "refused")),
     infra.REDIS),
])
def test_infrastructure_failures_are_named(exc, service, monkeypatch):
    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:6379/0")
    assert infra.service_of(exc) == service


@pytest.mark.parametrize("exc", [
    ValueError("a bug"), KeyError("x"), ConnectionRefusedError(111, "a provider's server refused"),
    django.db.utils.IntegrityError("duplicate key"), RuntimeError("anything a provider library raises"),
])
def test_anything_else_is_not(exc):
    assert infra.service_of(exc) is None


def test_the_file_brokers_failure_is_the_queue_folders(monkeypatch):
    monkeypatch.delenv("REDIS_URL", raising=False)
    assert infra.service_of(kombu.exceptions.OperationalError("cannot write")) == infra.QUEUE


def test_the_simulated_full_disk_follows_its_flag_file(tmp_path, monkeypatch):
    flag = tmp_path / "full"
    monkeypatch.setenv("CFPD_FAULT_DISK_FULL", str(flag))
    infra.check_simulated_disk_full()  # no file: nothing
    flag.write_text("x")
    with pytest.raises(infra.SimulatedDiskFull):
        infra.check_simulated_disk_full()


def test_health_keeps_the_first_time_of_an_outage_until_cleared():
    from datetime import datetime, timezone

    health.reset()
    first, later = datetime(2026, 1, 1, 12, 4, tzinfo=timezone.utc), datetime(2026, 1, 1, 12, 5, tzinfo=timezone.utc)
    health.report("redis", first)
    health.report("redis", later)
    assert health.down() == {"redis": first} and health.quiet_for("redis") < 1
    assert health.clear("redis") == first and health.down() == {} and health.quiet_for("redis") == float("inf")
