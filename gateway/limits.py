"""Per-model limits that hold across every worker: calls in flight (a semaphore) and
requests per minute (a fixed one-minute window).

With Redis (REDIS_URL) the counters live in Redis, so all workers on all machines
share them: Celery's own `rate_limit` is per worker and cannot do this. The embedded
default runs one worker process, so process-local counters are exact there.
"""

from __future__ import annotations

import collections
import dataclasses
import threading
import time
import uuid
from contextlib import contextmanager
from dataclasses import replace

from . import adaptive, pacing
from .limit_scripts import ACQUIRE, PACE, RATE

class LimitBusy(Exception):
    """No slot came free in time; `retry_in` says when to try again."""

    def __init__(self, retry_in: float):
        super().__init__(f"model busy; retry in {retry_in:.1f}s")
        self.retry_in = retry_in


class RedisLimiter:
    def __init__(self, url: str, prefix: str = "cfpd:limit"):
        import redis

        self.redis = redis.Redis.from_url(url)
        self.prefix = prefix
        self._acquire = self.redis.register_script(ACQUIRE)
        self._rate = self.redis.register_script(RATE)
        self._pace = self.redis.register_script(PACE)
        self._per_minute: dict[str, int | None] = {}
        self._paused: dict[str, tuple[float, float]] = {}
        self._limits: dict[str, tuple[float, int | None]] = {}
        self._spacing: dict[str, tuple[float, float]] = {}  # model -> (when seen, interval between starts)

    def try_acquire(self, model: str, limit: int, lease: float) -> str | None:
        return next(iter(self.try_acquire_many(model, limit, lease, 1)), None)

    def try_acquire_many(self, model: str, limit: int, lease: float, count: int) -> list[str]:
        """Up to `count` slots at once (as many as are free), in one round trip."""
        if count <= 0:
            return []
        prefix = f"{uuid.uuid4().hex}."
        now = time.time()
        key = f"{self.prefix}:{model}:inflight"
        taken, life = self._acquire(keys=[key, f"{key}:life"], args=[now, now + lease, limit, count, prefix])
        life = life.decode() if isinstance(life, bytes) else life
        return [f"{life}/{prefix}{i}" for i in range(1, int(taken) + 1)]

    def release(self, model: str, token: str):
        self.redis.zrem(f"{self.prefix}:{model}:inflight", token)

    def release_many(self, model: str, tokens: list[str]):
        """Several slots given back in one round trip (one ZREM of them all)."""
        if tokens:
            self.redis.zrem(f"{self.prefix}:{model}:inflight", *tokens)

    def try_rate(self, model: str, per_minute: int) -> float:
        """0 when the call may go now, else seconds until the next minute window."""
        window = int(time.time() // 60)
        if self._rate(keys=[f"{self.prefix}:{model}:rpm:{window}"], args=[per_minute]):
            return 0.0
        return 60 - time.time() % 60

    def in_flight(self, model: str) -> int:
        key = f"{self.prefix}:{model}:inflight"
        pipe = self.redis.pipeline(transaction=False)  # one round trip (a batch's lessons ask it each time)
        pipe.zremrangebyscore(key, "-inf", time.time())
        pipe.zcard(key)
        return pipe.execute()[1]

    def refused(self, model: str, pause: float, memory: float) -> float:
        """The model's server refused a connection: pause its calls for `pause` seconds
        (every worker's) and return since how many seconds it has been refusing (a stretch
        of refusals with gaps under `memory` seconds is one outage)."""
        now = time.time()
        pipe = self.redis.pipeline()
        pipe.set(f"{self.prefix}:{model}:down", now, nx=True, ex=max(1, int(memory)))
        pipe.expire(f"{self.prefix}:{model}:down", max(1, int(memory)))
        pipe.get(f"{self.prefix}:{model}:down")
        pipe.set(f"{self.prefix}:{model}:paused", now + pause, px=max(1, int(pause * 1000)))
        pipe.set(f"{self.prefix}:{model}:refused_at", now, ex=max(1, int(memory)))
        since = pipe.execute()[2]
        self._paused[model] = (time.monotonic(), now + pause)
        return now - float(since or now)

    def refusing_since(self, model: str, within: float) -> float | None:
        """Since when (epoch seconds) the model's server has been refusing connections, if
        it refused one within the last `within` seconds (the watcher names it on the run
        page while its units wait); else None."""
        since, last = self.redis.mget(f"{self.prefix}:{model}:down", f"{self.prefix}:{model}:refused_at")
        if since is None or last is None or time.time() - float(last) > within:
            return None
        return float(since)

    def paused_for(self, model: str) -> float:
        """Seconds the model's calls are still paused (0: not paused). Redis is read at
        most once a second per model and process: not a round trip per call."""
        checked, until = self._paused.get(model, (-1.0, 0.0))
        if time.monotonic() - checked >= 1.0:
            value = self.redis.get(f"{self.prefix}:{model}:paused")
            until = float(value) if value else 0.0
            self._paused[model] = (time.monotonic(), until)
        return max(0.0, until - time.time())

    # -- adaptive concurrency (gateway.adaptive): one small hash per model ------------------

    def adaptive_limit(self, model: str, ceiling: int, policy: adaptive.Policy = adaptive.Policy()) -> int:
        """The model's calls in flight now, as its controller set it (never above
        `ceiling`). Redis is read at most every ADAPTIVE_READ seconds per model and process."""
        checked, limit = self._limits.get(model, (-1.0, None))
        if limit is None or time.monotonic() - checked >= ADAPTIVE_READ:
            value = self.redis.hget(f"{self.prefix}:{model}:adaptive", "limit")
            limit = int(value) if value else adaptive.initial(ceiling, policy).limit
            self._limits[model] = (time.monotonic(), limit)
        return adaptive.clamp(limit, ceiling)

    def adaptive_observe(self, model: str, ceiling: int, event: adaptive.Event, run_id: int | None = None,
                         policy: adaptive.Policy = adaptive.Policy()) -> adaptive.State:
        """Apply one call's event to the model's shared state (`adaptive_observe_many`)."""
        return self.adaptive_observe_many(model, ceiling, [event], run_id, policy)

    def adaptive_observe_many(self, model: str, ceiling: int, events: list[adaptive.Event],
                              run_id: int | None = None, policy: adaptive.Policy = adaptive.Policy()) -> adaptive.State:
        """Apply calls' events, in order, to the model's shared state in one step
        (optimistically: the hash is watched, and the step done again if another worker
        changed it meanwhile), count the calls for their run, and pause every worker's
        calls for a Retry-After. A batch's answers are told together (issue 45: one
        round trip of each kind per batch, not per answer); a success whose calls in
        flight are not known is given the model's calls in flight now."""
        key = f"{self.prefix}:{model}:adaptive"
        import redis

        if any(e.kind == adaptive.SUCCESS and e.in_flight is None for e in events):
            now_in_flight = self.redis.zcard(f"{self.prefix}:{model}:inflight")
            events = [replace(e, in_flight=now_in_flight) if e.kind == adaptive.SUCCESS and e.in_flight is None
                      else e for e in events]

        with self.redis.pipeline() as pipe:
            for _ in range(8):
                try:
                    pipe.watch(key)
                    state = new = _state_of(pipe.hgetall(key), ceiling, policy)
                    now = time.time()
                    for event in events:
                        new = adaptive.step(new, event, ceiling, now, policy)
                    pipe.multi()
                    pipe.hset(key, mapping={"limit": new.limit, "successes": new.successes,
                                            "last_decrease": new.last_decrease, "paused_until": new.paused_until,
                                            "overload_at": new.overload_at})
                    pipe.expire(key, 7 * 86400)
                    if new.paused_until > max(now, state.paused_until):
                        pipe.set(f"{self.prefix}:{model}:paused", new.paused_until,
                                 px=max(1, int((new.paused_until - now) * 1000)))
                    pipe.execute()
                    break
                except redis.WatchError:
                    continue
            else:
                new = state  # eight workers changed it in between: these events are dropped
        self._limits[model] = (time.monotonic(), new.limit)
        if new.paused_until > time.time():
            self._paused[model] = (time.monotonic(), new.paused_until)
        if run_id is not None and events:
            counts = f"{self.prefix}:run:{run_id}:calls"
            pipe = self.redis.pipeline(transaction=False)
            pipe.hincrby(counts, f"{model}:calls", len(events))
            for kind in (adaptive.RATE_LIMITED, adaptive.TIMEOUT):
                if n := sum(1 for e in events if e.kind == kind):
                    pipe.hincrby(counts, f"{model}:{kind}", n)
            pipe.expire(counts, 7 * 86400)
            pipe.execute()
        return new

    # -- pacing of call starts by the provider's request budget (gateway.pacing) ---------

    def reserve_start(self, model: str, per_minute: int | None, max_wait: float) -> tuple[bool, float]:
        """Reserve the model's next call start, shared by every worker: (reserved, seconds
        to wait before starting). Not reserved when the wait passes `max_wait`."""
        self._per_minute[model] = per_minute
        reserved, wait, spacing = self._pace(keys=[f"{self.prefix}:{model}:pace",
                                                   f"{self.prefix}:{model}:next_start"], args=[time.time(), max_wait])
        self._spacing[model] = (time.monotonic(), float(spacing))
        return bool(int(reserved)), max(0.0, float(wait))

    def answered_last_minute(self, model: str) -> int:
        second = int(time.time())
        values = self.redis.mget([f"{self.prefix}:{model}:answered:{s}" for s in range(second - 59, second + 1)])
        return sum(int(v) for v in values if v)

    def pace_observe(self, model: str, outcome: pacing.Outcome,
                     policy: pacing.PacePolicy = pacing.PacePolicy()) -> float:
        return self.pace_observe_many(model, [outcome], policy)

    def pace_observe_many(self, model: str, outcomes: list[pacing.Outcome],
                          policy: pacing.PacePolicy = pacing.PacePolicy()) -> float:
        """Apply calls' outcomes, in order, to the model's pacing; the interval between
        starts now. Read, step, write without a transaction: a lost update is a batch's
        lesson, and the next answers bring the same."""
        now = time.time()
        key = f"{self.prefix}:{model}:pace"
        pipe = self.redis.pipeline(transaction=False)
        if answered := sum(1 for o in outcomes if not o.rate_limited):
            answered_key = f"{self.prefix}:{model}:answered:{int(now)}"
            pipe.incrby(answered_key, answered)
            pipe.expire(answered_key, 70)
        pipe.hgetall(key)
        new = _pace_of(pipe.execute()[-1])
        answered = self.answered_last_minute(model) if any(o.rate_limited for o in outcomes) else 0
        for outcome in outcomes:
            new = pacing.step(new, outcome, now, answered, policy)
        spacing = pacing.interval(new, now, self._per_minute.get(model), policy)
        pipe = self.redis.pipeline(transaction=False)
        pipe.hset(key, mapping={**dataclasses.asdict(new), "interval": spacing})
        pipe.expire(key, 7 * 86400)
        pipe.execute()
        self._spacing[model] = (time.monotonic(), spacing)
        return spacing

    def unpaced(self, model: str) -> bool:
        """Whether the model's starts were unpaced when this process last looked (its
        pacing written or read within ADAPTIVE_READ seconds)."""
        checked, spacing = self._spacing.get(model, (-1.0, 1.0))
        return spacing <= 0 and time.monotonic() - checked < ADAPTIVE_READ

    def forget_adaptive(self):
        """Drop every model's adaptive state, pacing, pause and run counts (tests: ids repeat)."""
        for pattern in (f"{self.prefix}:*:adaptive", f"{self.prefix}:*:paused", f"{self.prefix}:run:*",
                        f"{self.prefix}:*:pace", f"{self.prefix}:*:next_start", f"{self.prefix}:*:answered:*"):
            for key in self.redis.scan_iter(match=pattern, count=500):
                self.redis.delete(key)
        self._limits.clear()
        self._paused.clear()
        self._spacing.clear()

    def run_calls(self, run_id: int) -> dict[str, dict[str, int]]:
        """Per model key: the run's calls, and of them rate-limited and timed out."""
        raw = self.redis.hgetall(f"{self.prefix}:run:{run_id}:calls")
        return _calls_of({k.decode(): int(v) for k, v in raw.items()})


class LocalLimiter:
    """The same contract within one process (the embedded default's single worker)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.holders: dict[str, dict[str, float]] = {}
        self.windows: dict[str, tuple[int, int]] = {}
        self.down: dict[str, tuple[float, float]] = {}  # model -> (first, latest refusal)
        self.pauses: dict[str, float] = {}  # model -> paused until
        self.adaptive: dict[str, adaptive.State] = {}
        self.calls: dict[int, dict[str, int]] = {}  # run -> {"<model>:calls" ...: count}
        self.paces: dict[str, tuple[pacing.Pace, float]] = {}  # model -> (pacing, interval now)
        self.next_start: dict[str, float] = {}
        self.answered: dict[str, collections.deque] = {}  # model -> times of the last minute's answers
        self._per_minute: dict[str, int | None] = {}

    def try_acquire(self, model: str, limit: int, lease: float) -> str | None:
        return next(iter(self.try_acquire_many(model, limit, lease, 1)), None)

    def try_acquire_many(self, model: str, limit: int, lease: float, count: int) -> list[str]:
        now = time.time()
        with self.lock:
            holders = {t: e for t, e in self.holders.get(model, {}).items() if e > now}
            self.holders[model] = holders
            tokens = [uuid.uuid4().hex for _ in range(max(0, min(count, limit - len(holders))))]
            for token in tokens:
                holders[token] = now + lease
            return tokens

    def release(self, model: str, token: str):
        with self.lock:
            self.holders.get(model, {}).pop(token, None)

    def release_many(self, model: str, tokens: list[str]):
        for token in tokens:
            self.release(model, token)

    def try_rate(self, model: str, per_minute: int) -> float:
        window = int(time.time() // 60)
        with self.lock:
            current, count = self.windows.get(model, (window, 0))
            if current != window:
                count = 0
            if count >= per_minute:
                return 60 - time.time() % 60
            self.windows[model] = (window, count + 1)
            return 0.0

    def in_flight(self, model: str) -> int:
        now = time.time()
        with self.lock:
            return sum(1 for e in self.holders.get(model, {}).values() if e > now)

    def refused(self, model: str, pause: float, memory: float) -> float:
        now = time.time()
        with self.lock:
            since, last = self.down.get(model, (now, now))
            if now - last > memory:
                since = now
            self.down[model] = (since, now)
            self.pauses[model] = now + pause
            return now - since

    def refusing_since(self, model: str, within: float) -> float | None:
        with self.lock:
            since, last = self.down.get(model, (None, 0.0))
        return since if since is not None and time.time() - last <= within else None

    def paused_for(self, model: str) -> float:
        with self.lock:
            return max(0.0, self.pauses.get(model, 0.0) - time.time())

    def adaptive_limit(self, model: str, ceiling: int, policy: adaptive.Policy = adaptive.Policy()) -> int:
        with self.lock:
            state = self.adaptive.get(model) or adaptive.initial(ceiling, policy)
        return adaptive.clamp(state.limit, ceiling)

    def adaptive_observe(self, model: str, ceiling: int, event: adaptive.Event, run_id: int | None = None,
                         policy: adaptive.Policy = adaptive.Policy()) -> adaptive.State:
        now = time.time()
        if event.kind == adaptive.SUCCESS and event.in_flight is None:
            event = replace(event, in_flight=self.in_flight(model))
        with self.lock:
            state = self.adaptive.get(model) or adaptive.initial(ceiling, policy)
            new = self.adaptive[model] = adaptive.step(state, event, ceiling, now, policy)
            if new.paused_until > now:
                self.pauses[model] = max(self.pauses.get(model, 0.0), new.paused_until)
            if run_id is not None:
                counts = self.calls.setdefault(run_id, {})
                counts[f"{model}:calls"] = counts.get(f"{model}:calls", 0) + 1
                if event.kind in (adaptive.RATE_LIMITED, adaptive.TIMEOUT):
                    counts[f"{model}:{event.kind}"] = counts.get(f"{model}:{event.kind}", 0) + 1
        return new

    def adaptive_observe_many(self, model: str, ceiling: int, events: list[adaptive.Event],
                              run_id: int | None = None, policy: adaptive.Policy = adaptive.Policy()):
        """The events in order, as `RedisLimiter`'s."""
        return [self.adaptive_observe(model, ceiling, event, run_id, policy) for event in events][-1]

    def pace_observe_many(self, model: str, outcomes: list[pacing.Outcome],
                          policy: pacing.PacePolicy = pacing.PacePolicy()) -> float:
        spacing = 0.0
        for outcome in outcomes:
            spacing = self.pace_observe(model, outcome, policy)
        return spacing

    def unpaced(self, model: str) -> bool:
        with self.lock:
            return self.paces.get(model, (None, 0.0))[1] <= 0

    def reserve_start(self, model: str, per_minute: int | None, max_wait: float) -> tuple[bool, float]:
        now = time.time()
        with self.lock:
            self._per_minute[model] = per_minute
            spacing = self.paces.get(model, (None, 0.0))[1]
            if spacing <= 0:
                return True, 0.0
            at = max(now, self.next_start.get(model, 0.0))
            if at - now > max_wait:
                return False, at - now
            self.next_start[model] = at + spacing
            return True, at - now

    def answered_last_minute(self, model: str) -> int:
        now = time.time()
        with self.lock:
            times = self.answered.setdefault(model, collections.deque())
            while times and times[0] <= now - 60:
                times.popleft()
            return len(times)

    def pace_observe(self, model: str, outcome: pacing.Outcome,
                     policy: pacing.PacePolicy = pacing.PacePolicy()) -> float:
        now = time.time()
        if not outcome.rate_limited:
            with self.lock:
                self.answered.setdefault(model, collections.deque()).append(now)
        answered = self.answered_last_minute(model) if outcome.rate_limited else 0
        with self.lock:
            pace = self.paces.get(model, (pacing.Pace(), 0.0))[0]
            new = pacing.step(pace, outcome, now, answered, policy)
            spacing = pacing.interval(new, now, self._per_minute.get(model), policy)
            self.paces[model] = (new, spacing)
        return spacing

    def forget_adaptive(self):
        with self.lock:
            self.paces.clear()
            self.next_start.clear()
            self.answered.clear()
            self.adaptive.clear()
            self.pauses.clear()
            self.calls.clear()

    def run_calls(self, run_id: int) -> dict[str, dict[str, int]]:
        with self.lock:
            return _calls_of(dict(self.calls.get(run_id, {})))


ADAPTIVE_READ = 0.25  # seconds a process trusts the adaptive limit it last read from Redis


def _state_of(raw: dict, ceiling: int, policy: adaptive.Policy) -> adaptive.State:
    """A model's adaptive state from its Redis hash (bytes); the initial state if none."""
    if not raw:
        return adaptive.initial(ceiling, policy)
    fields = {k.decode(): v.decode() for k, v in raw.items()}
    try:
        return adaptive.State(limit=int(fields["limit"]), successes=int(fields.get("successes", 0)),
                              last_decrease=float(fields.get("last_decrease", "-inf")),
                              paused_until=float(fields.get("paused_until", 0.0)),
                              overload_at=int(fields.get("overload_at", 0)))
    except (KeyError, ValueError):
        return adaptive.initial(ceiling, policy)


def _pace_of(raw: dict) -> pacing.Pace:
    """A model's pacing from its Redis hash (bytes); none if missing or unreadable."""
    stored = {k.decode(): v.decode() for k, v in raw.items()}
    # Every field of `Pace` a number but `recent` (its outcomes, "0" and "1"); a field not
    # stored keeps its default.
    try:
        values = {f.name: float(stored[f.name]) for f in dataclasses.fields(pacing.Pace)
                  if f.name in stored and f.name != "recent"}
    except ValueError:
        return pacing.Pace()
    return pacing.Pace(**values, recent="".join(c for c in stored.get("recent", "") if c in "01"))


def _calls_of(flat: dict[str, int]) -> dict[str, dict[str, int]]:
    """{"model-3:calls": 10, "model-3:rate_limited": 2} -> {"model-3": {"calls": 10, ...}}."""
    out: dict[str, dict[str, int]] = {}
    for name, count in flat.items():
        model, _, what = name.rpartition(":")
        out.setdefault(model, {"calls": 0, adaptive.RATE_LIMITED: 0, adaptive.TIMEOUT: 0})[what] = count
    return out


# Threads of this process waiting in `slot` for each model's slot. A thread that waits
# is a worker thread no other model's unit can have: were every unit of a model held back
# by its limits to wait, that model's units would fill the worker pool and another
# model's, free to go, would wait behind them (issue 31, two providers 10x apart). So at
# most `waiters` threads wait per model; a unit that finds them all taken and no slot
# free goes back to the queue at once, its turn `BOUNCE` seconds on.
_slot_waiters: collections.Counter = collections.Counter()
_slot_waiters_lock = threading.Lock()
BOUNCE = 1.0  # seconds (jittered by the caller) before a unit sent back unasked is tried again


@contextmanager
def slot(limiter, model: str, limit: int, per_minute: int | None, lease: float, wait: float = 5.0,
         poll: float = 0.02, waiters: int | None = None):
    """Hold one of `limit` in-flight slots for `model` (and one call of its minute budget);
    `limit` a number or a function giving it (see `_now`).

    Waits up to `wait` seconds for its start (the model's pacing, `_pace_wait`) and a
    slot, then raises LimitBusy so the task can be re-queued instead of holding a worker
    thread. With `waiters`, at most that many threads of this process wait for the
    model at once: one more that cannot start at once raises LimitBusy (in BOUNCE
    seconds, or when its paced start comes if later).
    """
    _check_pause(limiter, model)
    reserved, paced = limiter.reserve_start(model, per_minute, 0.0)
    token = limiter.try_acquire(model, _now(limit), lease) if reserved else None
    if token is None:
        with _slot_waiters_lock:
            may_wait = waiters is None or _slot_waiters[model] < waiters
            if may_wait:
                _slot_waiters[model] += 1
        if not may_wait:
            raise LimitBusy(max(BOUNCE, paced))
        try:
            if not reserved:
                time.sleep(_pace_wait(limiter, model, per_minute, wait))
            deadline = time.monotonic() + wait
            token = limiter.try_acquire(model, _now(limit), lease)
            while token is None:
                if time.monotonic() >= deadline:
                    raise LimitBusy(poll * 10)
                time.sleep(poll)
                token = limiter.try_acquire(model, _now(limit), lease)
        finally:
            with _slot_waiters_lock:
                _slot_waiters[model] -= 1
    try:
        _check_pause(limiter, model)  # paused while it waited (see aslot)
        _spend_a_minute_call(limiter, model, per_minute)
        yield
    finally:
        limiter.release(model, token)


def _now(limit) -> int:
    """`limit` as it is now: a number, or a function giving the adaptive limit, asked
    again at each try (a call waiting for a slot follows the limit as it moves)."""
    return limit() if callable(limit) else limit


def _check_pause(limiter, model: str):
    """LimitBusy while the model's calls are paused (its server refused connections):
    the unit goes back to the queue without an attempt counted."""
    paused = limiter.paused_for(model)
    if paused > 0:
        raise LimitBusy(paused)


def _pace_wait(limiter, model: str, per_minute: int | None, wait: float) -> float:
    """Seconds to wait before the call starts: the model's next start reserved, spaced by
    its pacing (`gateway.pacing`). LimitBusy (back to the queue, no attempt counted)
    when that is further than `wait`.

    While the model's starts are unpaced (no per-minute budget, and the spacing this process
    last read or wrote, within ADAPTIVE_READ seconds, is 0) nothing is reserved: a start
    costs no round trip to Redis, and a process looks again at most ADAPTIVE_READ seconds
    after its last look, so a pace another worker learns reaches it as the adaptive limit
    does. Reserved on every call, the pacing's script was a fifth of the limits' CPU per
    answer at 128 calls in flight (bench/cpu_split.py)."""
    if not per_minute and limiter.unpaced(model):
        return 0.0
    reserved, seconds = limiter.reserve_start(model, per_minute, wait)
    if not reserved:
        raise LimitBusy(seconds)
    return seconds


def _spend_a_minute_call(limiter, model: str, per_minute: int | None):
    """Count the call against the model's per-minute budget; LimitBusy when it is spent."""
    if per_minute:
        retry_in = limiter.try_rate(model, per_minute)
        if retry_in:
            raise LimitBusy(retry_in)


_limiter = None
_limiter_lock = threading.Lock()


def get_limiter(redis_url: str | None):
    global _limiter
    with _limiter_lock:
        if _limiter is None:
            _limiter = RedisLimiter(redis_url) if redis_url else LocalLimiter()
        return _limiter
