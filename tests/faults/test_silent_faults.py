"""Faults that were silent (issue 44), on a stack of their own whose watchers look every
SWEEP seconds and whose slot leases outlast any fault here (CFPD_LEASE_MARGIN 120 s):
only the engine's own recovery, not the long-stop or a lease running out, can end them.
Each unit is a message of its own, a worker thread reserves one, each model takes 4
calls at once (fewer than the workers' threads: its slots are all held) and the
provider answers in 0.5 s: a run of 200 units lasts about 12 s, most of its messages
waiting in Redis when the fault comes.

* Redis flushed and restarted empty within a second: no watcher sees it down; the run
  finishes by itself within 60 s, one answer per unit, and says Redis restarted empty.
* Redis stopped and restarted with its append-only file: the limiter's slots of calls
  that ended while it was down come back; answers flow again within one watcher period.
* The database's disk full under a run: every answer ends coded or queued.
* A provider refusing connections: the model is named on the run while its units wait.
"""

import os
import time

import pytest

from tests.fakes.fake_openai import FakeOpenAI
from tests.faults.stack import available, spare_port
from tests.faults.test_faults import CONCURRENCY, MODELS, WORKERS, _stack

pytestmark = [
    pytest.mark.services,
    pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="the PostgreSQL + Redis pass (REDIS_URL set)"),
    pytest.mark.skipif(bool(available()), reason=available() or "ok"),
]

UNITS = 200
SWEEP = 10  # the watchers' period here (CFPD_SWEEP_SECONDS)
FAULT_SECONDS = 6
SLOTS = 4  # each model's calls at once


@pytest.fixture(scope="module")
def fake():
    with FakeOpenAI(seed=4, latency=0.5) as server:
        yield server


def _slots(stack):
    stack.python("from runs_app.models import LLMModel\n"
                 f"LLMModel.objects.filter(name__startswith='fake-').update(max_concurrency={SLOTS})\n")


@pytest.fixture(scope="module")
def stack(tmp_path_factory, fake):
    stack = _stack(tmp_path_factory, fake, "silent", prepare=_slots,
                   worker_env={"CFPD_SWEEP_SECONDS": str(SWEEP), "CFPD_LEASE_MARGIN": "120", "CFPD_BATCH_SIZE": "1",
                               "CELERY_PREFETCH": "1"})
    yield stack
    stack.close()


def a_quarter_answered(stack, run_id):
    deadline = time.monotonic() + 120
    while stack.counts(run_id).get("done", 0) < UNITS // 4:
        assert time.monotonic() < deadline, f"no quarter of the run answered: {stack.counts(run_id)}"
        time.sleep(0.2)


def finished(stack, run_id, bound, units=UNITS, seen=None) -> float:
    """Seconds until the run is done with no unit open and every answer coded or queued
    (asserted within `bound`); the service_wait states seen on the way go into `seen`."""
    started = time.monotonic()
    while True:
        counts = stack.counts(run_id)
        if seen is not None and counts.get("service_wait"):
            seen.append(counts["service_wait"])
        if (counts.get("run") == "done" and not counts.get("pending") and not counts.get("running")
                and not stack.uncoded(run_id)):
            break
        assert time.monotonic() - started < bound, f"the run did not finish by itself: {counts}"
        time.sleep(0.5)
    assert {key: counts.get(key, 0) for key in ("done", "failed", "pending", "running", "cancelled")} == {
        "done": units, "failed": 0, "pending": 0, "running": 0, "cancelled": 0}
    return time.monotonic() - started


def test_redis_flushed_and_restarted_empty_the_run_finishes_by_itself(stack, fake):
    fake.reset_stats()
    run_id = stack.launch(UNITS, models=MODELS, seed=21)
    a_quarter_answered(stack, run_id)
    stack.flush_and_restart_redis()
    seen = []
    seconds = finished(stack, run_id, bound=60, seen=seen)
    emptied = [state["emptied"] for state in seen if "emptied" in state]
    assert emptied and emptied[-1]["units"] > 0, seen[-1:]  # the run said so
    stats = fake.stats()
    asked_twice = sum(n - MODELS for n in stats["requests_per_prompt"].values() if n > MODELS)
    print(f"\nflushed: finished {seconds:.1f} s after the restart; {emptied[-1]['units']} units queued again; "
          f"units asked twice {asked_twice}")
    assert asked_twice <= CONCURRENCY * WORKERS * 2  # only calls in flight at the flush


def test_slots_restored_from_the_append_only_file_do_not_stall_the_run(stack, fake):
    stack.use_appendonly()
    run_id = stack.launch(UNITS, models=MODELS, seed=22)
    a_quarter_answered(stack, run_id)
    stack.stop_redis()  # its file written with the slots of the calls in flight
    time.sleep(FAULT_SECONDS)  # those calls end meanwhile; their releases fail
    stack.start_redis()
    back = time.time()
    deadline = time.monotonic() + 60
    while (first := stack.first_answer_after(run_id, back)) is None:
        assert time.monotonic() < deadline, f"no answer after Redis returned: {stack.counts(run_id)}"
        time.sleep(0.2)
    stall = first - back
    print(f"\nappend-only: first answer {stall:.1f} s after Redis returned")
    assert stall <= SWEEP  # one watcher period, not the leases' 125 s (the workers reconnect to Redis in 2, 4, 6 s steps)
    finished(stack, run_id, bound=120)


def test_a_full_disk_leaves_no_answer_uncoded(stack, fake):
    run_id = stack.launch(UNITS, models=MODELS, seed=23)
    a_quarter_answered(stack, run_id)
    stack.disk_full_flag.write_text("full")
    time.sleep(FAULT_SECONDS)
    stack.disk_full_flag.unlink()
    finished(stack, run_id, bound=120)  # every answer coded or queued (stack.uncoded == 0)


def test_a_provider_refusing_connections_is_named_while_its_units_wait(stack):
    port = spare_port()  # nothing listens there yet
    out = stack.python(
        "from scenarios_app.models import Benchmark\n"
        "from runs_app import services\n"
        "from runs_app.models import LLMModel\n"
        "model = LLMModel.objects.create(name='refuser', litellm_model='openai/fake', "
        f"api_base='http://127.0.0.1:{port}/v1', answer_mode='choice', choice_strategy='logprobs', "
        "max_concurrency=4, timeout_seconds=5)\n"
        "run = services.launch_run(Benchmark.objects.get(name='demo'), [model], "
        "services.Selection(sample=20, seed=24), use_cache=False)\n"
        "print('RUN', run.pk)\n")
    run_id = int(out.split("RUN")[1].split()[0])
    deadline = time.monotonic() + 3 * SWEEP + 10
    while "refuser" not in ((stack.counts(run_id).get("service_wait") or {}).get("refusing") or {}):
        assert time.monotonic() < deadline, f"the refusing provider was not named: {stack.counts(run_id)}"
        time.sleep(0.5)
    counts = stack.counts(run_id)
    assert counts.get("done", 0) == 0 and counts.get("failed", 0) == 0  # waiting, nothing failed
    with FakeOpenAI(port=port, seed=6, latency=0.01):
        finished(stack, run_id, bound=90, units=20)
        deadline = time.monotonic() + 2 * SWEEP + 5
        while (stack.counts(run_id).get("service_wait") or {}).get("refusing"):
            assert time.monotonic() < deadline, "the refusing provider still named after the run ended"
            time.sleep(0.5)
