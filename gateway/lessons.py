"""What a call teaches its model's limits: the adaptive limit's event (`adaptive`) and the
pacing's outcome (`pacing`), read from an answer's rate-limit headers or a failure's kind,
given to the shared limiter. No Django."""

from __future__ import annotations

import time
from dataclasses import replace

from . import adaptive, pacing
from .llm import LLMError, LLMResult


def learn(limiter, key: str, ceiling: int, result: LLMResult | None, error: LLMError | None,
          run_id: int | None = None):
    """Give the call's outcome (an answer with its rate-limit headers, a 429, a timeout) to
    the model's controller and pacing; nothing without an answer or an error. The
    limiter's errors (its Redis) are the caller's to handle."""
    if result is not None:
        event = adaptive.event_of(result.rate_headers)
        paced = event.budget is not None or pacing.reset_header(result.rate_headers) is not None
        event = replace(event, paced=paced)
    elif error is not None:
        event = adaptive.event_of(error_kind=error.kind, retry_after=error.retry_after)
    else:
        return
    limiter.adaptive_observe(key, ceiling, event, run_id=run_id)
    limiter.pace_observe(key, pace_outcome(result, error))


def pace_outcome(result: LLMResult | None, error: LLMError | None) -> pacing.Outcome:
    """The call as its model's pacing sees it: a 429, or an answer and its rate-limit headers."""
    if result is None:
        return pacing.Outcome(rate_limited=error is not None and error.kind == "rate_limit")
    headers = result.rate_headers
    remaining, budget = adaptive.rate_headers(headers)
    return pacing.Outcome(False, remaining=remaining, budget=budget, reset=pacing.reset_header(headers, time.time()))


def plain_success(limiter, key: str, result: LLMResult | None, error: LLMError | None) -> bool:
    """An answer that says nothing of the provider's limits (no rate-limit header) while
    the model's starts are not paced: its lesson may wait for its batch's
    (`learn_successes`). Anything else (a 429, a timeout, headers) is learnt at once."""
    if result is None or error is not None or not limiter.unpaced(key):
        return False
    remaining, budget = adaptive.rate_headers(result.rate_headers)
    return remaining is None and budget is None and pacing.reset_header(result.rate_headers) is None


def learn_successes(limiter, key: str, ceiling: int, here: list[int], here_now: int, run_id: int | None = None,
                    limited: list[bool] | None = None):
    """Plain successes of one batch (`plain_success`) told to the model's controller and
    pacing at once: a few round trips per batch, not per answer. `here`: for each, the
    calls of this process that held the model's slots when it answered (`async_slots.
    holding`); `here_now`: as many now. Each success's calls in flight are its `here`
    and the calls of other processes in flight now (the model's, less `here_now`).
    `limited`: for each, whether calls of this process waited for a slot around it
    (`async_slots.SlotUse.limited`; `adaptive.Event.limited`)."""
    if not here:
        return
    others = max(0, limiter.in_flight(key) - here_now)
    events = [adaptive.Event(adaptive.SUCCESS, in_flight=n + others, limited=bool(limited and limited[i]))
              for i, n in enumerate(here)]
    limiter.adaptive_observe_many(key, ceiling, events, run_id=run_id)
    limiter.pace_observe_many(key, [pacing.Outcome(False)] * len(here))
