import threading
import time

import pytest

from runs_app.limits import LimitBusy, LocalLimiter, slot


def test_a_slot_is_refused_beyond_the_limit_and_freed_on_release():
    limiter = LocalLimiter()
    first = limiter.try_acquire("m", 2, lease=10)
    second = limiter.try_acquire("m", 2, lease=10)
    assert first and second and limiter.try_acquire("m", 2, lease=10) is None
    limiter.release("m", first)
    assert limiter.try_acquire("m", 2, lease=10) is not None


def test_an_expired_lease_frees_its_slot():
    limiter = LocalLimiter()
    assert limiter.try_acquire("m", 1, lease=0.05)
    assert limiter.try_acquire("m", 1, lease=10) is None
    time.sleep(0.06)
    assert limiter.try_acquire("m", 1, lease=10) is not None


def test_the_minute_budget_is_counted():
    limiter = LocalLimiter()
    assert [limiter.try_rate("m", 2) for _ in range(2)] == [0.0, 0.0]
    assert 0 < limiter.try_rate("m", 2) <= 60


def test_slot_holds_the_concurrency_limit_across_threads():
    limiter, peak, inside, lock = LocalLimiter(), [0], [0], threading.Lock()

    def work():
        with slot(limiter, "m", 3, None, lease=10, wait=5):
            with lock:
                inside[0] += 1
                peak[0] = max(peak[0], inside[0])
            time.sleep(0.02)
            with lock:
                inside[0] -= 1

    threads = [threading.Thread(target=work) for _ in range(12)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert peak[0] == 3


def test_slot_gives_up_after_waiting():
    limiter = LocalLimiter()
    limiter.try_acquire("m", 1, lease=10)
    with pytest.raises(LimitBusy):
        with slot(limiter, "m", 1, None, lease=10, wait=0.05):
            pass
