"""The standard error clustered two ways (people's answers: by respondent and by scenario),
on small cases worked by hand."""

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from analysis_app.metrics.clustered import clustered_se, two_way_clustered_se


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
