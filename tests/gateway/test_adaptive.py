"""gateway.adaptive: the AIMD controller of a model's calls in flight, without Django."""

from hypothesis import given, settings
from hypothesis import strategies as st

from gateway import adaptive
from gateway.adaptive import RATE_LIMITED, SUCCESS, TIMEOUT, Event, Policy, State, step

OK = Event(SUCCESS)


CUT = -100.0  # a state whose limit was cut long ago: past the slow start


def run(events, ceiling=100, start=None, every=1.0, cut=CUT):
    """The limit after each event, the events `every` seconds apart (from t=0); a `start`
    limit is taken as cut at `cut` (None: never cut, in slow start)."""
    state = (State(limit=start, last_decrease=float("-inf") if cut is None else cut) if start
             else adaptive.initial(ceiling))
    limits = []
    for i, event in enumerate(events):
        state = step(state, event, ceiling, now=i * every)
        limits.append(state.limit)
    return state, limits


def test_it_starts_at_four_or_the_ceiling_if_lower():
    assert adaptive.initial(100).limit == 4
    assert adaptive.initial(2).limit == 2
    assert adaptive.initial(0).limit == 1  # a ceiling of 0 still lets one call through


def test_until_its_first_cut_it_adds_one_call_per_success():
    # Slow start from 4: 5, 6, 7, ... one more per success (4 + 6 = 10 after 6).
    _, limits = run([OK] * 6)
    assert limits == [5, 6, 7, 8, 9, 10]
    # The same with the slow start turned off: 4 successes -> 5, then 5 more -> 6.
    state, limits = adaptive.initial(100), []
    for i in range(9):
        state = step(state, OK, 100, now=i, policy=Policy(slow_start=False))
        limits.append(state.limit)
    assert limits == [4, 4, 4, 5, 5, 5, 5, 5, 6]


def test_after_a_cut_it_adds_one_call_after_a_limit_of_successes_in_a_row():
    # From 4, cut before: 4 successes -> 5; then 5 more -> 6; then 6 more -> 7 (4 + 5 + 6 = 15 calls).
    _, limits = run([OK] * 15, start=4)
    assert limits == [4, 4, 4, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6, 7]


def test_the_slow_start_ends_at_the_first_overload():
    # Slow start 4 -> 8 in 4 successes; a 429 at t=4: floor(8 / 2) = 4; then 4 successes for 5.
    _, limits = run([OK] * 4 + [Event(RATE_LIMITED)] + [OK] * 4)
    assert limits == [5, 6, 7, 8, 4, 4, 4, 4, 5]


def test_it_halves_on_a_429_and_pauses_for_its_retry_after():
    state, limits = run([OK] * 15 + [Event(RATE_LIMITED, retry_after=3.0)])
    # Slow start: 4 + 15 = 19 after 15 successes; floor(19 * 0.5) = 9 at t=15, paused until 15 + 3 = 18.
    assert limits[-1] == 9
    assert state.paused_until == 18.0
    assert state.last_decrease == 15.0 and state.successes == 0


def test_several_429s_within_the_calm_period_are_one_overload():
    # 16 -> 8 at t=0; the 429s at t=0.5 and t=1.5 answer calls sent under 16: no cut
    # (calm 2 s); the one at t=2.5 is a new overload: 8 -> 4.
    state = State(limit=16)
    limits = []
    for now in (0.0, 0.5, 1.5, 2.5):
        state = step(state, Event(RATE_LIMITED), 100, now=now)
        limits.append(state.limit)
    assert limits == [8, 8, 8, 4]


def test_a_timeout_halves_too():
    _, limits = run([Event(TIMEOUT)], start=9)
    assert limits == [4]  # floor(9 / 2)


def test_headers_saying_the_budget_is_almost_spent_ease_and_spent_halve():
    # 5% of 1000 is 50: with 51 left a success counts (3 of the 4 needed at 10); with 50
    # left the count restarts and the limit eases to floor(10 * 0.9) = 9 (at t=3); the
    # next near one at t=4 is within the calm 2 s: held at 9; 9 successes after -> 10.
    near, far = Event(SUCCESS, remaining=50, budget=1000), Event(SUCCESS, remaining=51, budget=1000)
    state, limits = run([far, far, far, near, near] + [far] * 9, start=10)
    assert limits == [10, 10, 10, 9, 9] + [9] * 8 + [10]
    _, limits = run([Event(SUCCESS, remaining=0, budget=1000)], start=10)
    assert limits == [5]
    # Without a known budget only "none left" counts.
    _, limits = run([Event(SUCCESS, remaining=1), Event(SUCCESS, remaining=0)], start=10)
    assert limits == [10, 5]


def test_past_the_last_overload_it_grows_four_times_more_slowly():
    # An overload at 8 -> 4 (overload_at 8). 4 -> 5, 5 -> 6, 6 -> 7 take 4 + 5 + 6 = 15
    # successes; 7 -> 8 would reach the old wall: 4 * 7 = 28 successes.
    state = step(State(limit=8), Event(RATE_LIMITED), 100, now=0)
    assert (state.limit, state.overload_at) == (4, 8)
    limits = []
    for i in range(15 + 28):
        state = step(state, OK, 100, now=10 + i)
        limits.append(state.limit)
    assert limits[14] == 7 and limits[15 + 26] == 7 and limits[15 + 27] == 8


def test_it_never_goes_above_the_ceiling_nor_below_one():
    _, limits = run([OK] * 50, ceiling=6)
    assert max(limits) == 6 and limits[-1] == 6
    _, limits = run([Event(RATE_LIMITED)] * 10, start=3, every=5.0)
    assert limits == [1] * 10  # 3 -> 1 -> stays 1


def test_a_lowered_ceiling_applies_at_once():
    state = step(State(limit=40), OK, ceiling=10, now=0)
    assert state.limit == 10


def test_other_errors_change_nothing_but_a_retry_after_still_pauses():
    state = step(State(limit=8, successes=3), Event(adaptive.OTHER), 100, now=0)
    assert (state.limit, state.successes) == (8, 3)
    # A 503 with Retry-After: the server says it is overloaded.
    state = step(State(limit=8), adaptive.event_of(error_kind="server", retry_after=2.0), 100, now=10)
    assert (state.limit, state.paused_until) == (4, 12.0)


def test_it_reads_openai_and_anthropic_headers_as_litellm_keeps_them():
    assert adaptive.rate_headers({"x-ratelimit-remaining-requests": "12", "x-ratelimit-limit-requests": "500"}) == (
        12, 500)
    assert adaptive.rate_headers({"llm_provider-anthropic-ratelimit-requests-remaining": "3",
                                  "llm_provider-anthropic-ratelimit-requests-limit": "50"}) == (3, 50)
    assert adaptive.rate_headers({"x-ratelimit-remaining-requests": "soon"}) == (None, None)
    assert adaptive.rate_headers(None) == (None, None)


def test_event_of_maps_the_error_kinds():
    assert adaptive.event_of(error_kind="rate_limit", retry_after=1.5) == Event(RATE_LIMITED, retry_after=1.5)
    assert adaptive.event_of(error_kind="timeout") == Event(TIMEOUT)
    assert adaptive.event_of(error_kind="bad_request") == Event(adaptive.OTHER)
    assert adaptive.event_of({"x-ratelimit-remaining-requests": "0"}) == Event(SUCCESS, remaining=0)


def test_calls_per_minute():
    assert adaptive.calls_per_minute(100, 10.0, 150, 40.0) == 100.0  # 50 calls in 30 s
    assert adaptive.calls_per_minute(100, 10.0, 150, 10.0) is None


events = st.builds(Event, kind=st.sampled_from([SUCCESS, RATE_LIMITED, TIMEOUT, adaptive.OTHER]),
                   retry_after=st.none() | st.floats(0, 60), remaining=st.none() | st.integers(0, 1000),
                   budget=st.none() | st.integers(0, 1000))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(events, st.floats(0, 10), st.integers(0, 300)), max_size=80), st.integers(1, 200))
def test_the_limit_stays_between_one_and_the_ceiling(steps, start):
    state, now = State(limit=start), 0.0
    for event, gap, ceiling in steps:
        now += gap
        before = state
        state = step(state, event, ceiling, now, Policy())
        assert 1 <= state.limit <= max(1, ceiling)
        # It grows by one at most, and only on a success that is no overload.
        if state.limit > adaptive.clamp(before.limit, ceiling):
            assert state.limit == adaptive.clamp(before.limit, ceiling) + 1
            assert event.kind == SUCCESS and not adaptive.overloaded(event)


def test_a_success_grows_the_limit_only_while_the_calls_in_flight_fill_it():
    # Limit 4: answers with 1 other call in flight (2 of 4 used: paced, or no more units)
    # never grow it; with 3 others in flight (4 of 4) four in a row take it to 5.
    state, limits = run([Event(SUCCESS, in_flight=1)] * 12, start=4)
    assert limits == [4] * 12 and state.successes == 0
    state, limits = run([Event(SUCCESS, in_flight=3)] * 4, start=4)
    assert limits == [4, 4, 4, 5]
    # Unknown (None): grown as before.
    assert run([OK] * 4, start=4)[1][-1] == 5
    # In slow start too: 3 others + 1 fill 4 -> 5; then 4 of 5 do not fill it.
    assert run([Event(SUCCESS, in_flight=3)] * 3)[1] == [5, 5, 5]
    assert run([Event(SUCCESS, in_flight=1)] * 3)[1] == [4, 4, 4]


def test_a_success_whose_calls_waited_for_slots_grows_the_limit_whatever_the_calls_in_flight_read():
    # Limit 4, 1 other call in flight read (the others' slots given back a moment before
    # the waiting calls asked again): with calls waiting for a slot (`limited`) the limit
    # held them back, so slow start goes on, one more a success: 4 -> 5 -> 6 -> 7.
    assert run([Event(SUCCESS, in_flight=1, limited=True)] * 3)[1] == [5, 6, 7]
    # Past the first cut: one more after `limit` (4) successes in a row, limited or full alike.
    assert run([Event(SUCCESS, in_flight=0, limited=True)] * 4, start=4)[1] == [4, 4, 4, 5]
    # Not limited and not full (paced starts, or no more units): no growth, as before.
    assert run([Event(SUCCESS, in_flight=1, limited=False)] * 3)[1] == [4, 4, 4]


def test_headers_almost_spent_ease_the_limit_only_when_the_starts_are_not_paced():
    # 20 of 600 left (under 5 %): eased 7 -> floor(7 * 0.9) = 6; with the starts paced by
    # the headers (gateway.pacing) the limit stays.
    state = State(limit=7, last_decrease=CUT)
    assert step(state, Event(SUCCESS, remaining=20, budget=600), 100, now=0).limit == 6
    assert step(state, Event(SUCCESS, remaining=20, budget=600, paced=True), 100, now=0).limit == 7
