import threading
import time

import pytest

from gateway import limits, pacing
from gateway.limits import LimitBusy, LocalLimiter, slot


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


def test_beyond_the_waiters_allowed_a_call_goes_back_at_once_instead_of_waiting():
    # The model's one slot held; one thread waits for it (waiters=1). A second call does
    # not wait: LimitBusy(BOUNCE) at once, and the thread is free for another model's unit.
    limiter = LocalLimiter()
    held = limiter.try_acquire("slow", 1, lease=10)
    waiting = threading.Event()
    outcome = []

    def wait_for_the_slot():
        waiting.set()
        try:
            with slot(limiter, "slow", 1, None, lease=10, wait=5, waiters=1):
                outcome.append("asked")
        except LimitBusy:
            outcome.append("busy")

    first = threading.Thread(target=wait_for_the_slot)
    first.start()
    waiting.wait()
    while limits._slot_waiters["slow"] < 1:
        time.sleep(0.001)
    with pytest.raises(LimitBusy) as busy:
        with slot(limiter, "slow", 1, None, lease=10, wait=5, waiters=1):
            pass
    assert busy.value.retry_in == limits.BOUNCE
    # Another model is not held back by the slow one's waiter.
    with slot(limiter, "fast", 1, None, lease=10, wait=5, waiters=1):
        pass
    limiter.release("slow", held)
    first.join()
    assert outcome == ["asked"] and limits._slot_waiters["slow"] == 0


def test_repeated_429s_space_the_models_starts_and_a_random_one_does_not():
    cold = LocalLimiter()
    for _ in range(30):  # a model's first calls, 429s at once: nothing learned from a second of history
        cold.pace_observe("m", pacing.Outcome(True))
    # (learnt, they would space starts min_rpm apart: the second start 10 s after the first)
    assert cold.reserve_start("m", None, max_wait=1) == cold.reserve_start("m", None, max_wait=1) == (True, 0.0)
    limiter = LocalLimiter()
    now = time.time()  # the model called for the minute before (enough history to learn from)
    limiter.paces["m"] = (pacing.Pace(since=now - 60, seen_at=now), 0.0)
    for _ in range(30):  # answers: counted as the minute's 30 answers
        limiter.pace_observe("m", pacing.Outcome(False))
    limiter.pace_observe("m", pacing.Outcome(True))  # one 429 in 20 calls: nothing learned
    assert limiter.reserve_start("m", None, max_wait=1) == (True, 0.0)
    for _ in range(10):  # 10 of the last 20 calls 429s: paced to the 30 answers a minute less 5 %
        spacing = limiter.pace_observe("m", pacing.Outcome(True))
    assert spacing == pytest.approx(60 / 28.5, rel=1e-3)  # 2.105 s (probed up 10 % a minute since: microseconds)
    assert limiter.reserve_start("m", None, max_wait=5)[0]
    reserved, wait = limiter.reserve_start("m", None, max_wait=5)
    assert reserved and 2.0 < wait <= 2.11  # the next start 2.105 s after the one before
    assert limiter.reserve_start("m", None, max_wait=1)[0] is False  # 4.2 s away: back to the queue


# --- aslot: the same limits for calls on an event loop --------------------------------------

class CountingLimiter(LocalLimiter):
    def __init__(self):
        super().__init__()
        self.acquired = self.released = self.asked = 0

    def try_acquire_many(self, model, limit, lease, count):
        tokens = super().try_acquire_many(model, limit, lease, count)
        self.acquired += len(tokens)
        self.asked += 1
        return tokens

    def release(self, model, token):
        self.released += 1
        super().release(model, token)


def test_calls_on_a_loop_never_exceed_the_limit_and_hand_slots_over_within_the_process():
    import asyncio

    from gateway.async_slots import aslot

    limiter, in_flight, peak = CountingLimiter(), [0], [0]

    async def call():
        async with aslot(limiter, "m", 2, None, lease=10, poll=0.5, max_poll=0.5):
            in_flight[0] += 1
            peak[0] = max(peak[0], in_flight[0])
            await asyncio.sleep(0.02)
            in_flight[0] -= 1

    async def main():
        await asyncio.gather(*(call() for _ in range(10)))

    started = time.monotonic()
    asyncio.run(main())
    # 10 calls of 20 ms, 2 at a time: about 100 ms. With a poll of 500 ms, calls that
    # waited for Redis would take over a second: the waiting calls were handed the slots.
    assert peak[0] == 2 and time.monotonic() - started < 0.4
    assert limiter.acquired == 2 and limiter.released == 2  # 8 of 10 calls never touched the limiter
    assert limiter.in_flight("m") == 0


def test_a_slot_handed_over_counts_for_its_new_holder_at_once_and_each_call_says_whether_calls_waited():
    import asyncio

    from gateway import async_slots
    from gateway.async_slots import aslot, holding

    limiter = CountingLimiter()
    seen, uses = {}, {}

    async def call(name, hold):
        async with aslot(limiter, "m-handed", 2, None, lease=10, poll=0.5, max_poll=0.5) as use:
            uses[name] = use
            await asyncio.sleep(hold)
        # Just after its block: the slot it handed on is counted for the call it went to,
        # though that call has not run yet (one loop turn later it would).
        seen[name] = holding("m-handed")

    async def main():
        # a and b take the two slots; c and d wait. a ends first and hands its slot to c,
        # b hands its own to d; c and d end with nobody waiting.
        await asyncio.gather(call("a", 0.02), call("b", 0.04), call("c", 0.03), call("d", 0.01))

    asyncio.run(main())
    assert seen["a"] == 2  # b still holds one, and c was handed a's: 1 + 1 (it read 1 before)
    assert seen["b"] == 2  # c's and, handed b's, d's
    assert [uses[n].limited for n in "abcd"] == [True, True, True, True]
    assert (uses["a"].waited, uses["a"].handed_on, uses["c"].waited, uses["c"].handed_on) == (False, True, True, False)
    assert holding("m-handed") == 0 and async_slots._holding["m-handed"] == 0

    # One call alone: it neither waited nor had anyone to hand its slot to.
    async def alone():
        async with aslot(limiter, "m-alone", 2, None, lease=10) as use:
            pass
        return use

    assert asyncio.run(alone()).limited is False


def test_an_old_slot_goes_back_to_the_limiter_instead_of_being_handed_over(monkeypatch):
    import asyncio

    from gateway import async_slots

    monkeypatch.setattr(async_slots, "HANDOVER_SECONDS", 0.0)
    limiter = CountingLimiter()

    async def call():
        async with async_slots.aslot(limiter, "m", 1, None, lease=10, poll=0.005, max_poll=0.01):
            await asyncio.sleep(0.01)

    async def main():
        await asyncio.gather(*(call() for _ in range(4)))

    asyncio.run(main())
    assert limiter.acquired == limiter.released == 4


def test_slots_given_back_in_one_turn_of_the_loop_go_back_together_at_the_next():
    """Issue 45: the calls that end in one turn of the loop give their slots back to the
    limiter together (one ZREM on Redis), not one each."""
    from tests.gateway.support import end_in_one_turn

    class Batching(CountingLimiter):
        def __init__(self):
            super().__init__()
            self.given_back = []

        def release_many(self, model, tokens):
            self.given_back.append(len(tokens))
            super().release_many(model, tokens)

    limiter = Batching()
    assert end_in_one_turn(limiter) == 4
    assert limiter.given_back == [4] and limiter.in_flight("m") == 0
    assert limiter.released == 4


def test_a_call_on_a_loop_without_a_free_slot_is_told_to_come_back():
    import asyncio

    from gateway.async_slots import aslot

    limiter = LocalLimiter()
    held = limiter.try_acquire("m", 1, lease=10)

    async def call():
        async with aslot(limiter, "m", 1, None, lease=10, wait=0.05):
            pass

    with pytest.raises(LimitBusy):
        asyncio.run(call())
    limiter.release("m", held)
    assert limiter.in_flight("m") == 0


def test_a_waiting_call_that_is_cancelled_leaves_no_slot_behind():
    import asyncio

    from gateway.async_slots import aslot

    limiter = LocalLimiter()

    async def holder(release):
        async with aslot(limiter, "m", 1, None, lease=10):
            await release.wait()

    async def waiter():
        async with aslot(limiter, "m", 1, None, lease=10, poll=1, max_poll=1):
            pass

    async def main():
        release = asyncio.Event()
        first = asyncio.create_task(holder(release))
        await asyncio.sleep(0.01)
        second = asyncio.create_task(waiter())
        await asyncio.sleep(0.01)
        second.cancel()
        release.set()
        await first
        with pytest.raises(asyncio.CancelledError):
            await second

    asyncio.run(main())
    assert limiter.in_flight("m") == 0


def test_slots_given_back_elsewhere_go_to_every_waiting_call_in_one_round_trip():
    """Another process held all 8 slots and gives them back at once: the first call in
    line takes them for itself and the 7 behind it in one request to the limiter, instead
    of one slot per poll with the calls behind it (which never ask themselves) waiting for
    more polls. (`max_poll` = `poll`: the first asks every 10 ms, not backing off.)"""
    import asyncio

    from gateway.async_slots import aslot

    limiter = CountingLimiter()
    elsewhere = [limiter.try_acquire("m", 8, lease=10) for _ in range(8)]
    limiter.acquired = limiter.asked = 0
    got = []

    async def call(i):
        async with aslot(limiter, "m", 8, None, lease=10, poll=0.01, max_poll=0.01):
            got.append((i, time.monotonic()))
            await asyncio.sleep(0.05)

    async def main():
        calls = [asyncio.create_task(call(i)) for i in range(8)]
        await asyncio.sleep(0.05)  # all 8 wait
        for token in elsewhere:
            limiter.release("m", token)
        freed = time.monotonic()
        await asyncio.gather(*calls)
        return freed

    freed = asyncio.run(main())
    assert len(got) == 8 and max(t for _, t in got) - freed < 0.1  # all at the first call's next ask
    assert limiter.acquired == 8 and limiter.in_flight("m") == 0
    assert limiter.asked <= 12  # the first call's polls while it waited, then one that took 8


def test_acquiring_many_takes_only_the_free_slots_in_order():
    limiter = LocalLimiter()
    held = limiter.try_acquire("m", 3, lease=10)
    assert len(limiter.try_acquire_many("m", 3, lease=10, count=5)) == 2  # 3 - 1 held
    assert limiter.try_acquire_many("m", 3, lease=10, count=2) == []
    limiter.release("m", held)
    assert len(limiter.try_acquire_many("m", 3, lease=10, count=1)) == 1


def test_a_paced_start_is_waited_for_by_one_thread_and_the_others_go_back():
    limiter = LocalLimiter()
    limiter.paces["m"] = (pacing.Pace(), 0.3)  # starts 0.3 s apart
    with slot(limiter, "m", 10, None, lease=10, wait=5, waiters=1):
        pass  # the first start: at once
    done = []

    def second():
        with slot(limiter, "m", 10, None, lease=10, wait=5, waiters=1):
            done.append(time.monotonic())

    thread = threading.Thread(target=second)
    thread.start()
    while limits._slot_waiters["m"] < 1 and thread.is_alive():
        time.sleep(0.001)
    # The second call waits for its start 0.3 s after the first; a third does not wait
    # behind it: back to the queue, in at least BOUNCE seconds.
    with pytest.raises(LimitBusy) as busy:
        with slot(limiter, "m", 10, None, lease=10, wait=5, waiters=1):
            pass
    assert busy.value.retry_in >= limits.BOUNCE
    thread.join()
    assert len(done) == 1


def test_calls_waiting_for_a_slot_when_the_model_is_paused_do_not_go():
    # Two calls hold the model's 2 slots; three more wait. The first call's answer is a
    # 429 pausing the model for 5 s: the waiting calls, handed the slots, do not go
    # (LimitBusy, about 5 s) and the slots go back to the limiter.
    import asyncio

    from gateway.async_slots import aslot

    limiter, went, busy = CountingLimiter(), [], []

    async def call(i):
        try:
            async with aslot(limiter, "m", 2, None, lease=10, wait=2):
                went.append(i)
                await asyncio.sleep(0.02)  # both slots taken, the other three waiting
                if i == 0:
                    limiter.pauses["m"] = time.time() + 5  # its 429's Retry-After
                await asyncio.sleep(0.03)
        except LimitBusy as exc:
            busy.append(round(exc.retry_in))

    async def main():
        await asyncio.gather(*(call(i) for i in range(5)))

    asyncio.run(main())
    assert went == [0, 1] and busy == [5, 5, 5]
    assert limiter.in_flight("m") == 0


def test_calls_waiting_behind_the_first_sleep_until_woken_and_the_first_asks_less_often_when_asks_find_nothing(
        monkeypatch):
    """Issue 45: while another process holds the model's only slot, five calls of this
    process wait. The four behind the first do not wake to look at the clock (they did
    every `max_poll`), and the first's asks, finding nothing, come further apart (doubled
    up to `max_poll`) instead of every `poll`. When the slot comes back each call still
    gets it in turn."""
    import asyncio

    from gateway.async_slots import aslot

    limiter = CountingLimiter()
    elsewhere = limiter.try_acquire("m", 1, lease=10)
    limiter.asked = 0
    waits, order = [], []
    real_wait = asyncio.wait

    async def counted_wait(futures, timeout=None, **kwargs):
        waits.append(timeout)
        return await real_wait(futures, timeout=timeout, **kwargs)

    monkeypatch.setattr(asyncio, "wait", counted_wait)

    async def call(i):
        async with aslot(limiter, "m", 1, None, lease=10, wait=3, poll=0.01, max_poll=0.08):
            order.append(i)
            await asyncio.sleep(0.005)

    async def main():
        calls = []
        for i in range(5):
            calls.append(asyncio.create_task(call(i)))
            await asyncio.sleep(0)  # in this order
        await asyncio.sleep(0.6)
        asked_while_held = limiter.asked
        limiter.release("m", elsewhere)
        await asyncio.gather(*calls)
        return asked_while_held

    asked_while_held = asyncio.run(main())
    # Every 10 ms (jittered) that was ~60 asks in 0.6 s; doubled up to 80 ms: 10 or so.
    assert 3 <= asked_while_held <= 16
    # The four behind the first waited once each until the slot came (their deadline as the
    # timeout), then once more each as the first: ~10 waits of the first's, not 4 x 6 more.
    behind = [t for t in waits if t is not None and t > 1.0]
    assert len(behind) == 4
    assert len(waits) <= asked_while_held + 4 + 4 + 4
    assert order == [0, 1, 2, 3, 4] and limiter.in_flight("m") == 0
