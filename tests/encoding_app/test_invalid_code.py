"""The invalid code X (an answer that chooses no option and is no refusal) in the pure
modules: letters, the refusal and invalid rates, the option rates, and the small-sample
rule of the agreement figures."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scenarios_app.analysis.metrics.rates import domain_rates
from scenarios_app.analysis.metrics.refusals import refusals_by_model
from scenarios_app.analysis.metrics.tidy import from_records
from encoding_app.agreement import MIN_ITEMS, kappa_interval, pair_agreement, too_few
from encoding_app.letters import INVALID, LETTERS, REFUSAL, canonical_code, presented_letter

BASE = dict(model="m1", run=1, question_key="q", scenario="s1", domain="Escalation", choice_count=2, action="",
            qualified_actor="US", opposing_actor="CN", repeat=0)


def row(outcome, category=None, **fields):
    return {**fields, "outcome": outcome, "category": category}


def test_the_invalid_code_is_no_option_letter_and_no_action_key():
    assert INVALID == "X" and INVALID not in LETTERS and INVALID != REFUSAL
    assert INVALID not in "SUN"  # skip, undo, note


@given(st.permutations(range(10)))
def test_refusal_and_invalid_read_the_same_under_any_option_order(order):
    for code in (REFUSAL, INVALID):
        assert canonical_code(code, list(order)) == code
        assert presented_letter(code, list(order)) == code


def test_invalid_answers_have_their_own_rate_and_stay_out_of_the_option_rates():
    # Scenario s1: 3 "Use of force", 1 "No use of force", 1 refusal, 2 invalid, 1 unresolved, 1 missing.
    table = from_records(
        [row("answer", "Use of force")] * 3 + [row("answer", "No use of force"), row("refusal"), row("invalid"),
                                                row("invalid"), row("unresolved"), row("missing")], **BASE)
    summary = refusals_by_model(table).iloc[0]
    assert (summary["answer"], summary["refusal"], summary["invalid"], summary["unresolved"],
            summary["missing"], summary["rows"]) == (4, 1, 2, 1, 1, 9)
    # read = 4 answers + 1 refusal + 2 invalid = 7
    assert summary["refusal_rate"] == pytest.approx(1 / 7)
    assert summary["invalid_rate"] == pytest.approx(2 / 7)
    assert summary["invalid_share"] == pytest.approx(2 / 9)
    rates = domain_rates(table).set_index("category")["rate"]
    # Over the 4 answers that chose an option: 3/4 and 1/4; refusals and invalid are in neither.
    assert rates["Use of force"] == pytest.approx(0.75) and rates["No use of force"] == pytest.approx(0.25)


def test_without_invalid_answers_the_refusal_rate_is_as_before():
    table = from_records([row("answer", "Use of force")] * 3 + [row("refusal")], **BASE)
    summary = refusals_by_model(table).iloc[0]
    assert summary["refusal_rate"] == pytest.approx(1 / 4) and summary["invalid_rate"] == 0  # 1 / (3 + 1)


def test_only_invalid_answers_give_an_invalid_rate_of_one_and_no_option_rate():
    table = from_records([row("invalid")] * 2, **BASE)
    summary = refusals_by_model(table).iloc[0]
    assert summary["invalid_rate"] == 1 and summary["refusal_rate"] == 0
    assert domain_rates(table).empty


def test_nothing_read_gives_no_rates():
    table = from_records([row("missing"), row("unresolved")], **BASE)
    summary = refusals_by_model(table).iloc[0]
    assert math.isnan(summary["refusal_rate"]) and math.isnan(summary["invalid_rate"])


# ------------------------------------------------------------------ small samples

def test_two_answers_are_too_few_and_get_no_asymptotic_interval():
    # The case: two answers. κ([A, B] vs [B, B]) = (0.5 - 0.5) / (1 - 0.5) = 0, and
    # statsmodels' standard error there is 0: an interval of zero width, so none is given.
    pair = pair_agreement(["A", "B"], ["B", "B"])
    assert pair.n == 2 and pair.too_few and pair.kappa == pytest.approx(0.0)
    assert pair.kappa_interval is None


def test_the_threshold_is_thirty():
    assert MIN_ITEMS == 30 and too_few(29) and not too_few(30)


def test_kappa_interval_of_a_hundred_answers_is_hand_checked():
    # 2 x 2 table [[40, 10], [10, 40]]: p_o = 0.8, p_e = 0.5, κ = 0.3 / 0.5 = 0.6.
    # Fleiss, Cohen & Everitt (1969): numerator = Σ p_ii((1-p_e) - (p_i.+p_.i)(1-p_o))²
    #   + (1-p_o)² Σ_{i≠j} p_ij (p_.i+p_j.)² - (p_o p_e - 2 p_e + p_o)²
    #   = 2·0.4·(0.5 - 1·0.2)² + 0.04·(0.1·1 + 0.1·1) - (0.4 - 1 + 0.8)² = 0.072 + 0.008 - 0.04 = 0.04;
    # var = 0.04 / (100 · 0.5⁴) = 0.0064, se = 0.08; 0.6 ± 1.959964 · 0.08 = 0.6 ± 0.1568.
    first = ["A"] * 50 + ["B"] * 50
    second = ["A"] * 40 + ["B"] * 10 + ["A"] * 10 + ["B"] * 40
    low, high = kappa_interval(first, second)
    assert low == pytest.approx(0.4432, abs=1e-4) and high == pytest.approx(0.7568, abs=1e-4)


@given(st.lists(st.tuples(st.sampled_from("ABRX"), st.sampled_from("ABRX")), min_size=30, max_size=80))
def test_a_kappa_interval_holds_kappa_and_stays_inside_minus_one_to_one(pairs):
    first, second = [a for a, _ in pairs], [b for _, b in pairs]
    pair = pair_agreement(first, second)
    if pair.kappa_interval is None:
        return
    low, high = pair.kappa_interval
    assert -1 <= low <= pair.kappa + 1e-9 and pair.kappa - 1e-9 <= high <= 1
