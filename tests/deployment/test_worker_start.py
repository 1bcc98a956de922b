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


@pytest.mark.parametrize("gen0, expected", [(20_000, 20_000), (0, 700)])
def test_a_ready_worker_collects_its_young_objects_after_the_allocations_configured(monkeypatch, settings, gen0,
                                                                                   expected):
    # Issue 45: a young collection every 700 allocations cost a worker ~2 % of its CPU per
    # answer at concurrency 128 more than one every 20,000 (docs/performance.md); 0 keeps Python's.
    monkeypatch.setattr(watcher, "start", lambda: None)
    settings.CFPD_WORKER_GC_GEN0 = gen0
    before = gc.get_threshold()
    gc.set_threshold(700, *before[1:])
    try:
        worker_ready.send(sender=None)
        assert gc.get_threshold() == (expected, *before[1:])
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
