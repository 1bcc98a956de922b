"""The per-model limits hold across processes when they live in Redis."""

import os
import uuid

import pytest

from gateway import pacing
from gateway.limits import RedisLimiter

pytestmark = [pytest.mark.services,
              pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs REDIS_URL (the PostgreSQL/Redis pass)")]


def test_two_workers_share_one_concurrency_limit():
    prefix = f"cfpd-test:{uuid.uuid4().hex[:8]}"
    worker_a, worker_b = RedisLimiter(os.environ["REDIS_URL"], prefix), RedisLimiter(os.environ["REDIS_URL"], prefix)
    held = [worker_a.try_acquire("m", 3, lease=30), worker_b.try_acquire("m", 3, lease=30),
            worker_a.try_acquire("m", 3, lease=30)]
    assert all(held)
    assert worker_b.try_acquire("m", 3, lease=30) is None
    worker_a.release("m", held[0])
    assert worker_b.try_acquire("m", 3, lease=30) is not None
    assert worker_a.in_flight("m") == 3


def test_a_dead_workers_slot_comes_back_when_its_lease_ends():
    prefix = f"cfpd-test:{uuid.uuid4().hex[:8]}"
    limiter = RedisLimiter(os.environ["REDIS_URL"], prefix)
    assert limiter.try_acquire("m", 1, lease=-1)  # already expired: its holder died
    assert limiter.try_acquire("m", 1, lease=30) is not None


def test_the_minute_budget_is_shared():
    prefix = f"cfpd-test:{uuid.uuid4().hex[:8]}"
    worker_a, worker_b = RedisLimiter(os.environ["REDIS_URL"], prefix), RedisLimiter(os.environ["REDIS_URL"], prefix)
    assert worker_a.try_rate("m", 2) == 0.0 and worker_b.try_rate("m", 2) == 0.0
    assert worker_a.try_rate("m", 2) > 0


def test_a_worker_takes_many_slots_in_one_step_but_never_more_than_are_free():
    prefix = f"cfpd-test:{uuid.uuid4().hex[:8]}"
    worker_a, worker_b = RedisLimiter(os.environ["REDIS_URL"], prefix), RedisLimiter(os.environ["REDIS_URL"], prefix)
    held = worker_b.try_acquire("m", 5, lease=30)
    taken = worker_a.try_acquire_many("m", 5, lease=30, count=10)
    assert len(taken) == 4 and len(set(taken)) == 4  # 5 - 1 held elsewhere
    assert worker_b.try_acquire_many("m", 5, lease=30, count=3) == []
    worker_b.release("m", held)
    worker_a.release("m", taken[0])
    again = worker_b.try_acquire_many("m", 5, lease=30, count=3)
    assert len(again) == 2 and not set(again) & set(taken)  # each round trip's names are its own
    assert worker_a.in_flight("m") == 5
    worker_a.release_many("m", taken[1:])  # one ZREM
    assert worker_a.in_flight("m") == 2


def called_for_a_minute(limiter, model):
    """The model's calls began a minute ago (pacing learns from no less: `learn_history`)."""
    import time

    now = time.time()
    limiter.redis.hset(f"{limiter.prefix}:{model}:pace", mapping={"since": now - 60, "seen_at": now})


def test_a_pace_learned_by_one_worker_spaces_the_starts_of_another():
    prefix = f"cfpd-test:{uuid.uuid4().hex[:8]}"
    worker_a, worker_b = RedisLimiter(os.environ["REDIS_URL"], prefix), RedisLimiter(os.environ["REDIS_URL"], prefix)
    called_for_a_minute(worker_b, "m")
    for _ in range(12):
        worker_b.pace_observe("m", pacing.Outcome(False))  # 12 answers this minute, seen by b
    assert worker_a.reserve_start("m", None, max_wait=1) == (True, 0.0)  # unpaced
    for _ in range(10):  # a meets 429s: by the 10th, half of the model's last 20 calls (b's answers among them)
        spacing = worker_a.pace_observe("m", pacing.Outcome(True))
    # The 12 answers b saw less 5 %: 11.4 a minute, one start every 60 / 11.4 = 5.26 s.
    assert spacing == pytest.approx(60 / 11.4, rel=1e-3)
    assert worker_b.reserve_start("m", None, max_wait=1)[0]
    reserved, wait = worker_a.reserve_start("m", None, max_wait=10)
    assert reserved and 5.0 < wait <= 5.27


def test_unpaced_starts_skip_the_reservation_and_a_pace_learned_elsewhere_reaches_them(monkeypatch):
    import time

    from gateway import limits

    prefix = f"cfpd-test:{uuid.uuid4().hex[:8]}"
    worker_a, worker_b = RedisLimiter(os.environ["REDIS_URL"], prefix), RedisLimiter(os.environ["REDIS_URL"], prefix)
    reserved = []
    real = worker_a.reserve_start
    monkeypatch.setattr(worker_a, "reserve_start", lambda *args: reserved.append(args) or real(*args))
    clock = [1000.0]
    monkeypatch.setattr(limits.time, "monotonic", lambda: clock[0])
    assert limits._pace_wait(worker_a, "m", None, 1.0) == 0.0
    assert limits._pace_wait(worker_a, "m", None, 1.0) == 0.0  # within ADAPTIVE_READ of the look: no reservation
    assert len(reserved) == 1
    assert limits._pace_wait(worker_a, "m", 60, 1.0) == 0.0  # a per-minute budget: reserved every time
    assert len(reserved) == 2
    called_for_a_minute(worker_b, "m")
    for _ in range(12):
        worker_b.pace_observe("m", pacing.Outcome(False))
    for _ in range(10):  # b meets 429s and learns a pace of 60 / 11.4 = 5.26 s
        worker_b.pace_observe("m", pacing.Outcome(True))
    clock[0] += limits.ADAPTIVE_READ  # a's last look is now as old as ADAPTIVE_READ: it looks again
    assert limits._pace_wait(worker_a, "m", None, 10.0) == 0.0  # the first start is reserved at once
    assert 5.0 < limits._pace_wait(worker_a, "m", None, 10.0) <= 5.27  # the next, spaced by b's pace
    assert len(reserved) == 4


def test_slots_given_back_in_one_turn_go_back_to_redis_in_one_round_trip():
    """Issue 45: four calls that end in one turn of the loop give their slots back with one
    ZREM at the next turn (`async_slots._give_back_soon`), not four."""
    from tests.gateway.support import end_in_one_turn

    limiter = RedisLimiter(os.environ["REDIS_URL"], f"cfpd-test:{uuid.uuid4().hex[:8]}")
    asked, zrem = [], limiter.redis.zrem
    limiter.redis.zrem = lambda key, *tokens: asked.append(len(tokens)) or zrem(key, *tokens)

    assert end_in_one_turn(limiter, settle=0.05) == 4
    assert asked == [4] and limiter.in_flight("m") == 0
