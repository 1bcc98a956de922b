"""Adaptive concurrency per model (AIMD): how many calls a model gets in flight, found
from what its server answers instead of typed in by the operator.

Start low and, until the limit is first cut, add one call in flight per success (the
limit doubles each round trip: TCP's slow start, RFC 5681 §3.1); from then on add one
after every `limit` calls that succeeded in a row (about one more per round trip, TCP's
congestion avoidance). Without the slow start a run against a server that takes 128
calls climbed from 4 to 38 in its first 1,473 answers and the product stayed at 0.42 of
LiteLLM alone (issue 45, docs/performance.md). Halve on a 429, on a `Retry-After`, on
rate-limit headers saying the provider's budget is spent, and on a timeout (a slow server
gets fewer calls, not more). Headers saying the budget is almost spent (`low_share` or
less left) take it down gently (`ease`): a provider's budget over a sliding minute frees at
the pace it was spent, so the pace that keeps a little of it left is the one to hold. Past the limit of the last overload the limit
grows `probe` times more slowly: the server's wall is where it was last time, most
likely, and each step into it costs a 429. Several such signals within `calm` seconds are one
overload: the calls already in flight when the limit was cut answer from the old limit,
and cutting again for each would take the limit to 1. The model's `max_concurrency` is a
hard ceiling the limit never passes. A success grows the limit only while the calls in
flight fill it (RFC 7661's rule for a congestion window the sender does not use).

No Django here: plain values in, plain values out. `limits.py` keeps the state (in Redis
across workers and hosts, or in the process) and applies `step` to it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

SUCCESS, RATE_LIMITED, TIMEOUT, OTHER = "success", "rate_limited", "timeout", "other"

# Header names as providers send them (OpenAI and OpenAI-compatible servers; Anthropic).
# LiteLLM keeps OpenAI's under their own names in `_hidden_params["additional_headers"]`
# and every raw header of the provider under "llm_provider-<name>".
_REMAINING = ("x-ratelimit-remaining-requests", "anthropic-ratelimit-requests-remaining")
_LIMIT = ("x-ratelimit-limit-requests", "anthropic-ratelimit-requests-limit")


@dataclass(frozen=True)
class Policy:
    start: int = 4  # calls in flight before anything is known of the server
    decrease: float = 0.5  # the limit is multiplied by this on an overload
    calm: float = 2.0  # seconds after a cut in which further overload signals are the same overload
    low_share: float = 0.05  # remaining/limit at or below this (from headers): the limit is eased down
    ease: float = 0.9  # ...multiplied by this (at most once per `calm`)
    probe: int = 4  # successes per step, in multiples of the limit, at and past the last overload
    slow_start: bool = True  # one more call per success until the limit is first cut


@dataclass(frozen=True)
class State:
    limit: int
    successes: int = 0  # in a row since the last change of the limit
    last_decrease: float = float("-inf")  # when the limit was last cut (seconds, any clock)
    paused_until: float = 0.0  # calls wait until then (a Retry-After)
    overload_at: int = 0  # the limit when the last overload came (0: none yet)


@dataclass(frozen=True)
class Event:
    """What one call brought back: `kind` (SUCCESS, RATE_LIMITED, TIMEOUT, OTHER), the
    server's Retry-After in seconds, and its rate-limit headers' remaining and limit."""
    kind: str
    retry_after: float | None = None
    remaining: int | None = None
    budget: int | None = None
    in_flight: int | None = None  # the model's other calls in flight when it answered (None: not known)
    # Calls of the caller's process were waiting for one of the model's slots when this call
    # took its slot or gave it back: the limit held calls back, whatever `in_flight` reads.
    limited: bool = False
    paced: bool = False  # the headers say the budget (or when it resets): its starts are paced (gateway.pacing)


def initial(ceiling: int, policy: Policy = Policy()) -> State:
    return State(limit=clamp(policy.start, ceiling))


def clamp(limit: int, ceiling: int) -> int:
    """Never above the ceiling, never below one call."""
    return max(1, min(int(limit), max(1, int(ceiling))))


def overloaded(event: Event, policy: Policy = Policy()) -> bool:
    """Whether the call says the server has too many of our calls."""
    if event.kind in (RATE_LIMITED, TIMEOUT) or event.retry_after:
        return True
    return event.remaining is not None and event.remaining <= 0


def almost_spent(event: Event, policy: Policy = Policy()) -> bool:
    """Whether the headers say little is left of the provider's budget (not yet none).
    Not when the starts are paced by the headers (`gateway.pacing`): easing the calls
    in flight too would pace twice (the limit fell to 4 where the pace needed 5 in
    flight at 600 rpm)."""
    return not event.paced and event.remaining is not None and bool(event.budget) and event.remaining <= policy.low_share * event.budget


def step(state: State, event: Event, ceiling: int, now: float, policy: Policy = Policy()) -> State:
    """The state after one call's `event`. A ceiling lowered since (the operator edited
    the model) applies at once."""
    limit = clamp(state.limit, ceiling)
    paused_until = state.paused_until
    if event.retry_after:
        paused_until = max(paused_until, now + event.retry_after)
    if overloaded(event, policy):
        if now - state.last_decrease < policy.calm:
            return replace(state, limit=limit, successes=0, paused_until=paused_until)
        return State(limit=clamp(math.floor(limit * policy.decrease), ceiling), successes=0, last_decrease=now,
                     paused_until=paused_until, overload_at=limit)
    if event.kind != SUCCESS:
        return replace(state, limit=limit, paused_until=paused_until)
    if almost_spent(event, policy):
        if now - state.last_decrease < policy.calm:
            return replace(state, limit=limit, successes=0, paused_until=paused_until)
        return replace(state, limit=clamp(math.floor(limit * policy.ease), ceiling), successes=0, last_decrease=now,
                       paused_until=paused_until)
    if event.in_flight is not None and event.in_flight + 1 < limit and not event.limited:
        # Fewer calls in flight than the limit allows and none waiting for a slot: the limit
        # was not what held them back (their starts were paced, or there were no more
        # units), so the success says nothing of a higher one. Counted, the limit climbed
        # unopposed (to 33 over a wall of 16 at 600 rpm, paced) and the next burst met the
        # wall in full. A success whose calls waited for slots counts whatever the calls in
        # flight read (`limited`): read a moment after a rise of the limit, before the
        # waiting calls have asked for the new room (every 10-40 ms), they read low, and a
        # run at C 128 climbed from 52 to 120 over its first two seconds instead of
        # doubling each round trip (issue 45).
        return replace(state, limit=limit, paused_until=paused_until)
    if state.last_decrease == float("-inf") and policy.slow_start:
        needed = 1  # never cut yet: slow start
    else:
        needed = limit * (policy.probe if state.overload_at and limit + 1 >= state.overload_at else 1)
    successes = state.successes + 1
    if successes >= needed and limit < max(1, ceiling):
        return replace(state, limit=limit + 1, successes=0, paused_until=paused_until)
    return replace(state, limit=limit, successes=min(successes, needed), paused_until=paused_until)


def _header(headers, names) -> int | None:
    if not headers or not hasattr(headers, "get"):
        return None
    for name in names:
        for key in (name, f"llm_provider-{name}"):
            value = headers.get(key)
            if value is None:
                continue
            try:
                return max(0, int(float(str(value).strip())))
            except (TypeError, ValueError):
                continue
    return None


def rate_headers(headers) -> tuple[int | None, int | None]:
    """(remaining, limit) of the provider's request budget from its response headers;
    None for what they do not say (or say in a form that cannot be read)."""
    return _header(headers, _REMAINING), _header(headers, _LIMIT)


def event_of(result_headers=None, error_kind: str | None = None, retry_after: float | None = None) -> Event:
    """The event of a call: its error's kind (gateway.llm's: "rate_limit", "timeout",
    ...) or, when it succeeded, its rate-limit headers."""
    if error_kind is None:
        remaining, budget = rate_headers(result_headers)
        return Event(SUCCESS, remaining=remaining, budget=budget)
    kind = {"rate_limit": RATE_LIMITED, "timeout": TIMEOUT}.get(error_kind, OTHER)
    return Event(kind, retry_after=retry_after if kind == RATE_LIMITED or retry_after else None)


def calls_per_minute(calls_before: int, at_before: float, calls_now: int, at_now: float) -> float | None:
    """Calls per minute between two counts; None when no time passed between them."""
    if at_now <= at_before:
        return None
    return round(max(0, calls_now - calls_before) * 60.0 / (at_now - at_before), 1)
