"""Celery tasks: thin wrappers over `execution`, `batch_execution` and `services`. Sent
by name from `queueing` (the names are its constants), which imports nothing of this."""

import gc
import logging

from celery import shared_task
from celery.signals import worker_init, worker_ready

from . import batch_execution, execution, llm, queueing, services


@shared_task(name=queueing.ASK, bind=True, acks_late=True, max_retries=None, ignore_result=True)
def ask(self, response_id: int):
    """One unit: ask one question of one model once. Idempotent (the row is claimed)."""
    outcome = execution.execute(response_id)
    if outcome.action == "retry":
        # Celery's retry with the backoff `execution` computed (exponential, full
        # jitter, capped, never sooner than Retry-After).
        raise self.retry(countdown=outcome.countdown)
    if outcome.action == "requeue":
        queueing.ask_later(response_id, outcome.countdown)


@shared_task(name=queueing.ASK_BATCH, acks_late=True, ignore_result=True)
def ask_batch(response_ids: list[int]):
    """Units of one model, asked together (see `batch_execution`). Idempotent: each unit
    is claimed. A unit to try again later goes on alone, as `ask` retries."""
    for response_id, outcome in batch_execution.execute_batch(response_ids):
        if outcome.action in ("retry", "requeue"):
            queueing.ask_later(response_id, outcome.countdown)


@shared_task(name=queueing.SWEEP, ignore_result=True)
def sweep(run_id: int):
    """While a run is active: re-queue units a dead worker held; then check again later."""
    _, active = services.sweep_run(run_id)
    if active:
        queueing.sweep_later(run_id)


@worker_init.connect
def warm_up_on_start(**kwargs):
    """LiteLLM is imported before the first unit, not inside its timed call (see llm.warm_up)."""
    llm.warm_up()


@worker_ready.connect
def freeze_start_up_objects(**kwargs):
    """The objects a worker holds once started (Django, Celery, LiteLLM and its price
    table: about 380,000) are moved out of the cyclic garbage collector's sight: each full
    collection walked them all and stopped every thread for 160-210 ms, the model calls in
    flight included (`bench/gc_pause.py`); side by side, 2 % more answers per second at
    C 32 and 6 % at C 128 (README, Performance). Reference counting still frees them."""
    gc.freeze()


@worker_ready.connect
def recover_on_start(**kwargs):
    """A worker that starts (or restarts after a crash) picks up what dead workers left."""
    count = services.recover_active_runs()
    if count:
        logging.getLogger(__name__).warning("re-queued %d open units of active runs", count)
