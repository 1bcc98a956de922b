"""What a worker does once it is ready (runs_app.tasks' worker_ready receivers)."""

import gc

import pytest
from celery.signals import worker_ready

from runs_app import tasks  # noqa: F401 — connects its receivers, as the worker's task discovery does

pytestmark = pytest.mark.django_db


def test_a_ready_worker_moves_its_start_up_objects_out_of_the_collectors_sight():
    # Each full collection walked every object Django, Celery and LiteLLM loaded and
    # stopped every thread meanwhile (bench/gc_pause.py: 160-210 ms): once ready, a worker
    # freezes them.
    gc.unfreeze()
    try:
        assert gc.get_freeze_count() == 0
        worker_ready.send(sender=None)
        assert gc.get_freeze_count() > 10_000
        frozen = gc.get_freeze_count()
        assert len(gc.get_objects()) < frozen  # what a full collection still walks
    finally:
        gc.unfreeze()
