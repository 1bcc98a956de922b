"""Celery tasks: thin wrappers over `execution`, `batch_execution` and `services`. Sent
by name from `queueing` (the names are its constants), which imports nothing of this."""

import gc
import logging
import uuid

from celery import shared_task
from celery.signals import celeryd_after_setup, celeryd_init, worker_init, worker_ready, worker_shutdown
from celery.utils.time import get_exponential_backoff_interval
from django.conf import settings

import gateway

from . import (batch_execution, connection, execution, health, infra, local_weights, provider_batch, queueing, services,
               unit_rows, watcher, worker_identity)
from .models import LLMModel


@shared_task(name=queueing.ASK, bind=True, acks_late=True, max_retries=None, ignore_result=True)
def ask(self, response_id: int, token: str | None = None):
    """One unit: ask one question of one model once. Idempotent (the row is claimed)."""
    token = token or uuid.uuid4().hex
    with _retried_while_a_service_is_down(self, [response_id], token):
        outcome = execution.execute(response_id, token)
    if outcome.action in ("retry", "requeue"):
        # The backoff `execution` computed (exponential, full jitter, capped, never
        # sooner than Retry-After), sent through `queueing` (a broker that cannot take
        # it leaves the unit to the watcher).
        queueing.ask_later(response_id, outcome.countdown)


@shared_task(name=queueing.ASK_BATCH, bind=True, acks_late=True, max_retries=None, ignore_result=True)
def ask_batch(self, response_ids: list[int], token: str | None = None):
    """Units of one model, asked together (see `batch_execution`). Idempotent: each unit
    is claimed. A unit to try again later goes on alone, as `ask` retries."""
    token = token or uuid.uuid4().hex
    with _retried_while_a_service_is_down(self, response_ids, token):
        outcomes = batch_execution.execute_batch(response_ids, token)
    for response_id, outcome in outcomes:
        if outcome.action in ("retry", "requeue"):
            queueing.ask_later(response_id, outcome.countdown)


class _retried_while_a_service_is_down:
    """A task that meets the database gone, its disk full or Redis down (`infra`) is sent
    again with backoff (full jitter, capped at 60 s, no limit on tries: the units are not
    at fault), carrying its claim's token so that it takes back the units it held; never
    acknowledged and dropped. If the broker cannot take the retry either, the units are
    the watcher's (their claim's lease runs out; pending ones are sent again once the
    services are back)."""

    def __init__(self, task, response_ids: list[int], token: str):
        self.task, self.response_ids, self.token = task, response_ids, token

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, traceback):
        service = infra.service_of(exc) if exc is not None else None
        if service is None:
            return False
        health.report(service)
        retries = self.task.request.retries or 0
        countdown = get_exponential_backoff_interval(settings.CFPD_SERVICE_RETRY, min(retries, 6), 60,
                                                     full_jitter=True) + 1
        logging.getLogger(__name__).warning("units %s: %s failed (%s); the task is tried again in %.0f s",
                                            self.response_ids[:5], infra.LABELS[service], exc, countdown)
        args = [self.response_ids[0]] if self.task.name == queueing.ASK else [self.response_ids]
        try:
            self.task.retry(args=args, kwargs={"token": self.token}, countdown=countdown, exc=exc)
        except Exception as retry_exc:  # noqa: BLE001
            if type(retry_exc).__name__ == "Retry":
                raise
            queueing.unsent(retry_exc, self.response_ids)  # the broker down too: the watcher's
            return True
        return True


@shared_task(name=connection.TASK, ignore_result=True)
def connection_test(model_id: int, job: str):
    """A model's connection test (a few small requests), run once per job (claimed by its token)."""
    model = LLMModel.objects.filter(pk=model_id).first()
    if model is not None:
        connection.test_connection(model, job)


@shared_task(name=queueing.DISPATCH, ignore_result=True)
def dispatch(run_id: int):
    """A large launch's units sent in batches (`queueing.dispatch_units`). Acknowledged on
    receipt: if its worker dies half-way, the sweep finds the rest passed by the queue.
    The table's statistics are refreshed first: the run's rows are new to the planner."""
    unit_rows.refresh_statistics()
    queueing.dispatch_units(run_id)


@shared_task(name=queueing.PROVIDER_BATCHES, ignore_result=True)
def provider_batches(run_id: int):
    """A batch run's batches moved on now (sent, cancelled): the watcher does the same every tick."""
    provider_batch.advance_run(run_id)


@shared_task(name=queueing.SWEEP, ignore_result=True)
def sweep(run_id: int):
    """A run's sweep, once (messages sent before the watcher kept every worker's runs:
    the watcher now looks at every active run every CFPD_SWEEP_SECONDS)."""
    services.sweep_run(run_id)


@celeryd_init.connect
def name_this_worker(sender=None, **kwargs):
    """The worker's node name (`-n host1@%h`), written on each unit it claims."""
    worker_identity.set_name(str(sender or ""))


@celeryd_after_setup.connect
def subscribe_to_local_units(sender=None, instance=None, **kwargs):
    """Whether this worker takes the bundled local models' units: decided once, at its start
    (`local_weights`: CFPD_LOCAL_WEIGHTS, or the weights found here)."""
    local_weights.subscribe(instance.app.amqp.queues, str(sender or ""))


@worker_init.connect
def warm_up_on_start(**kwargs):
    """LiteLLM is imported before the first unit, not inside its timed call (see gateway.warm_up)."""
    gateway.warm_up()


@worker_ready.connect
def freeze_start_up_objects(**kwargs):
    """The objects a worker holds once started (Django, Celery, LiteLLM and its price
    table: about 380,000) are moved out of the cyclic garbage collector's sight: each full
    collection walked them all and stopped every thread for 160-210 ms, the model calls in
    flight included (`bench/gc_pause.py`); side by side, 2 % more answers per second at
    C 32 and 6 % at C 128 (README, Performance). Reference counting still frees them.
    The young generation is then collected after CFPD_WORKER_GC_GEN0 allocations (20,000)
    instead of Python's 700: side by side at C 128, ~2 % less worker CPU per answer."""
    gc.freeze()
    if settings.CFPD_WORKER_GC_GEN0 > 0:
        gc.set_threshold(settings.CFPD_WORKER_GC_GEN0, *gc.get_threshold()[1:])


@worker_ready.connect
def recover_on_start(**kwargs):
    """A worker that starts (or restarts after a crash) picks up what dead workers left,
    and starts its watcher (`runs_app.watcher`)."""
    try:
        count = services.recover_active_runs()
    except Exception as exc:  # a service down at start: the watcher recovers once it is back
        if infra.service_of(exc) is None:
            raise
        health.report(infra.service_of(exc))
        count = 0
    if count:
        logging.getLogger(__name__).warning("re-queued %d open units of active runs", count)
    watcher.start()


@worker_shutdown.connect
def stop_watching(**kwargs):
    watcher.stop()
