"""One provider never blocks another (issue 31): one run asks two models on two fake
OpenAI-compatible servers whose limits are far apart, through real worker processes; the
fast provider's units finish at its own pace, not behind the slow provider's."""

import pytest

from runs_app import services
from tests.fakes.fake_openai import FakeOpenAI
from tests.runs_app.test_worker_runs import clean_broker, demo, fake_model, run_finished, wait_for, workers  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)

UNITS = 40  # per model
FAST = dict(limit_in_flight=20, latency=0.1)  # 20 in flight at 0.1 s: up to 200 answers a second
SLOW = dict(limit_in_flight=2, latency=0.5)  # 2 in flight at 0.5 s: up to 4 answers a second (50x fewer)


# A unit asked alone (a model of max_concurrency <= 2 has batches of one; every unit
# re-queued from a batch) waited up to CFPD_SLOT_WAIT for its model's slot holding its
# worker thread: the slow model's units filled the threads and the fast one finished with
# it ({'fast': 9.3, 'slow': 10.1}). Now at most CFPD_SLOT_WAITERS threads of a process wait
# for one model's slot (`limits.slot`); the others' units go back to the queue at once.
def test_a_slow_provider_does_not_hold_back_a_fast_one(demo, workers):  # noqa: F811
    with FakeOpenAI(seed=1, **FAST) as fast, FakeOpenAI(seed=2, **SLOW) as slow:
        a = fake_model(fast, name="fast", max_concurrency=20, timeout_seconds=5)
        b = fake_model(slow, name="slow", litellm_model="openai/slow", max_concurrency=2, timeout_seconds=5)
        run = services.launch_run(demo, [a, b], services.Selection(sample=UNITS, seed=3))
        workers.start(concurrency=4)
        wait_for(lambda: run_finished(run), 240, "the run to finish")
        fast_stats, slow_stats = fast.stats(), slow.stats()
    rows = list(run.responses.values_list("model__name", "status", "answered_at"))
    assert len(rows) == 2 * UNITS and {status for _, status, _ in rows} == {"done"}
    # Neither server was asked beyond its limit (a 429 would be a failed request there).
    assert fast_stats["failed"] == 0 and slow_stats["failed"] == 0, (fast_stats, slow_stats)
    start = min(at for _, _, at in rows)
    last = {name: max((at - start).total_seconds() for n, _, at in rows if n == name) for name in ("fast", "slow")}
    # The slow provider alone needs at least 40 / 2 x 0.5 = 10 s; the fast one 40 / 20 x
    # 0.1 = 0.2 s of calls, plus the workers' own time. Held behind the slow one, the
    # fast one would finish near the slow one's end; at its own pace, long before (by
    # half of it: the workers' own time under a loaded CI machine took the fast one to
    # 4.8 s of the slow one's 12.5 s).
    assert last["slow"] >= 9.5, last
    assert last["fast"] <= last["slow"] / 2, last
