"""`slot` for calls on an event loop (`aslot`, the batches of `batch_execution`): the same
shared limits as `limits.slot`, waiting without a thread; the calls of a process that wait
for a model queue in order and are handed the slots its calls give back."""

from __future__ import annotations

import asyncio
import collections
import logging
import random
import time
from contextlib import asynccontextmanager

from .limits import LimitBusy, _check_pause, _now, _pace_wait, _spend_a_minute_call


# A slot given back while a call of the same process waits for the same model goes
# straight to that call, without a round trip to Redis: only while the slot is young
# (HANDOVER_SECONDS since Redis granted it), so that its lease (timeout + margin) still
# covers the next call, and so that a busy process lets the slot go back to Redis every
# so often, where the waiting calls of other processes can take it.
HANDOVER_SECONDS = 1.0
_waiting: dict[tuple[int, str], collections.deque] = {}
# Calls of this process holding each model's slot now (their lessons' calls in flight, `holding`).
_holding: collections.Counter = collections.Counter()
# Slots given back by the calls that ended in this turn of a loop, given back to the limiter
# together at its next turn (`_give_back_soon`): per loop, {(limiter, model): [token, ...]}.
_giving_back: dict[int, dict[tuple[object, str], list[str]]] = {}


def holding(model: str) -> int:
    """Calls of this process on an event loop that hold one of the model's slots now,
    those handed a slot and not yet woken included."""
    return _holding[model]


class SlotUse:
    """What `aslot` yields: once the block has ended, `limited` says whether calls of this
    process were waiting for the model's slots when this call took its slot (it waited
    itself) or gave it back (it handed it on): the limit, not the work, held calls back."""

    __slots__ = ("waited", "handed_on")

    def __init__(self):
        self.waited = self.handed_on = False

    @property
    def limited(self) -> bool:
        return self.waited or self.handed_on


class _Waiter:
    """A call waiting for a slot: `wake` is set when it is handed one (`held`) or when it
    became the first in line and should ask the limiter itself."""

    __slots__ = ("wake", "held")

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self.wake = loop.create_future()
        self.held: tuple[str, float] | None = None

    def give(self, held: tuple[str, float]):
        self.held = held
        self.poke()

    def poke(self):
        if not self.wake.done():
            self.wake.set_result(None)


def _waiting_calls(model: str) -> collections.deque:
    return _waiting.setdefault((id(asyncio.get_running_loop()), model), collections.deque())


@asynccontextmanager
async def aslot(limiter, model: str, limit: int, per_minute: int | None, lease: float, wait: float = 5.0,
                poll: float = 0.01, max_poll: float = 0.04):
    """`slot` for a call on an event loop: the same shared limits, waiting without a
    thread. Waiting calls of a process queue in order: each is handed a slot that a call
    of this process gives back. The first in the queue also asks the limiter for slots
    given back by other processes, for itself and every call behind it in one round trip
    (handing them the extra slots), and the call behind it takes its place at once: every
    `poll` seconds (jittered), the wait doubled after each ask that found none, up to
    `max_poll`. The calls behind the first wake only when handed a slot, when they become
    first, or at their deadline (`bench/slot_wait_cpu.py`). LimitBusy after `wait` s."""
    _check_pause(limiter, model)
    paced = _pace_wait(limiter, model, per_minute, wait)
    if paced > 0:
        await asyncio.sleep(paced)
    loop = asyncio.get_running_loop()
    deadline = time.monotonic() + wait
    waiting = _waiting_calls(model)
    me: _Waiter | None = None
    ask = True
    interval = poll  # the first's wait between asks: doubled after an ask that found no slot
    try:
        while True:
            if me is not None and me.held is not None:
                token, granted_at = me.held
                break
            if ask and (not waiting or waiting[0] is me):
                taken = _take(limiter, model, limit, lease, waiting, me)
                interval = poll if taken else min(max_poll, interval * 2)
                if taken:
                    token, granted_at = taken
                    break
            ask = True
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise LimitBusy(poll * 10)
            if me is None:
                me = _Waiter(loop)
                waiting.append(me)
            # Behind the first: no look before it is handed a slot or made first (`poke`).
            await asyncio.wait({me.wake}, timeout=min(interval * (0.5 + random.random()), remaining)
                               if waiting[0] is me else remaining)
            if me.wake.done() and me.held is None:
                # Told it is now first in line: it asks the limiter after `poll`, not at once.
                me.wake = loop.create_future()
                interval, ask = poll, False
    except BaseException:  # out of time, or this call was cancelled: nothing handed to it is kept
        if me is not None and me.held is not None:
            _holding[model] -= 1
            limiter.release(model, me.held[0])
        raise
    finally:
        if me is not None and me in waiting:
            waiting.remove(me)
            if waiting and me.held is None:
                waiting[0].poke()
    try:
        limit_then = _now(limit)
    except BaseException:
        _holding[model] -= 1
        raise
    use = SlotUse()
    use.waited = me is not None
    try:
        # The model paused (a 429's Retry-After) while this call waited for its start or
        # slot: it does not go. Without this look the calls waiting when a per-minute
        # budget ran out all went on and were answered 429: 120 in 20 s at 600 rpm, 9 %
        # of the run's calls (bench/adaptive_limits.py --no-headers).
        _check_pause(limiter, model)
        _spend_a_minute_call(limiter, model, per_minute)
        yield use
    finally:
        _holding[model] -= 1  # counted since the slot became this call's (asked for, or handed over)
        use.handed_on = _let_go(limiter, model, limit, limit_then, waiting, (token, granted_at))


def _take(limiter, model: str, limit, lease: float, waiting: collections.deque, me) -> tuple[str, float] | None:
    """Ask the limiter for a slot for this call (`me`, None when it has not queued) and one
    for every call queued behind it, in one round trip; hand the extra slots to those
    calls (any left over go back) and tell the next in line it is first. The slot taken
    (token, when granted), counted as held; None when the limiter had none."""
    behind = len(waiting) - (me is not None)
    tokens = limiter.try_acquire_many(model, _now(limit), lease, 1 + behind)
    if not tokens:
        return None
    granted_at = time.monotonic()
    if me is not None:
        waiting.remove(me)
    for extra in tokens[1:]:
        if not _hand_over(waiting, (extra, granted_at), model):
            limiter.release(model, extra)
    if waiting:
        waiting[0].poke()
    _holding[model] += 1
    return tokens[0], granted_at


def _let_go(limiter, model: str, limit, limit_then: int, waiting: collections.deque, slot_held) -> bool:
    """The slot of a call that ended: handed to the first call of this process waiting for
    the model, or given back to the limiter (`_give_back_soon`). Not handed over when it is
    older than HANDOVER_SECONDS, when the adaptive limit went down meanwhile (the slot goes
    back, so that the calls in flight come down to the new limit at once), nor while the
    model is paused. Whether calls of this process were waiting for a slot."""
    token, granted_at = slot_held
    if time.monotonic() - granted_at >= HANDOVER_SECONDS or _now(limit) < limit_then or limiter.paused_for(model) > 0:
        _give_back_soon(limiter, model, token)
        return bool(waiting)
    if _hand_over(waiting, slot_held, model):
        return True
    _give_back_soon(limiter, model, token)
    return False


def _give_back_soon(limiter, model: str, token: str):
    """Give the slot back to the limiter at the loop's next turn, with every other slot
    given back in this turn: one round trip for them all (`release_many`), not one per
    call (issue 45: a ZREM per call was 2.8 % of a worker's CPU at concurrency 128, where
    the calls ended by tens in a turn of a busy loop). The slot is held one turn longer,
    a few ms at most; its lease frees it if the round trip fails."""
    loop = asyncio.get_running_loop()
    pending = _giving_back.get(id(loop))
    if pending is None:
        pending = _giving_back[id(loop)] = {}
        loop.call_soon(_give_back, id(loop))
    pending.setdefault((limiter, model), []).append(token)


def _give_back(loop_id: int):
    for (limiter, model), tokens in _giving_back.pop(loop_id, {}).items():
        try:
            limiter.release_many(model, tokens)
        except Exception as exc:  # noqa: BLE001 — the limiter's Redis: the slots come back when their leases end
            logging.getLogger(__name__).warning("%d slots of %s not given back now (their leases will free them): %s",
                                                len(tokens), model, exc)


def _hand_over(waiting: collections.deque, slot_held, model: str) -> bool:
    """Give the slot to the first call still waiting in this process; whether one took it.
    The call it goes to leaves the queue, counted as holding the slot from now (`holding`),
    not from when it wakes: calls that end together in one turn of a busy loop each hand
    their slot on before any receiver has run, and counted at the receiver's waking the
    model's calls in flight read low by as many (issue 45: the adaptive limit's growth,
    which needs the calls in flight to fill the limit, was held back, and a run at C 128
    spent its first two seconds below 100 slots). The next in line is told it is first."""
    while waiting:
        waiter = waiting.popleft()
        if waiter.held is None:
            _holding[model] += 1
            waiter.give(slot_held)
            if waiting:
                waiting[0].poke()
            return True
    return False
