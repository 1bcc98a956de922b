"""The run engine's queue: which units travel in which message, and sending them.

Every message the engine sends goes through here: units of one model in batches (one
`ask_batch` message each, asked together), a unit asked alone in an `ask` message of its
own, the sweep of an active run. Messages are sent by task name, so this module imports
no task: `tasks` (the worker's side) imports it, and nothing it imports comes back here.

Layers of the engine, each importing only those before it:
models, planning, batching, limits, llm ← queueing ← execution, batch_execution (asking,
writing; a written answer's follow-up units are queued) ← provider_batch (batch delivery,
through `execution`'s writer) ← services ← tasks, views, api.
"""

from __future__ import annotations

import logging
import uuid
from datetime import datetime
from datetime import timezone as dt_timezone

# The site's Celery app (cfpd_site.celery makes it every thread's default): the engine names
# no module of the site, which sits on top of the house.
from celery import current_app as app
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from . import batching, health, infra
from .local_weights import LOCAL_QUEUE
from .models import LLMModel, Response, Run

# The tasks' names (runs_app.tasks registers its tasks under them).
ASK = "runs_app.tasks.ask"
ASK_BATCH = "runs_app.tasks.ask_batch"
SWEEP = "runs_app.tasks.sweep"
DISPATCH = "runs_app.tasks.dispatch"
PROVIDER_BATCHES = "runs_app.tasks.provider_batches"
DISPATCH_PAGE = 10_000  # units read and sent at a time by `dispatch_units`


BROKER_LIFE_KEY = "cfpd:broker-life"
_redis = None


def redis_client():
    """This process's client of the broker's Redis (the watcher's probe, the life marker)."""
    global _redis
    if _redis is None:
        import redis

        _redis = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=5, socket_connect_timeout=5)
    return _redis


def broker_life(now=None) -> tuple[str, datetime] | None:
    """(marker, born) of the broker's current life: a key written when Redis has none,
    its value a new name and the time it was written. It lives as long as the messages
    do: a FLUSHALL, an eviction or a restart without persistence removes both, a restart
    with the append-only file keeps both. Read by the watchers (`watcher.tick`) and
    recorded on a run at its launch (`services.create_run`), so that the first look at a
    fresh broker's run does not take its life for a new one. None on the embedded default
    (the queue folder's files are the messages: nothing removes them but a worker).
    Raises what Redis raises."""
    if not settings.REDIS_URL:
        return None
    client = redis_client()
    now = now or timezone.now()
    client.set(BROKER_LIFE_KEY, f"{uuid.uuid4().hex}@{now.timestamp():.3f}", nx=True)
    value = (client.get(BROKER_LIFE_KEY) or b"").decode()
    name, _, born = value.partition("@")
    try:
        return name, datetime.fromtimestamp(float(born), dt_timezone.utc)
    except ValueError:  # written by hand: a life of its own, as old as can be
        return name, datetime.fromtimestamp(0, dt_timezone.utc)


def enqueue(response_ids: list[int]):
    """Queue the units after the transaction that created them commits: units of one
    model in batches (one message each, asked together), a unit asked alone in a message
    of its own (see `batching.asked_alone`)."""

    def send():
        now = timezone.now()
        for start in range(0, len(response_ids), settings.CFPD_ENQUEUE_CHUNK):
            chunk = response_ids[start:start + settings.CFPD_ENQUEUE_CHUNK]
            Response.objects.filter(pk__in=chunk).update(enqueued_at=now)
            keys, batch_runs, local = _batch_keys(chunk)
            _send(batching.batches(keys), local)
            for run_id in batch_runs:
                _publish_or_leave(PROVIDER_BATCHES, [run_id], run_id)

    transaction.on_commit(send)


def send_launch(run_id: int, units: int):
    """A launch's units (written pending and marked as sent) in messages, once its
    transaction commits: sent from here for a run of up to CFPD_DISPATCH_INLINE units; a
    larger one's by a worker (one `dispatch` message, `dispatch_units`), so that a
    paper-scale launch returns once its rows are written rather than after 80,000 sends.
    If that one message is lost, the sweep finds its units passed by the queue."""
    if units <= settings.CFPD_DISPATCH_INLINE:
        transaction.on_commit(lambda: dispatch_units(run_id))
    else:
        transaction.on_commit(lambda: _publish_or_leave(DISPATCH, [run_id], run_id))


def _publish_or_leave(task: str, args: list, run_id: int):
    try:
        publish(task, args)
    except Exception as exc:
        if not unsent(exc, list(Response.objects.filter(run_id=run_id, status=Response.Status.PENDING)
                                .values_list("pk", flat=True))):
            raise


def dispatch_units(run_id: int, page: int = DISPATCH_PAGE) -> int:
    """Send the run's pending units in batches, read `page` at a time in id order (bounded
    memory at any size). When the broker cannot take them, every pending unit of the run is
    marked as never sent, for the watcher (a unit sent twice is claimed once). Returns the
    units sent."""
    run = Run.objects.filter(pk=run_id).values("budget_usd", "budget_units", "delivery").first()
    if run is None:
        return 0
    if run["delivery"] == Run.Delivery.BATCH:
        # Batch delivery: one message, whose worker sends the units to the provider's batch interface.
        _publish_or_leave(PROVIDER_BATCHES, [run_id], run_id)
        return Response.objects.filter(run_id=run_id, status=Response.Status.PENDING).count()
    sizes, bundled_models = {}, set()
    for model_id, bundled, mode, concurrency in Run.llm_models.through.objects.filter(run_id=run_id).values_list(
            "llmmodel_id", "llmmodel__is_bundled", "llmmodel__answer_mode", "llmmodel__max_concurrency"):
        sizes[model_id] = batching.units_per_message(bundled, mode, run["budget_usd"], run["budget_units"],
                                                     concurrency, settings.CFPD_BATCH_SIZE)
        if bundled:
            bundled_models.add(model_id)
    pending = Response.objects.filter(run_id=run_id, status=Response.Status.PENDING).order_by("pk")
    rows = pending.values_list("pk", "model_id").iterator(chunk_size=page)
    local = set()  # the units of bundled models: their batches go to LOCAL_QUEUE

    def keyed():
        for pk, model_id in rows:
            if model_id in bundled_models:
                local.add(pk)
            yield pk, model_id, sizes.get(model_id, 1)

    try:
        sent, batches, held = 0, [], 0
        for batch in batching.stream_batches(keyed()):
            batches.append(batch)
            held += len(batch)
            if held >= page:
                if not _send(batches, local):
                    return _left_to_the_watcher(run_id, sent)
                sent, batches, held = sent + held, [], 0
        if batches and not _send(batches, local):
            return _left_to_the_watcher(run_id, sent)
        return sent + held
    finally:
        rows.close()  # the database cursor, at once (not when the generator is collected)


def _left_to_the_watcher(run_id: int, sent: int) -> int:
    _mark_never_sent(Response.objects.filter(run_id=run_id))
    return sent


def _send(batches: list[list[int]], local: set[int] = frozenset()) -> bool:
    """One message per batch, all through one producer (one broker connection); a batch of
    a bundled model's units (its first in `local`: a batch holds one model's) to
    LOCAL_QUEUE, for the workers that hold the weights. When the
    broker cannot take them (Redis down, the queue's disk full), the units of the batches
    not sent are marked as never sent, for the watcher to send once the broker is back,
    and the failure is reported to this process's health: never lost, and never an error
    of the caller's (a written answer stays written)."""
    sent = 0
    try:
        with app.producer_or_acquire() as producer:
            for batch in batches:
                routed = {"queue": LOCAL_QUEUE} if batch[0] in local else {}
                if len(batch) == 1:
                    publish(ASK, [batch[0]], producer=producer, **routed)
                else:
                    publish(ASK_BATCH, [batch], producer=producer, **routed)
                sent += 1
    except Exception as exc:
        if not unsent(exc, [pk for batch in batches[sent:] for pk in batch]):
            raise
        return False
    return True


def unsent(exc: Exception, response_ids: list[int]) -> bool:
    """If `exc` is the broker's failure: report it, mark the units as never sent (the
    watcher sends them once the broker is back) and say so; else False."""
    service = infra.service_of(exc)
    if service is None:
        return False
    health.report(service)
    logging.getLogger(__name__).warning("%d units not sent: %s unreachable (%s); the watcher sends them once it "
                                        "is back", len(response_ids), infra.LABELS[service], exc)
    _mark_never_sent(Response.objects.filter(pk__in=response_ids))
    return True


def _mark_never_sent(units):
    """The pending ones of `units` marked as never sent, for the watcher."""
    try:
        units.filter(status=Response.Status.PENDING).update(enqueued_at=None)
    except Exception as exc:  # the database down too: the watcher sends every pending unit once both are back
        if infra.service_of(exc) is None:
            raise
        health.report(infra.service_of(exc))


def publish(task: str, args: list, countdown: float | None = None, producer=None, queue: str | None = None):
    """Send one message now (the one place that talks to the broker), to `queue` (None:
    Celery's default queue; LOCAL_QUEUE: only the workers holding the bundled weights)."""
    options = {"queue": queue} if queue else {}
    app.send_task(task, args=args, countdown=countdown, producer=producer, ignore_result=True, **options)


def routing_of_model(model_id: int) -> dict:
    """`publish`'s routing for a model's units and connection tests: LOCAL_QUEUE for a
    bundled model (run where its weights are), else nothing (the default queue)."""
    return {"queue": LOCAL_QUEUE} if LLMModel.objects.filter(pk=model_id, is_bundled=True).exists() else {}


def _batch_keys(response_ids: list[int]) -> tuple[list[tuple[int, object, int]], set[int], set[int]]:
    """(unit, what it may be batched with, the largest batch) for each unit that exists and
    is asked live; the runs with batch delivery among the units' (their units go to
    the provider's batch interface, `provider_batch`, never in live messages); and the
    units of bundled models (sent to LOCAL_QUEUE)."""
    rows = Response.objects.filter(pk__in=response_ids).values_list(
        "pk", "model_id", "model__max_concurrency", "model__is_bundled", "model__answer_mode", "run__budget_usd",
        "run__budget_units", "run_id", "run__delivery")
    keys, batch_runs, local = [], set(), set()
    for pk, model_id, concurrency, bundled, mode, budget_usd, budget_units, run_id, delivery in rows:
        if delivery == Run.Delivery.BATCH:
            batch_runs.add(run_id)
            continue
        if bundled:
            local.add(pk)
        size = batching.units_per_message(bundled, mode, budget_usd, budget_units, concurrency,
                                          settings.CFPD_BATCH_SIZE)
        keys.append((pk, model_id, size))
    return keys, batch_runs, local


def ask_later(response_id: int, countdown: float):
    """A unit to try again (a transient error's backoff, or its model's slots busy); if
    the broker cannot take it, it is marked as never sent (see `unsent`)."""
    try:
        bundled = Response.objects.filter(pk=response_id, model__is_bundled=True).exists()
        publish(ASK, [response_id], countdown=countdown, **({"queue": LOCAL_QUEUE} if bundled else {}))
    except Exception as exc:
        if not unsent(exc, [response_id]):
            raise


def sweep_later(run_id: int):
    """The run's next sweep, CFPD_SWEEP_SECONDS from now."""
    publish(SWEEP, [run_id], countdown=settings.CFPD_SWEEP_SECONDS)


def schedule_sweep(run_id: int):
    """The run's first sweep, once the transaction commits."""
    transaction.on_commit(lambda: sweep_later(run_id))
