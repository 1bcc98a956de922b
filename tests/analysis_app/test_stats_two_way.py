"""The standard error clustered two ways (people's answers: by respondent and by scenario),
on small cases worked by hand."""

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from analysis_app.metrics.clustered import clustered_se, two_way_clustered_se, two_way_difference


def test_two_way_by_hand_when_people_answer_alike_across_scenarios():
    # Three scenarios s1-s3, each answered by r1, r2 (chose it: 1) and r3 (did not: 0).
    # Weights 1/3 (three answers per scenario), W = 3, mean 2/3; weighted residuals
    # w(x - mean): 1/3 · 1/3 = 1/9 for a 1, 1/3 · (-2/3) = -2/9 for a 0.
    # By respondent: r1 3/9, r2 3/9, r3 -6/9 -> (9 + 9 + 36)/81 = 54/81; / W² = 6/81.
    # By scenario: 1/9 + 1/9 - 2/9 = 0 each -> 0.
    # By (respondent, scenario): six (1/9)² and three (2/9)² = 18/81; / W² = 2/81.
    # V = 6/81 + 0 - 2/81 = 4/81 -> SE = 2/9.
    values = [1, 1, 0] * 3
    respondents = ["r1", "r2", "r3"] * 3
    scenarios = ["s1"] * 3 + ["s2"] * 3 + ["s3"] * 3
    weights = [1 / 3] * 9
    assert two_way_clustered_se(values, respondents, scenarios, weights) == pytest.approx(2 / 9)
    # The answers taken as independent: sqrt(2/81) = 0.1571, narrower than 2/9 = 0.2222.
    assert clustered_se(values, np.arange(9), weights) == pytest.approx(np.sqrt(2 / 81))


def test_a_difference_that_is_not_positive_falls_back_to_the_larger_one_way_variance():
    # s1: r1 1, r2 1, r3 0 (weights 1/3); s2: r1 1, r2 0 (weights 1/2); W = 2, mean 7/12.
    # Weighted residuals: s1 5/36, 5/36, -7/36; s2 5/24, -7/24.
    # By respondent: r1 25/72, r2 -11/72, r3 -14/72 -> 942/5184; / 4 = 942/20736.
    # By scenario: 1/12, -1/12 -> 1/72; / 4 = 72/20736.  Joint: 1062/5184; / 4 = 1062/20736.
    # V = (942 + 72 - 1062)/20736 < 0 -> the respondents' 942/20736 stands in.
    values = [1, 1, 0, 1, 0]
    respondents = ["r1", "r2", "r3", "r1", "r2"]
    scenarios = ["s1", "s1", "s1", "s2", "s2"]
    weights = [1 / 3, 1 / 3, 1 / 3, 1 / 2, 1 / 2]
    assert two_way_clustered_se(values, respondents, scenarios, weights) == pytest.approx(np.sqrt(942 / 20736))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 4)), min_size=1, max_size=30))
@example(rows=[(1, 0), (0, 0)])  # one respondent: its one-way error is 0, and so is the two-way one
def test_with_single_answer_scenarios_it_is_the_respondents_one_way_error(rows):
    # Every answer its own scenario: V_scenario = V_joint, so V = V_respondent.
    values = [v for v, _ in rows]
    respondents = [r for _, r in rows]
    scenarios = list(range(len(rows)))
    assert two_way_clustered_se(values, respondents, scenarios) == pytest.approx(clustered_se(values, respondents),
                                                                                abs=1e-12)


def test_a_difference_of_two_means_clustered_two_ways_by_hand():
    # People: s1: r1 1, r2 0; s2: r1 1, r2 1 (weights 1/2: two answers per scenario), W_p = 2,
    # mean p = (1/2 + 0 + 1/2 + 1/2) / 2 = 3/4. A model's scenario rates: s1 1, s2 0 (weights 1,
    # each its own "respondent"), W_m = 2, mean m = 1/2. Estimate p - m = 1/4.
    # Variance of p - m with clusters g: sum_g (U_pg / W_p - U_mg / W_m)², U the weighted residual sums.
    # People's w(x - 3/4): (r1,s1) 1/8, (r2,s1) -3/8, (r1,s2) 1/8, (r2,s2) 1/8; the model's x - 1/2: s1 1/2, s2 -1/2.
    # By scenario: s1 (-1/4)/2 - (1/2)/2 = -3/8, s2 (1/4)/2 - (-1/2)/2 = 3/8 -> 9/64 + 9/64 = 18/64.
    # By respondent: r1 (1/4)/2 = 1/8, r2 (-1/4)/2 = -1/8, the model's two rows -(±1/2)/2 = ∓1/4
    #   -> 1/64 + 1/64 + 4/64 + 4/64 = 10/64.
    # By (respondent, scenario), every row alone: people (1/16)² · 3 + (3/16)² = 12/256 = 3/64, model 8/64 -> 11/64.
    # V = 18/64 + 10/64 - 11/64 = 17/64 -> SE = sqrt(17)/8 = 0.51539; z = 0.25 / 0.51539 = 0.4851, p = 0.6276.
    values = [1, 0, 1, 1, 1, 0]
    left = [True, True, True, True, False, False]
    respondents = ["r1", "r2", "r1", "r2", "model s1", "model s2"]
    scenarios = ["s1", "s1", "s2", "s2", "s1", "s2"]
    weights = [0.5, 0.5, 0.5, 0.5, 1, 1]
    estimate, se, p = two_way_difference(values, left, respondents, scenarios, weights)
    assert estimate == pytest.approx(1 / 4)
    assert se == pytest.approx(np.sqrt(17) / 8)
    assert p == pytest.approx(2 * (1 - 0.5 * (1 + math.erf(0.25 / (np.sqrt(17) / 8) / math.sqrt(2)))))
    assert p == pytest.approx(0.6276, abs=1e-4)


def test_a_difference_with_one_way_of_singletons_is_the_two_clustered_variances_summed():
    # Every observation its own respondent: the two-way variance is the scenario-clustered one;
    # with the two sides in different scenarios (no pairing) it is clustered_se(left)² + clustered_se(right)².
    left_values, right_values = [1, 0, 1, 1], [0, 0, 1]
    values = left_values + right_values
    side = [True] * 4 + [False] * 3
    scenarios = ["a", "a", "b", "b", "c", "d", "d"]
    estimate, se, _ = two_way_difference(values, side, np.arange(7), scenarios)
    assert estimate == pytest.approx(3 / 4 - 1 / 3)
    expected = clustered_se(left_values, scenarios[:4]) ** 2 + clustered_se(right_values, scenarios[4:]) ** 2
    assert se == pytest.approx(np.sqrt(expected))


def test_a_difference_needs_both_sides():
    with pytest.raises(ValueError):
        two_way_difference([1, 0], [True, True], [1, 2], [1, 2])
