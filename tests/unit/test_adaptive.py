"""runs_app.adaptive: the AIMD controller of a model's calls in flight, without Django."""

from hypothesis import given, settings
from hypothesis import strategies as st

from runs_app import adaptive
from runs_app.adaptive import RATE_LIMITED, SUCCESS, TIMEOUT, Event, Policy, State, step

OK = Event(SUCCESS)


def run(events, ceiling=100, start=None, every=1.0):
    """The limit after each event, the events `every` seconds apart (from t=0)."""
    state = State(limit=start) if start else adaptive.initial(ceiling)
    limits = []
    for i, event in enumerate(events):
        state = step(state, event, ceiling, now=i * every)
        limits.append(state.limit)
    return state, limits


def test_it_starts_at_four_or_the_ceiling_if_lower():
    assert adaptive.initial(100).limit == 4
    assert adaptive.initial(2).limit == 2
    assert adaptive.initial(0).limit == 1  # a ceiling of 0 still lets one call through


def test_it_adds_one_call_after_a_limit_of_successes_in_a_row():
    # From 4: 4 successes -> 5; then 5 more -> 6; then 6 more -> 7 (4 + 5 + 6 = 15 calls).
    _, limits = run([OK] * 15)
    assert limits == [4, 4, 4, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6, 7]


def test_it_halves_on_a_429_and_pauses_for_its_retry_after():
    state, limits = run([OK] * 15 + [Event(RATE_LIMITED, retry_after=3.0)])
    # 7 after 15 successes (above); floor(7 * 0.5) = 3 at t=15, paused until 15 + 3 = 18.
    assert limits[-1] == 3
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


# -- pacing by the request budget ----------------------------------------------------------

from runs_app.adaptive import Pace, pace_interval, pace_step  # noqa: E402


def headers(remaining, reset, budget=None):
    return Event(SUCCESS, remaining=remaining, budget=budget, reset=reset)


def test_reset_durations_are_read_as_providers_write_them():
    assert adaptive.parse_reset("1s") == 1.0
    assert adaptive.parse_reset("6m0s") == 360.0
    assert adaptive.parse_reset("20ms") == 0.02
    assert adaptive.parse_reset("1m30.5s") == 90.5
    assert adaptive.parse_reset("0.5") == 0.5
    assert adaptive.parse_reset("1h") == 3600.0
    # Anthropic: an RFC 3339 time; 2026-11-26T03:00:30Z is 30 s after 03:00:00Z (epoch 1795662000).
    assert adaptive.parse_reset("2026-11-26T03:00:30Z", now_epoch=1795662000.0) == 30.0
    assert adaptive.parse_reset("2026-11-26T02:59:00Z", now_epoch=1795662000.0) == 0.0  # past: no wait
    for bad in (None, "", "soon", "-", "2026-11-26T03:00:30"):  # no zone: not guessed
        assert adaptive.parse_reset(bad, now_epoch=1795662000.0) is None


def test_event_of_reads_the_reset_beside_remaining_and_limit():
    event = adaptive.event_of({"x-ratelimit-remaining-requests": "300", "x-ratelimit-limit-requests": "600",
                               "x-ratelimit-reset-requests": "30s"})
    assert (event.remaining, event.budget, event.reset) == (300, 600, 30.0)
    raw = adaptive.event_of({"llm_provider-anthropic-ratelimit-requests-remaining": "9",
                             "llm_provider-anthropic-ratelimit-requests-reset": "2s"})
    assert (raw.remaining, raw.reset) == (9, 2.0)
    assert adaptive.event_of({}).reset is None


def test_headers_spread_the_budget_left_over_the_time_to_reset():
    pace = Pace()
    assert pace_interval(pace, 0.0) == 0.0  # nothing known: unpaced
    pace = pace_step(pace, headers(300, 30.0), now=1.0, started_last_minute=0)
    assert pace_interval(pace, 1.0) == 0.1  # 30 s / 300 calls
    pace = pace_step(pace, headers(10, 0.5), now=2.0, started_last_minute=0)
    assert pace_interval(pace, 2.0) == 0.05  # 0.5 / 10
    pace = pace_step(pace, headers(0, 0.8), now=3.0, started_last_minute=0)
    assert pace_interval(pace, 3.0) == 0.8  # none left: the next start waits the whole reset
    # Headers stale after 60 s (the model went quiet): unpaced again.
    assert pace_interval(pace, 63.0) == 0.8 and pace_interval(pace, 63.1) == 0.0


def test_a_reserve_of_the_limit_is_kept_for_the_calls_in_flight():
    # Limit 600: 5 % = 30 kept. 300 left over 27 s -> 27 / (300 - 30) = 0.1 s.
    pace = pace_step(Pace(), headers(300, 27.0, budget=600), now=0.0, started_last_minute=0)
    assert abs(pace_interval(pace, 0.0) - 0.1) < 1e-12
    # 31 left, 0.4 s to reset: 1 above the reserve -> 0.4 s; 30 left: none above it -> the whole reset.
    assert pace_interval(pace_step(pace, headers(31, 0.4, budget=600), 1.0, 0), 1.0) == 0.4
    assert pace_interval(pace_step(pace, headers(30, 0.7, budget=600), 1.0, 0), 1.0) == 0.7
    # Limit 1,200 (reserve 60): 660 left over 60 s -> 60 / 600 = 0.1 s.
    assert abs(pace_interval(pace_step(pace, headers(660, 60.0, budget=1200), 1.0, 0), 1.0) - 0.1) < 1e-12


def test_a_429_without_headers_teaches_a_rate_probed_upward_slowly():
    pace = pace_step(Pace(), Event(RATE_LIMITED, retry_after=1.0), now=100.0, started_last_minute=200)
    assert pace.learned_rpm == 180.0  # 0.9 x 200 started in the minute before
    assert abs(pace_interval(pace, 100.0) - 60 / 180) < 1e-12  # 0.333 s between starts
    # +5 % a minute: 189 rpm a minute later (0.3175 s), 270 after ten (0.2222 s)...
    assert abs(pace_interval(pace, 160.0) - 60 / 189) < 1e-12
    assert abs(pace_interval(pace, 700.0) - 60 / 270) < 1e-12
    # ...but never past a configured requests_per_minute: 200 -> 0.3 s.
    assert pace_interval(pace, 700.0, per_minute=200) == 0.3
    # Another 429 within 10 s is the same overload; after it, learned again from what started.
    assert pace_step(pace, Event(RATE_LIMITED), now=109.0, started_last_minute=100) == pace
    again = pace_step(pace, Event(RATE_LIMITED), now=111.0, started_last_minute=100)
    assert again.learned_rpm == 90.0 and again.learned_at == 111.0


def test_a_429_is_not_learned_from_too_few_calls_nor_while_headers_pace():
    assert pace_step(Pace(), Event(RATE_LIMITED), now=5.0, started_last_minute=9) == Pace()
    paced = pace_step(Pace(), headers(50, 10.0), now=0.0, started_last_minute=0)
    # With fresh headers a 429 is the in-flight wall (the AIMD limit's business), not the budget.
    assert pace_step(paced, Event(RATE_LIMITED), now=30.0, started_last_minute=500) == paced
    assert pace_interval(paced, 30.0) == 0.2  # 10 s / 50
    # Headers 61 s old: the 429 is learned.
    assert pace_step(paced, Event(RATE_LIMITED), now=61.0, started_last_minute=500).learned_rpm == 450.0


header_events = st.builds(headers, st.integers(0, 10_000), st.floats(0, 3600),
                          st.one_of(st.none(), st.integers(1, 10_000)))
any_events = st.one_of(header_events, st.just(OK), st.just(Event(RATE_LIMITED)), st.just(Event(TIMEOUT)))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(any_events, st.floats(0, 30), st.integers(0, 5000)), max_size=40),
       st.one_of(st.none(), st.integers(1, 10_000)))
def test_pacing_never_outruns_the_headers_budget_nor_a_configured_cap(steps, per_minute):
    pace, now = Pace(), 0.0
    for event, gap, started in steps:
        now += gap
        pace = pace_step(pace, event, now, started)
        interval = pace_interval(pace, now, per_minute)
        assert interval >= 0
        if event.reset is not None:
            # Starts spaced this far apart spend at most what is left before the reset.
            assert interval * max(1, event.remaining) >= event.reset - 1e-9
        if pace.learned_rpm:
            assert pace.learned_rpm <= 0.9 * 5000
            if per_minute:
                assert interval >= 60.0 / per_minute - 1e-9  # the learned rate never passes the cap
