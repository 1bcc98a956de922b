"""Each worker's watcher: a thread of the worker process that, every CFPD_SWEEP_SECONDS,
looks at the services a run needs and at every active run, so that nothing is stranded.

* It probes the database (a SELECT) and the broker (Redis: a PING; the embedded
  default: the queue folder writable), and reads what the tasks of this process met
  (`health`: a lost connection, a full disk).
* While a service is down it writes so on the active runs (`services.watch_services`):
  the run page and the API say "Redis unreachable since 12:04; 1,532 units will be
  queued again when it returns".
* Once every service answers, the runs that waited have every pending unit queued again
  (the broker may have lost its messages, a send may have failed) and the notice
  cleared, under the run's row lock, once: two watchers never queue a unit twice.
* The broker's life (issue 44): a key the watchers write into Redis when it has none
  (`broker_life`); a flush, an eviction or a restart without persistence removes it.
  When a run's recorded life differs, its broker lost its messages whatever the cause,
  even a restart too quick for any watcher to see Redis down: its pending units are
  queued again at once, under the run's row lock, once ("Redis restarted empty at
  12:04; 1,080 units queued again").
* A model whose provider refuses connections (its calls paused by the limiter) is named
  on the runs that wait on it.
* Answers written but left uncoded (a worker killed between an answer's write and its
  code, the database gone or its disk full right after the write) are coded once they
  are CFPD_UNCODED_GRACE old (`services.code_uncoded_answers`): each look reads the last
  ten minutes, from a little before an outage of the database or its disk once it ends,
  and everything on a process's first look.
* Then each active run is swept (`services.sweep_run`): units whose worker died, units
  never sent, and units the queue has passed (the long-stop, CFPD_REQUEUE_AFTER).

A thread, not a message that re-sends itself: a message is lost with a broker that
loses its data, and a beat process is one more thing to run. It starts with its worker
(tasks.recover_on_start), on the embedded default as on PostgreSQL + Redis, so a
restarted worker watches again.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
from datetime import datetime, timezone

from django.conf import settings
from django.db import close_old_connections, connection

from gateway import get_limiter

from . import health, infra, provider_batch, queueing, services
from .models import LLMModel, Run

log = logging.getLogger(__name__)

_thread: threading.Thread | None = None
_stop = threading.Event()


def start():
    """Start this process's watcher (once)."""
    global _thread
    if _thread is not None and _thread.is_alive():
        return
    _stop.clear()
    _thread = threading.Thread(target=_loop, name="cfpd-watcher", daemon=True)
    _thread.start()
    atexit.register(stop)  # a process that ends without the worker's shutdown signal


def stop(timeout: float = 10.0):
    """Stop the watcher and wait for a tick under way to end (its worker is shutting down:
    a tick cut off by the interpreter's exit would only log a failure)."""
    _stop.set()
    if _thread is not None and _thread.is_alive() and _thread is not threading.current_thread():
        _thread.join(timeout)


def _loop():
    while not _stop.wait(settings.CFPD_SWEEP_SECONDS):
        try:
            tick()
        except Exception:  # noqa: BLE001 — the watcher never dies; the next tick tries again
            if _stop.is_set():  # stopping: the connections may already be closed under it
                break
            log.exception("watcher tick failed")
        finally:
            close_old_connections()


def probe_database() -> Exception | None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return None
    except Exception as exc:  # noqa: BLE001
        try:
            connection.close()
        except Exception:  # noqa: BLE001
            pass
        return exc


def probe_broker() -> Exception | None:
    """Redis answers a PING; the embedded default's queue folder takes a file."""
    try:
        if settings.REDIS_URL:
            queueing.redis_client().ping()
        else:
            path = settings.QUEUE_DIR / f".probe-{os.getpid()}"
            path.write_bytes(b"1")
            path.unlink()
        return None
    except Exception as exc:  # noqa: BLE001
        return exc


def refusing_models(now: datetime) -> dict[int, datetime]:
    """Models of the active runs whose provider refuses connections now (the limiter
    paused their calls): model id -> since when."""
    limiter = get_limiter(settings.REDIS_URL)
    # A unit refused goes back for 1-2 pauses; its next refusal renews the record.
    within = 2 * settings.CFPD_CONNECTION_PAUSE + 2 * settings.CFPD_SWEEP_SECONDS + 5
    refusing = {}
    for pk in LLMModel.objects.filter(runs__status__in=[Run.Status.QUEUED, Run.Status.RUNNING]).values_list(
            "pk", flat=True).distinct():
        since = limiter.refusing_since(f"model-{pk}", within)
        if since is not None:
            refusing[pk] = datetime.fromtimestamp(since, timezone.utc)
    return refusing


def tick(now: datetime | None = None) -> dict:
    """One look: the services, then the runs. What it found and did (for tests and logs)."""
    now = now or datetime.now(timezone.utc)
    broker = infra.REDIS if settings.REDIS_URL else infra.QUEUE
    database_error = probe_database()
    if database_error is not None:
        health.report(infra.service_of(database_error) or infra.DATABASE, now)
        return {"down": health.down()}
    broker_error = probe_broker()
    if broker_error is not None:
        health.report(infra.service_of(broker_error) or broker, now)
    else:
        health.clear(broker)
    health.clear(infra.DATABASE)
    # A full disk is known only from the writes that failed: over once none has for two looks.
    if health.quiet_for(infra.DISK_FULL) > 2 * settings.CFPD_SWEEP_SECONDS:
        health.clear(infra.DISK_FULL)
    life = refusing = None
    if broker_error is None:
        try:
            life, refusing = queueing.broker_life(now), refusing_models(now)
        except Exception as exc:  # noqa: BLE001 — gone between the PING and now: next look
            health.report(infra.service_of(exc) or broker, now)
    global _first_look
    down = health.down()
    ended = _ended_since_last_tick(down)
    # Lost codes are looked for while the database takes writes (coding would fail again).
    writable = not any(service in down for service in services.WRITE_OUTAGES)
    uncoded_from = services.uncoded_since(now, ended, _first_look) if writable else False
    result = services.watch_services(down, ended=ended, now=now, broker_life=life, refusing=refusing,
                                     uncoded_from=uncoded_from)
    if writable:
        _first_look = False
    if not down:
        # Batch delivery: open batches polled and collected, pending units sent (resumes
        # after a restart: every state is in the database).
        result["batch_runs"] = provider_batch.advance_all()
    return {"down": down, **result}


_last_down: dict[str, datetime] = {}
_first_look = True  # this process has not looked for lost codes yet: it reads every answer once


def _ended_since_last_tick(down: dict[str, datetime]) -> dict[str, datetime]:
    """Outages this process saw that are over now (service -> since)."""
    global _last_down
    ended = {service: since for service, since in _last_down.items() if service not in down}
    _last_down = dict(down)
    return ended


def reset():
    """Forget what was seen (tests)."""
    global _last_down, _first_look
    _last_down = {}
    _first_look = True
    health.reset()
