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
