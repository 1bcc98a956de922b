"""What a worker does once it is ready (runs_app.tasks' worker_ready receivers)."""

import gc

import pytest
from celery.signals import worker_ready

from runs_app import tasks, watcher  # noqa: F401 — tasks connects its receivers, as the worker's task discovery does

pytestmark = pytest.mark.django_db


def test_a_ready_worker_moves_its_start_up_objects_out_of_the_collectors_sight(monkeypatch):
    # The other receivers start the worker's watcher: not in the test process, where its
    # thread would outlive the test and act on later tests' runs.
    monkeypatch.setattr(watcher, "start", lambda: None)
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
