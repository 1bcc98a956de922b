"""The pure launch checks and plan: every limit names its field; the plan's arithmetic by hand."""

from decimal import Decimal

import pytest

from runs_app.launch_plan import (ASSUMED_LATENCY_SECONDS, MAX_SEED, LaunchInvalid, Limits, ModelSpec,
                                  budget_reached, check_settings, check_units, plan_model, plan_run, prompt_tokens)

LIMITS = Limits(max_repeats=50, max_units=1000, max_prompt_chars=100)


def errors_of(**data):
    with pytest.raises(LaunchInvalid) as caught:
        check_settings({"repeats": 1, **data}, LIMITS)
    return caught.value.errors


def test_good_settings_are_read_from_strings_and_numbers_alike():
    settings = check_settings({"repeats": "3", "sample": 10, "seed": "42", "system_prompt": "Be brief.",
                               "choice_counts": ["2", 3, 3], "permute_options": True, "budget_usd": "12.5",
                               "budget_units": "100"}, LIMITS)
    assert (settings.repeats, settings.sample, settings.seed, settings.choice_counts) == (3, 10, 42, [2, 3])
    assert settings.budget_usd == Decimal("12.5") and settings.budget_units == 100 and settings.permute_options


def test_empty_values_take_their_defaults():
    settings = check_settings({"repeats": "", "sample": "", "seed": None}, LIMITS)
    assert (settings.repeats, settings.sample, settings.seed, settings.budget_usd) == (5, None, 0, None)


def test_it_refuses_33000_repeats_naming_the_limit():
    assert errors_of(repeats=33000) == {"repeats": ["must be from 1 to 50; got 33000"]}


@pytest.mark.parametrize("value", [2**64, "9" * 25, str(2**70)])
def test_it_refuses_integers_beyond_64_bits_without_overflowing(value):
    assert "must be from 0 to 2147483647" in errors_of(seed=value)["seed"][0]


def test_it_refuses_a_number_too_long_to_parse():
    # Python refuses int() of more than 4,300 digits with a ValueError; this never gets there.
    problem = errors_of(sample="9" * 5000)["sample"][0]
    assert problem.startswith("must be a whole number from 1 to 2147483647; got '99999")
    assert "5002 characters" in problem


@pytest.mark.parametrize("value", [-1, "-5"])
def test_it_refuses_negative_seeds(value):
    assert errors_of(seed=value) == {"seed": [f"must be from 0 to {MAX_SEED}; got {int(value)}"]}


@pytest.mark.parametrize("value", [1.5, "abc", True, "1e3", float("inf"), [1]])
def test_it_refuses_what_is_not_a_whole_number(value):
    assert errors_of(repeats=value)["repeats"][0].startswith("must be a whole number from 1 to 50")


def test_it_refuses_a_system_prompt_over_the_limit():
    assert errors_of(system_prompt="x" * 1_000_000) == {
        "system_prompt": ["is 1,000,000 characters; at most 100 are allowed"]}


def test_every_problem_is_reported_at_once():
    errors = errors_of(repeats=0, seed=-1, choice_counts=[11], budget_usd="-3", budget_units=0)  # 2 to 10 options: 11 is none
    assert set(errors) == {"repeats", "seed", "choice_counts", "budget_usd", "budget_units"}
    assert errors["budget_usd"] == ["must be more than 0 and at most 100000000; got -3"]


@pytest.mark.parametrize("value", ["1.00001", "NaN", "Infinity", "ten"])
def test_a_budget_must_be_dollars_with_at_most_4_decimals(value):
    assert "budget_usd" in errors_of(budget_usd=value)


def test_units_over_the_limit_name_the_way_out():
    check_units(1000, LIMITS)
    with pytest.raises(LaunchInvalid) as caught:
        check_units(1001, LIMITS)
    assert "1,001 units; at most 1,000" in caught.value.errors["units"][0]


def test_prompt_tokens_are_characters_over_4_rounded_up():
    assert [prompt_tokens(n) for n in (0, 1, 4, 5, 8, 9)] == [0, 1, 1, 2, 2, 3]


def spec(**changes):
    values = dict(name="m", mode="choice", repeats=1, max_tokens=256, max_concurrency=8, requests_per_minute=None,
                  input_cost_per_token=None, output_cost_per_token=None)
    values.update(changes)
    return ModelSpec(**values)


def test_a_choice_model_plan_by_hand():
    plan = plan_model(spec(input_cost_per_token=0.000002, output_cost_per_token=0.00001, price_source="litellm"),
                      [400, 401, 1000])
    assert (plan.questions, plan.units) == (3, 3)
    # prompt tokens: ceil(400/4) + ceil(401/4) + ceil(1000/4) = 100 + 101 + 250 = 451
    assert plan.prompt_tokens == 451
    # completion: 1 letter per unit in choice mode = 3
    assert plan.completion_tokens == 3
    # cost: 451 x 0.000002 + 3 x 0.00001 = 0.000902 + 0.00003 = 0.000932
    assert plan.cost == pytest.approx(0.000932)
    # time: 8 calls in flight / 2 s assumed latency = 4 calls/s; 3 units / 4 = 0.75 s
    assert ASSUMED_LATENCY_SECONDS == 2.0
    assert (plan.requests_per_second, plan.seconds, plan.limited_by) == (4.0, 0.75, "concurrency")


def test_a_generate_model_plan_by_hand():
    plan = plan_model(spec(mode="generate", repeats=5, max_tokens=100, requests_per_minute=30,
                           input_cost_per_token=0.0, output_cost_per_token=0.000001, latency_seconds=0.5),
                      [40, 80])
    # units: 2 questions x 5 repeats = 10
    assert plan.units == 10
    # prompt tokens: (40/4 + 80/4) x 5 = (10 + 20) x 5 = 150
    assert plan.prompt_tokens == 150
    # completion: max_tokens x units = 100 x 10 = 1000 (an upper bound)
    assert plan.completion_tokens == 1000
    # cost: 150 x 0 + 1000 x 0.000001 = 0.001
    assert plan.cost == pytest.approx(0.001)
    # time: 8 in flight / 0.5 s = 16 calls/s, but 30 per minute = 0.5 calls/s is slower: 10 / 0.5 = 20 s
    assert (plan.requests_per_second, plan.seconds, plan.limited_by) == (0.5, 20.0, "requests_per_minute")


def test_a_model_without_a_price_has_an_unknown_cost_never_zero():
    plan = plan_run([spec(name="priced", input_cost_per_token=0.001, output_cost_per_token=0.0),
                     spec(name="unpriced")], [4, 4])
    assert plan.models[1].cost is None
    # priced: (1 + 1) prompt tokens x 0.001 = 0.002; the run's total is unknown, 0.002 of it known
    assert plan.cost is None and plan.cost_known == pytest.approx(0.002)
    # units: 2 questions x 2 models = 4; time: the slower model, 2 units / 4 calls/s = 0.5 s
    assert (plan.units, plan.seconds) == (4, 0.5)


def test_a_budget_is_reached_at_the_amount_not_after():
    assert not budget_reached(None, None, 1000, 1000)
    assert not budget_reached(Decimal("0.01"), None, Decimal("0.0099"), 5)
    assert budget_reached(Decimal("0.01"), None, Decimal("0.01"), 0)
    assert not budget_reached(None, 3, 0, 2) and budget_reached(None, 3, 0, 3)
