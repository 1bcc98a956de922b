"""gateway.pacing: call starts spaced by the provider's request budget, learned only from
real rate-limit evidence (headers, repeated 429s), without Django."""

import math

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gateway import pacing
from gateway.pacing import Outcome, Pace, PacePolicy, interval, step

OK = Outcome(False)
LIMITED = Outcome(True)
POLICY = PacePolicy()
# A model called without a break for the minute before t = 0 (enough history to learn from).
WARM = Pace(since=-60.0, seen_at=-0.1)


def feed(outcomes, answered_last_minute=300, every=0.1, pace=WARM, start=0.0):
    """The pacing after the outcomes, `every` seconds apart from `start`."""
    for i, outcome in enumerate(outcomes):
        pace = step(pace, outcome, start + i * every, answered_last_minute)
    return pace


@pytest.mark.parametrize("value, seconds", [
    ("1s", 1.0), ("6m0s", 360.0), ("20ms", 0.02), ("1m30.5s", 90.5), ("0.5", 0.5), ("2h", 7200.0),
    ("", None), ("soon", None), ("-3", 0.0), ("nan", None)])
def test_reset_durations_are_read_as_providers_write_them(value, seconds):
    assert pacing.parse_reset(value) == seconds


def test_an_anthropic_reset_time_is_seconds_from_now():
    # 2026-01-01T00:01:00Z is 60 s after 2026-01-01T00:00:00Z (epoch 1767225600).
    assert pacing.parse_reset("2026-01-01T00:01:00Z", now_epoch=1767225600.0) == 60.0
    assert pacing.reset_header({"llm_provider-anthropic-ratelimit-requests-reset": "2026-01-01T00:00:30Z"},
                               1767225600.0) == 30.0
    assert pacing.parse_reset("2026-01-01T00:01:00", now_epoch=1767225600.0) is None  # no zone: unreadable


def test_headers_spread_the_minutes_budget_and_what_is_left_within_the_reserve():
    # A budget of 600 a minute, reserve ceil(0.05 * 600) = 30: one start every 60 / 570 s,
    # whatever is left above the reserve (a sliding minute's reset is the oldest call leaving).
    pace = step(Pace(), Outcome(False, remaining=400, budget=600, reset=0.2), now=5.0, answered_last_minute=0)
    assert math.isclose(interval(pace, now=5.0), 60 / 570)
    # Within the reserve: what is left over the time to reset, if slower: 20 left, 30 s -> 1.5 s.
    pace = step(pace, Outcome(False, remaining=20, budget=600, reset=30.0), now=6.0, answered_last_minute=0)
    assert interval(pace, now=6.0) == 1.5
    # No budget said: what is left over the reset (100 over 14 s: 0.14 s).
    pace = step(Pace(), Outcome(False, remaining=100, reset=14.0), now=1.0, answered_last_minute=0)
    assert math.isclose(interval(pace, now=1.0), 0.14)
    # Headers older than `headers_fresh` (60 s) no longer pace.
    assert interval(pace, now=61.5) == 0.0


def test_a_single_429_among_answers_never_changes_the_pace():
    # 19 answers then a 429 (1 of the last 20: under half): nothing learned.
    pace = feed([OK] * 19 + [LIMITED])
    assert pace.learned_rpm == 0 and interval(pace, now=2.0) == 0.0


def test_random_429s_at_a_fault_rate_never_pace():
    # One 429 in five (20 %, four times the injected-faults run's 429s): at most 4 of
    # any 20 calls, never 10.
    pace = feed(([OK] * 4 + [LIMITED]) * 200)
    assert pace.learned_rpm == 0


def test_repeated_429s_pace_to_the_answers_of_the_minute_before():
    # 10 answers then 10 429s: half of the last 20 -> learned at the 20th call (t = 1.9 s),
    # from the 480 answers of the minute before less 5 %: 456 a minute, 60 / 456 s apart.
    pace = feed([OK] * 10 + [LIMITED] * 10, answered_last_minute=480)
    assert pace.learned_rpm == 456 and math.isclose(pace.learned_at, 1.9)
    assert math.isclose(interval(pace, now=1.9), 60 / 456)
    # A configured requests_per_minute under it is the pace.
    assert math.isclose(interval(pace, now=1.9, per_minute=300), 0.2)


def test_once_paced_a_few_429s_say_the_probe_passed_the_budget():
    # Learned 570 at t = 0; at t = 60 probed up to 627. 3 of the next 20 calls 429 (15 %):
    # learned again from the 600 answers of the minute: 570. Unpaced, 3 of 20 teach nothing.
    pace = Pace(learned_rpm=570.0, learned_at=0.0, since=-60.0, seen_at=59.9)
    again = feed([OK] * 17 + [LIMITED] * 3, answered_last_minute=600, pace=pace, start=60.0)
    assert again.learned_rpm == 570 and math.isclose(again.learned_at, 61.9)
    assert feed([OK] * 17 + [LIMITED] * 3, answered_last_minute=600).learned_rpm == 0


def test_a_learned_rate_is_probed_up_and_then_forgotten():
    pace = Pace(learned_rpm=600.0, learned_at=0.0)
    # 10 % a minute: 660 after 60 s, 900 after 300 s; at 600 s it would be 2x: forgotten.
    assert math.isclose(pacing.learned_now(pace, 60.0), 660.0)
    assert math.isclose(pacing.learned_now(pace, 300.0), 900.0)
    assert pacing.learned_now(pace, 600.0) == 0.0 and interval(pace, 600.0) == 0.0


def test_too_few_answers_still_leave_a_floor():
    # Every call a 429 and no answer in the last minute: paced at min_rpm (6), one start every 10 s.
    pace = feed([LIMITED] * 20, answered_last_minute=0)
    assert pace.learned_rpm == POLICY.min_rpm and math.isclose(interval(pace, now=pace.learned_at), 10.0)


def test_more_429s_within_the_calm_are_the_same_overload():
    pace = feed([LIMITED] * 20, answered_last_minute=300)  # learned at t = 1.9 s: 300 x 0.95 = 285
    again = feed([LIMITED] * 20, answered_last_minute=100, pace=pace, start=2.0)  # t 2.0-3.9: within 10 s
    assert again.learned_rpm == 285 and again.learned_at == pace.learned_at
    # After the calm the 429s still in the window (those of t 2.0-3.9) and the next one
    # learn again at t = 20, from that minute's 100 answers: 95.
    later = feed([LIMITED], answered_last_minute=100, pace=again, start=20.0)
    assert later.learned_at == 20.0 and later.learned_rpm == 95


def test_a_wall_met_in_the_first_seconds_teaches_no_rate():
    # A run's first call at t = 0; its slow start meets a wall of 16 in flight at t = 5 and
    # every call 429s from 5.0 to 6.9 s. The minute before holds 5 s of answers (100, at 20 a
    # second): learnt, 100 x 0.95 = 95 a minute would hold a 1,200-a-minute provider at 95.
    pace = feed([OK] * 50, every=0.1, pace=Pace())  # t 0.0-4.9
    pace = feed([LIMITED] * 20, answered_last_minute=100, pace=pace, start=5.0)
    assert pace.learned_rpm == 0 and interval(pace, now=7.0) == 0.0
    # Still dense at t = 50.0-51.9 (50 s of calls, `learn_history`): learnt from the 1,000
    # answers of those 50 s, less 5 %: 950.
    later = feed([LIMITED] * 20, answered_last_minute=1000, pace=pace, start=50.0)
    assert later.learned_rpm == 950 and math.isclose(later.learned_at, 50.0)


def test_a_pause_of_a_minute_begins_the_history_anew():
    # Called until t = 0 for a minute, then nothing until t = 61 (> `gap`, 60 s): the new
    # stretch is 2 s old when its 429s come, so nothing is learnt; a 59 s pause keeps the
    # old stretch, and the same 429s teach 300 x 0.95 = 285.
    after_pause = feed([LIMITED] * 20, pace=WARM, start=61.0)
    assert after_pause.learned_rpm == 0 and after_pause.since == 61.0
    after_short_pause = feed([LIMITED] * 20, pace=WARM, start=59.0)
    assert after_short_pause.learned_rpm == 285 and after_short_pause.since == -60.0


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.floats(0.0, 5.0)), max_size=200), st.integers(0, 5000))
def test_nothing_is_learned_from_less_than_learn_history_of_calls(calls, answered):
    # Whatever the outcomes and their spacing, no rate is learned at a call less than
    # `learn_history` seconds after its stretch began.
    pace, now = Pace(), 0.0
    for limited, wait in calls:
        now += wait
        before = pace.learned_at
        pace = step(pace, Outcome(limited), now, answered)
        if pace.learned_at != before:
            assert now - pace.since >= POLICY.learn_history


outcomes = st.lists(st.tuples(st.booleans(), st.integers(0, 2000)), min_size=1, max_size=120)


@settings(max_examples=200, deadline=None)
@given(outcomes)
def test_the_pace_is_never_slower_than_the_answers_of_the_minute_before_less_the_reserve(calls):
    # Whatever the 429s, a learned rate is at least 0.95 of the answers the provider gave
    # in the minute before it was learned (and at least min_rpm).
    pace = WARM
    for i, (limited, answered) in enumerate(calls):
        before = pace.learned_at
        pace = step(pace, Outcome(limited), float(i), answered)
        floor = max(answered * (1 - POLICY.reserve), POLICY.min_rpm)
        if pace.learned_at != before:
            assert pace.learned_rpm >= floor
            assert interval(pace, float(i)) <= 60.0 / floor * (1 + 1e-9)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.booleans(), max_size=200))
@example(limited=[c == "1" for c in "00000000011111111110"])
def test_no_pace_is_learned_without_half_of_a_window_of_429s(limited):
    pace = WARM
    for i, is_429 in enumerate(limited):
        pace = step(pace, Outcome(is_429), float(i), 100)
    windows = [limited[max(0, j - POLICY.window + 1):j + 1] for j in range(len(limited))]
    # A rate is learned at a 429 (`step` looks at the window when one arrives): a window first
    # full and dense at a success ("00000000011111111110", found by hypothesis) teaches nothing
    # until the next 429.
    dense = any(len(w) == POLICY.window and w[-1] and sum(w) >= POLICY.dense_share * POLICY.window for w in windows)
    assert (pace.learned_rpm > 0) == dense
