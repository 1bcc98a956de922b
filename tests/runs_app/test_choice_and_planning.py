import math

import pytest

from gateway.choice import chosen_letter, letter_grammar, letter_of_token, option_logprobs
from runs_app.planning import cache_key, option_order, sample_ids


@pytest.mark.parametrize("token, letter", [("A", "A"), (" B", "B"), ("C.", "C"), ("(A)", "A"), (" A:", "A"),
                                           ("\n", None), ("AB", None), ("a", None), (" The", None)])
def test_tokens_map_to_option_letters(token, letter):
    assert letter_of_token(token) == letter


def test_option_logprobs_sum_tokens_of_the_same_letter_in_probability_space():
    top = [(" A", math.log(0.3)), ("A", math.log(0.1)), ("B", math.log(0.2)), ("\n", math.log(0.35))]
    logprobs = option_logprobs(top, ["A", "B", "C"])
    # A: 0.3 + 0.1 = 0.4; B: 0.2; C never seen.
    assert logprobs["A"] == pytest.approx(math.log(0.4))
    assert logprobs["B"] == pytest.approx(math.log(0.2))
    assert logprobs["C"] is None
    assert chosen_letter(logprobs) == "A"


def test_letters_outside_the_options_are_ignored():
    top = [("D", math.log(0.9)), ("B", math.log(0.05))]
    assert option_logprobs(top, ["A", "B"]) == {"A": None, "B": pytest.approx(math.log(0.05))}


def test_no_letter_seen_means_no_choice_and_ties_go_to_the_earlier_letter():
    assert chosen_letter({"A": None, "B": None}) is None
    assert chosen_letter({"A": -0.7, "B": -0.7}) == "A"


def test_the_grammar_allows_exactly_the_option_letters():
    assert letter_grammar(["A", "B", "C"]) == 'root ::= "A" | "B" | "C"'


def test_a_sample_is_seeded_and_in_id_order():
    ids = list(range(100, 0, -1))
    first = sample_ids(ids, 10, seed=7)
    assert first == sample_ids(ids, 10, seed=7) == sorted(first)
    assert len(set(first)) == 10 and first != sample_ids(ids, 10, seed=8)
    assert sample_ids(ids, None, 0) == sorted(ids) == sample_ids(ids, 1000, 0)


def test_option_order_is_canonical_unless_permuted_and_stable_per_unit():
    assert option_order(3, False, 1, "k") == [0, 1, 2]
    shuffled = option_order(3, True, 1, "q1/m1/0")
    assert sorted(shuffled) == [0, 1, 2]
    assert option_order(3, True, 1, "q1/m1/0") == shuffled
    orders = {tuple(option_order(3, True, 1, f"q{i}")) for i in range(40)}
    assert len(orders) == 6  # every permutation of three shows up over 40 units


def test_the_cache_key_changes_with_what_changes_the_output_only():
    base = dict(model="openai/x", api_base=None, mode="choice", params={"t": 0},
                messages=[{"role": "user", "content": "Q"}], letters=["A", "B"])
    key = cache_key(**base)
    assert cache_key(**{**base, "api_base": ""}) == key
    assert cache_key(**{**base, "params": {"t": 0.7}}) != key
    assert cache_key(**{**base, "messages": [{"role": "user", "content": "Q2"}]}) != key
    assert cache_key(**{**base, "model": "openai/y"}) != key
