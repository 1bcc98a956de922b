"""A batch's plain answers told to the adaptive limit and pacing at once (issue 45): the
same state as telling them one by one, in a few round trips per batch."""

import dataclasses
import os
import uuid

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gateway import adaptive, lessons, pacing
from gateway.limits import LocalLimiter, RedisLimiter
from gateway.llm import LLMResult

PLAIN = LLMResult(text="A", resolved_model="fake")


def test_four_plain_answers_at_the_limit_raise_it_by_one_and_count_four_calls():
    limiter = LocalLimiter()
    # Start 4, in slow start (one more per success that fills the limit): the first, with
    # 3 other calls in flight, fills it (3 + 1 = 4): 4 -> 5; the next three (3 + 1 < 5) do not.
    lessons.learn_successes(limiter, "m", 50, here=[3, 3, 3, 3], here_now=0, run_id=7)
    assert limiter.adaptive_limit("m", 50) == 5
    assert limiter.run_calls(7)["m"]["calls"] == 4


def test_plain_answers_that_do_not_fill_the_limit_leave_it_as_it_was():
    limiter = LocalLimiter()
    # 1 call in flight beside each: 1 + 1 < 4, the limit was not what held them back.
    lessons.learn_successes(limiter, "m", 50, here=[1, 1, 1, 1, 1], here_now=0)
    assert limiter.adaptive_limit("m", 50) == 4


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(0, 12), max_size=40), st.integers(1, 60))
def test_telling_a_batch_at_once_is_telling_its_answers_in_turn(here, ceiling):
    folded, in_turn = LocalLimiter(), LocalLimiter()
    lessons.learn_successes(folded, "m", ceiling, here, here_now=0, run_id=1)
    for n in here:
        in_turn.adaptive_observe("m", ceiling, adaptive.Event(adaptive.SUCCESS, in_flight=n), run_id=1)
        in_turn.pace_observe("m", pacing.Outcome(False))
    assert folded.adaptive.get("m") == in_turn.adaptive.get("m")
    assert folded.run_calls(1) == in_turn.run_calls(1)
    # The same pacing, but for the clock readings of when its calls came (microseconds apart).
    assert unclocked(folded.paces.get("m")) == unclocked(in_turn.paces.get("m"))


def unclocked(paced):
    if paced is None:
        return None
    pace, spacing = paced
    return dataclasses.replace(pace, since=0.0, seen_at=0.0), spacing


def test_only_an_answer_without_rate_headers_of_an_unpaced_model_waits_for_its_batch():
    limiter = LocalLimiter()
    assert lessons.plain_success(limiter, "m", PLAIN, None)
    headed = LLMResult(text="A", resolved_model="fake", rate_headers={"x-ratelimit-remaining-requests": "9"})
    assert not lessons.plain_success(limiter, "m", headed, None)
    assert not lessons.plain_success(limiter, "m", None, None)
    limiter.paces["m"] = (pacing.Pace(), 0.5)  # paced: every lesson at once
    assert not lessons.plain_success(limiter, "m", PLAIN, None)


@pytest.mark.services
@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs REDIS_URL (the PostgreSQL/Redis pass)")
def test_redis_folds_a_batch_as_it_tells_one_answer_at_a_time():
    prefix = f"cfpd-test:{uuid.uuid4().hex[:8]}"
    folded, in_turn = RedisLimiter(os.environ["REDIS_URL"], prefix), RedisLimiter(os.environ["REDIS_URL"],
                                                                                   prefix + "b")
    lessons.learn_successes(folded, "m", 50, here=[4] * 9, here_now=0, run_id=3)
    for _ in range(9):
        in_turn.adaptive_observe("m", 50, adaptive.Event(adaptive.SUCCESS, in_flight=4), run_id=3)
    # Slow start: 4 other calls in flight fill a limit of 4 and of 5 (4 + 1 >= 5): 4 -> 5 -> 6;
    # the seven after do not fill 6 (4 + 1 < 6).
    assert folded.adaptive_limit("m", 50) == in_turn.adaptive_limit("m", 50) == 6
    assert folded.run_calls(3)["m"]["calls"] == 9
    assert folded.unpaced("m")
