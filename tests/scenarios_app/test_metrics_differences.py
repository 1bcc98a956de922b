import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.multitest import multipletests

from analysis_app.metrics.paired import sign_flip_p_values
from scenarios_app.analysis.metrics.differences import model_differences
from scenarios_app.analysis.metrics.tidy import empty_table, from_records

UOF, NOF = "Use of force", "No use of force"
BASE = dict(model="m1", run=1, question_key="q", scenario="s1", domain="Escalation", choice_count=2, action="",
            qualified_actor="US", opposing_actor="CN", repeat=0, outcome="answer", category=None)


def model_rows(model, choose, scenarios=12, answers=2):
    """`choose(s)` is the category the model picks in scenario s."""
    return [{"model": model, "scenario": f"s{s:02d}", "category": choose(s)}
            for s in range(scenarios) for _ in range(answers)]


def only(frame, **keys):
    for column, value in keys.items():
        frame = frame[frame[column] == value]
    assert len(frame) == 1, frame
    return frame.iloc[0]


def mixed(s):
    return UOF if s % 3 == 0 else NOF


TABLE = from_records(
    model_rows("hawk", lambda s: UOF)     # Use of force everywhere: rate 1 in each scenario
    + model_rows("dove", mixed)           # s00, s03, s06, s09: 1; otherwise 0
    + model_rows("twin", mixed),          # the same answers as dove
    **BASE,
)


def test_identical_models_differ_by_zero_with_p_value_one():
    row = only(model_differences(TABLE, iterations=500), model_a="dove", model_b="twin", category=UOF)
    assert (row["diff"], row["ci_low"], row["ci_high"]) == (0, 0, 0)
    # every sign flip of all-zero differences ties the observed 0: p = 1, nothing to enumerate
    assert row["p_value"] == 1.0 and row["p_adjusted"] == 1.0
    assert row["p_method"] == "every difference 0: p = 1"
    assert not row["significant"]
    assert row["n_scenarios"] == 12


def test_a_clearly_different_pair_has_a_small_p_value():
    row = only(model_differences(TABLE, iterations=2000), model_a="dove", model_b="hawk", category=UOF)
    # dove - hawk per scenario: 0 - 1 = -1 in 8 scenarios, 1 - 1 = 0 in 4 -> mean -8/12
    assert row["diff"] == pytest.approx(-8 / 12)
    # only the 2 of 2^8 sign patterns of the 8 nonzero differences that are all equal
    # reach |mean| = 8/12: p = 2/256 = 1/128 exactly, every pattern enumerated
    assert row["p_value"] == 1 / 128
    assert row["p_method"] == "exact sign-flip (256 patterns)"
    assert row["ci_high"] < 0
    assert row["significant"]


def test_no_use_of_force_mirrors_use_of_force_for_two_options():
    result = model_differences(TABLE, iterations=500)
    uof = only(result, model_a="dove", model_b="hawk", category=UOF)
    nof = only(result, model_a="dove", model_b="hawk", category=NOF)
    assert nof["diff"] == pytest.approx(-uof["diff"])  # +8/12
    assert nof["p_value"] == uof["p_value"]  # the same sign flips, |mean| unchanged


def test_holm_adjustment_equals_statsmodels_on_the_p_values():
    result = model_differences(TABLE, iterations=300, seed=4)
    for _, group in result.groupby(["domain", "choice_count", "category"]):
        reject, adjusted, _, _ = multipletests(group["p_value"], alpha=0.05, method="holm")
        np.testing.assert_array_equal(group["p_adjusted"], adjusted)
        np.testing.assert_array_equal(group["significant"], reject)
    assert len(result) == 6  # 3 pairs x 2 categories


def test_differences_use_only_scenarios_both_models_answered():
    table = from_records(model_rows("a", lambda s: UOF, scenarios=4) + model_rows("b", lambda s: NOF, scenarios=2),
                         **BASE)
    row = only(model_differences(table, iterations=200), category=UOF)
    # common scenarios s00, s01: 1 - 0 = 1 each -> diff 1 over 2 scenarios
    assert (row["diff"], row["n_scenarios"]) == (pytest.approx(1.0), 2)


def test_the_sign_flip_test_counts_ties_and_extremes():
    rng = np.random.default_rng(0)
    # d = [1, -1]: observed mean 0, every flip ties -> p = 1
    assert sign_flip_p_values(np.array([1.0, -1.0]), 1000, rng)[0] == 1.0
    # d = [1, 1]: |mean| = 1 only when both signs agree, chance 1/2
    assert sign_flip_p_values(np.array([1.0, 1.0]), 20000, rng)[0] == pytest.approx(0.5, abs=0.02)


def test_the_same_seed_gives_the_same_table():
    pd.testing.assert_frame_equal(model_differences(TABLE, iterations=300, seed=9),
                                  model_differences(TABLE, iterations=300, seed=9))


def test_an_empty_table_or_a_single_model_gives_no_rows():
    assert model_differences(empty_table()).empty
    assert model_differences(from_records(model_rows("solo", mixed), **BASE)).empty


def test_holm_gives_what_statsmodels_gives_ties_and_all():
    from analysis_app.metrics.paired import holm_adjusted

    rng = np.random.default_rng(4)
    cases = [rng.random(n) for n in (1, 2, 5, 28)] + [
        np.array([0.01, 0.01, 0.04, 0.04, 0.5]),  # ties: the same sort decides who gets which factor
        np.array([0.001, 0.002, 0.003]),  # all rejected: 0.003 x 1 <= 0.05
        np.array([0.9, 0.8, 0.7]),  # none rejected; 0.7 x 3 = 2.1 is clipped to 1
        np.round(rng.random(40), 2)]
    for p in cases:
        reject, adjusted = holm_adjusted(p, 0.05)
        expected_reject, expected_adjusted, _, _ = multipletests(p, alpha=0.05, method="holm")
        np.testing.assert_array_equal(reject, expected_reject)
        np.testing.assert_array_equal(adjusted, expected_adjusted)


def test_past_20_non_zero_differences_the_p_value_is_monte_carlo_with_its_error_stated():
    # hawk (Use of force everywhere) against dove (never) over 21 scenarios: d = 1 in each,
    # 2^21 patterns too many to enumerate; only the 2 all-equal patterns reach |mean| = 1, so
    # the add-one estimate is (1 + ~0) / (2000 + 1), about 0.0005, its MC se stated
    table = from_records(model_rows("hawk", lambda s: UOF, scenarios=21) + model_rows("dove", lambda s: NOF,
                                                                                       scenarios=21), **BASE)
    row = only(model_differences(table, iterations=2000), category=UOF)
    assert row["p_method"].startswith("Monte Carlo sign-flip (2000 patterns, MC se")
    assert row["p_value"] == pytest.approx(1 / 2001, abs=0.001)
    # 20 scenarios are still enumerated: 2 of 2^20 patterns
    row = only(model_differences(table[table["scenario"] != "s20"], iterations=2000), category=UOF)
    assert (row["p_value"], row["p_method"]) == (2 / 2 ** 20, "exact sign-flip (1048576 patterns)")
