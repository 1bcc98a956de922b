"""Pacing a model's call starts by its provider's request budget (issue 31). No Django.

A provider's per-minute budget is not a wall in flight: 16 calls in flight at 0.5 s each
ask 1,920 a minute, and a budget of 600 is spent in 19 s; each sliding minute then echoes
that burst as 429s (15.7 % of the calls at 600 rpm with concurrency alone). So the
*starts* of a model's calls are spaced at least `interval` seconds apart, learned only
from real evidence of the budget:

* the provider's rate-limit headers on its answers (its budget, remaining requests and
  the time to their reset: `x-ratelimit-*-requests`, `anthropic-ratelimit-requests-*`):
  the minute's budget spread over the minute, a small reserve kept for the calls in
  flight (`header_spacing`);
* 429s that come *repeatedly*: at least `dense_share` of the model's last `window`
  calls answered 429. A spent budget answers nearly every call 429; a server's random
  429 (a fault, a hiccup: tests/runs_app/test_worker_runs.py injects 5 %) does not.
  The rate learned is the answers the provider gave in the minute before (those it
  demonstrably admits) less the same 5 % reserve. Probed up `probe` a minute; once
  learned, a lower share of 429s (`paced_share`) says the probe passed the budget and
  learns again; forgotten once grown to twice the rate learned with no new evidence.
  Nothing is learned until the model's calls have gone on for `learn_history` seconds
  (a pause of `gap` begins them anew): "the minute before" of a run 5 s old holds 5 s of
  answers, and a wall met that early (the adaptive limit's slow start overshooting 16 in
  flight) once taught 72 answers a minute against a budget of 1,200. Until then dense
  429s are the adaptive limit's (it halves) and Retry-After's (the model pauses).

A single 429 never changes the pace (the adaptive limit halves the calls in flight for
it, `adaptive.step`; its Retry-After pauses the model).

Earlier version (commit f931fe1, taken back in 9777d41): a rate learned from *any* 429
(0.9 of the calls started in the minute before) held the injected-faults run past its
bound; here random 429s teach nothing, and what is learned is never under the answers.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from datetime import datetime

_RESET = ("x-ratelimit-reset-requests", "anthropic-ratelimit-requests-reset")
_DURATION = re.compile(r"(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m(?!s))?(?:(\d+(?:\.\d+)?)s)?(?:(\d+(?:\.\d+)?)ms)?")


@dataclass(frozen=True)
class PacePolicy:
    window: int = 20  # the model's last calls looked at for repeated 429s
    dense_share: float = 0.5  # ...at least this share of them 429: the budget is spent
    paced_share: float = 0.15  # ...once a rate is learned, this share: the probe went past the budget
    learn_calm: float = 10.0  # seconds after learning in which more 429s are the same overload
    probe: float = 0.1  # a learned rate grows by this share a minute without new evidence
    forget_after: float = 2.0  # ...and is dropped once grown to this multiple of itself
    min_rpm: float = 6.0  # never paced slower than this (one start every 10 s)
    headers_fresh: float = 60.0  # seconds the last headers count as known
    reserve: float = 0.05  # share of the budget (the headers', the answers learned) kept unspent
    learn_history: float = 50.0  # seconds of the model's calls before a rate is learned from them
    gap: float = 60.0  # calls this far apart begin a new stretch (its history from zero)


@dataclass(frozen=True)
class Pace:
    header_interval: float = 0.0  # seconds between starts from the last headers (0: none)
    headers_at: float = float("-inf")  # when headers were last seen
    learned_rpm: float = 0.0  # calls per minute learned from repeated 429s (0: none)
    learned_at: float = float("-inf")  # when (the probe counts from then)
    recent: str = ""  # the last `window` calls' outcomes, oldest first: "1" a 429, "0" not
    since: float = float("-inf")  # when the model's present stretch of calls began
    seen_at: float = float("-inf")  # when its last call's outcome came


@dataclass(frozen=True)
class Outcome:
    """One call as pacing sees it: answered 429 or not, and its answer's headers
    (`remaining` requests of the budget, `budget` the limit, `reset` seconds to it)."""
    rate_limited: bool
    remaining: int | None = None
    budget: int | None = None
    reset: float | None = None


def parse_reset(value, now_epoch: float | None = None) -> float | None:
    """Seconds until the budget resets: OpenAI's durations ("1s", "6m0s", "20ms",
    "1m30.5s", "0.5"), or Anthropic's RFC 3339 time (needs `now_epoch`). None when
    unreadable; never negative."""
    if value is None:
        return None
    text = str(value).strip().lower()
    if not text:
        return None
    try:
        seconds = float(text)
        return max(0.0, seconds) if math.isfinite(seconds) else None
    except ValueError:
        pass
    parts = _DURATION.fullmatch(text)
    if parts and any(parts.groups()):
        h, m, s, ms = (float(g) if g else 0.0 for g in parts.groups())
        return h * 3600 + m * 60 + s + ms / 1000
    if now_epoch is not None:
        try:
            when = datetime.fromisoformat(str(value).strip().replace("Z", "+00:00"))
        except ValueError:
            return None
        if when.tzinfo is None:
            return None
        return max(0.0, when.timestamp() - now_epoch)
    return None


def reset_header(headers, now_epoch: float | None = None) -> float | None:
    """Seconds to the reset of the request budget from the response headers, or None."""
    if not headers or not hasattr(headers, "get"):
        return None
    for name in _RESET:
        for key in (name, f"llm_provider-{name}"):
            seconds = parse_reset(headers.get(key), now_epoch)
            if seconds is not None:
                return seconds
    return None


def header_spacing(outcome: Outcome, policy: PacePolicy = PacePolicy()) -> float:
    """Seconds between starts the headers ask for. The budget (OpenAI's and Anthropic's
    request limits are per minute) spread over the minute, less a `reserve` for the
    calls in flight (600 a minute: one start every 60 / 570 s); and when what is left is
    within the reserve (or the budget is not said), what is left spread over the time to
    its reset (a day's budget nearly spent: far apart). Spreading what was left over the
    reset alone was tried first: a sliding minute's "reset" (the oldest call leaving it)
    is a fraction of a second, the pace none, and 3.6 % of calls met the budget's 429."""
    reserve = math.ceil(policy.reserve * outcome.budget) if outcome.budget else 0
    spacing = 60.0 / (outcome.budget - reserve) if outcome.budget and outcome.budget > reserve else 0.0
    if outcome.remaining is not None and outcome.reset is not None and outcome.remaining - reserve < 1:
        spacing = max(spacing, outcome.reset / max(1, outcome.remaining))
    elif outcome.remaining is not None and outcome.reset is not None and not outcome.budget:
        spacing = outcome.reset / outcome.remaining
    return spacing


def repeated_429s(recent: str, paced: bool = False, policy: PacePolicy = PacePolicy()) -> bool:
    """Whether the last calls say the budget is spent: a full window with at least
    `dense_share` of it 429s, or `paced_share` while a learned rate paces the starts (the
    probe, past the budget, meets it on a few calls only; random 429s can pass that share,
    but only a budget spent once teaches the first rate)."""
    share = policy.paced_share if paced else policy.dense_share
    return len(recent) >= policy.window and recent.count("1") >= share * policy.window


def step(pace: Pace, outcome: Outcome, now: float, answered_last_minute: int,
         policy: PacePolicy = PacePolicy()) -> Pace:
    """The pacing after one call's `outcome` at `now`, the provider having answered
    `answered_last_minute` of the model's calls in the 60 s before it (a rate is learned
    from them only once the model's calls have gone on `learn_history` seconds)."""
    recent = (pace.recent + ("1" if outcome.rate_limited else "0"))[-policy.window:]
    since = now if now - pace.seen_at > policy.gap else pace.since
    pace = replace(pace, recent=recent, since=since, seen_at=now)
    if outcome.budget or (outcome.remaining is not None and outcome.reset is not None):
        return replace(pace, header_interval=header_spacing(outcome, policy), headers_at=now)
    paced = learned_now(pace, now, policy) > 0
    if (outcome.rate_limited and repeated_429s(recent, paced, policy) and now - pace.learned_at >= policy.learn_calm
            and now - since >= policy.learn_history):
        # The answers of the minute before, less the reserve: the provider admitted
        # those; paced at all of them, every call at a sliding minute's edge meets it.
        learned = max(answered_last_minute * (1 - policy.reserve), policy.min_rpm)
        return replace(pace, learned_rpm=learned, learned_at=now, recent="")
    return pace


def learned_now(pace: Pace, now: float, policy: PacePolicy = PacePolicy()) -> float:
    """The learned calls per minute now, probed up since it was learned (0: none, or
    grown past `forget_after` times itself: forgotten)."""
    if pace.learned_rpm <= 0:
        return 0.0
    grown = 1 + policy.probe * max(0.0, now - pace.learned_at) / 60.0
    return 0.0 if grown >= policy.forget_after else pace.learned_rpm * grown


def interval(pace: Pace, now: float, per_minute: int | None = None, policy: PacePolicy = PacePolicy()) -> float:
    """Seconds at least between two starts of the model's calls now (0: unpaced): the
    headers' spacing while fresh, or the learned rate (never faster than a configured
    `per_minute` once a rate is learned)."""
    spacing = pace.header_interval if now - pace.headers_at <= policy.headers_fresh else 0.0
    rpm = learned_now(pace, now, policy)
    if rpm > 0:
        if per_minute:
            rpm = min(rpm, per_minute)
        spacing = max(spacing, 60.0 / rpm)
    return spacing
