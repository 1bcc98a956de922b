"""Faults under a run on the embedded default (issue 32): a SQLite file and the file
broker's folder of the module's own (CFPD_VAR_DIR in a temporary folder), two real
Celery workers, the fake provider; each fault the embedded default can meet injected
about a quarter into a run of a few hundred units: a worker SIGKILLed and restarted, the
database's disk full (the simulated ENOSPC in the writer, as tests/faults/test_faults.py
has it), and the queue folder unwritable (every folder of the broker refusing new files
and removals). After each, as there: one answer per unit, no unit failed by the fault,
the run finished by itself within a bound, the provider calls beyond one per unit
counted (printed; bounded by the calls in flight at the fault).

Runs in the SQLite pass (REDIS_URL unset); the PostgreSQL + Redis pass runs
tests/faults/test_faults.py instead.
"""

import os
import time

import pytest

from tests.fakes.fake_openai import FakeOpenAI
from tests.faults.stack import EmbeddedStack, queue_can_be_made_unwritable
from tests.faults.test_faults import CONCURRENCY, MODELS, WORKERS, run_through

pytestmark = pytest.mark.skipif(bool(os.environ.get("REDIS_URL")),
                                reason="the SQLite pass only; REDIS_URL is set here (test_faults.py runs instead)")

# Calls the killed worker had in flight may be asked again, no more: each of its threads
# holds one batch of at most 4 units (the stack's CFPD_BATCH_SIZE): 8 threads x 4 = 32.
IN_FLIGHT_BOUND = CONCURRENCY * 4


@pytest.fixture(scope="module")
def fake():
    with FakeOpenAI(seed=3, latency=0.05) as server:
        yield server


@pytest.fixture(scope="module")
def stack(tmp_path_factory, fake):
    stack = EmbeddedStack(tmp_path_factory.mktemp("embedded"))
    try:
        stack.start()
        stack.setup_models(fake.base_url, models=MODELS)
        for _ in range(WORKERS):
            stack.start_worker(CONCURRENCY)
        yield stack
    finally:
        stack.close()


def test_a_worker_killed_and_restarted(stack, fake):
    report = run_through(stack, fake, *stack.worker_killer(CONCURRENCY), seed=21)
    assert report["duplicate_calls"] <= IN_FLIGHT_BOUND


def test_a_full_disk(stack, fake):
    def disk_full():
        stack.disk_full_flag.write_text("full")

    report = run_through(stack, fake, disk_full, lambda: stack.disk_full_flag.unlink(), seed=22)
    assert "disk_full" in report["notices"]  # the run said so, and the notice is gone
    assert report["duplicate_calls"] <= IN_FLIGHT_BOUND


@pytest.mark.skipif(bool(queue_can_be_made_unwritable()), reason=queue_can_be_made_unwritable() or "ok")
def test_the_queue_folder_unwritable(stack, fake):
    def queue_unwritable():
        stack.queue_unwritable()

    report = run_through(stack, fake, queue_unwritable, stack.queue_writable, seed=23)
    assert "queue" in report["notices"]
    # No message is left behind in the folder (one a reader could not take during the fault).
    deadline = time.monotonic() + 10
    while list((stack.queue / "out").iterdir()):
        assert time.monotonic() < deadline, sorted(path.name for path in (stack.queue / "out").iterdir())
        time.sleep(0.5)
    assert report["duplicate_calls"] <= IN_FLIGHT_BOUND
