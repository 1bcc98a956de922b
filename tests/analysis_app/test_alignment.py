"""Models beside people (issue 40): the similarity of two answer distributions (1 − Jensen–
Shannon distance, base 2), a model's alignment with a panel, the panel's ceiling from halves
of its respondents and Krippendorff's α among them — exact on small hand-computed cases, and
the similarity's rules over all distributions (hypothesis)."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from analysis_app.metrics.alignment import (alignment, ceiling, cluster_interval, distribution,
                                            respondents_alpha, similarity)

AB = ["A", "B"]


def test_a_distribution_is_over_the_options_with_refusals_left_out_and_counted():
    shares, left_out = distribution(["A", "A", "B", "R"], ["A", "B", "C"])
    assert shares.tolist() == pytest.approx([2 / 3, 1 / 3, 0.0])  # 2 and 1 of the 3 that chose
    assert left_out == 1  # the refusal
    assert distribution(["R", "X"], AB) == (None, 2)  # nothing chosen: no distribution


def test_a_published_references_shares_are_a_distribution_too():
    shares, left_out = distribution({"A": 0.3, "C": 0.7}, ["A", "B", "C"])
    assert shares.tolist() == pytest.approx([0.3, 0.0, 0.7]) and left_out == 0  # 0.3 + 0.7 sums to 0.999…
    # a model answering A, B against a reference of (½, ½): the same distribution
    found = alignment({"q1": ["A", "B"]}, {"q1": {"A": 0.5, "B": 0.5}}, {"q1": AB})
    assert found.similarity == pytest.approx(1.0) and found.n_questions == 1


def test_similarity_is_one_for_the_same_answers_and_zero_for_disjoint_ones():
    assert similarity([1, 0], [1, 0]) == 1.0
    assert similarity([1, 0], [0, 1]) == 0.0  # JS divergence (base 2) 1, distance 1


def test_similarity_of_an_even_split_and_a_unanimous_answer():
    # p = (1/2, 1/2), q = (1, 0), M = (3/4, 1/4):
    # KL(p‖M) = ½·log2(½ / ¾) + ½·log2(½ / ¼) = ½·(−0.584963) + ½·1 = 0.207519
    # KL(q‖M) = log2(1 / ¾) = 0.415037
    # JSD = (0.207519 + 0.415037) / 2 = 0.311278; distance = √0.311278 = 0.557923
    assert similarity([0.5, 0.5], [1, 0]) == pytest.approx(1 - math.sqrt(0.311278), abs=1e-6)
    assert similarity([0.5, 0.5], [1, 0]) == pytest.approx(0.442077, abs=1e-6)


def test_a_models_alignment_is_the_mean_over_the_questions_both_answered():
    model = {"q1": ["A", "A"], "q2": ["B", "B", "R"], "q3": ["A"]}
    panel = {"q1": ["A", "A", "A"], "q2": ["A", "B"], "q4": ["B"]}
    found = alignment(model, panel, {q: AB for q in ("q1", "q2", "q3", "q4")})
    # q1: (1, 0) vs (1, 0) → 1; q2: (0, 1) vs (½, ½) → 0.442077; q3, q4 asked of one side only
    assert found.per_question == pytest.approx({"q1": 1.0, "q2": 0.442077}, abs=1e-6)
    assert found.similarity == pytest.approx((1 + 0.442077) / 2, abs=1e-6)
    assert found.n_questions == 2
    assert (found.left_out_model, found.left_out_panel, found.questions_without_choice) == (1, 0, 0)


def test_a_question_one_side_only_refused_is_left_out_and_counted():
    found = alignment({"q1": ["R", "R"], "q2": ["A"]}, {"q1": ["A"], "q2": ["A"]}, {"q1": AB, "q2": AB})
    assert found.per_question == {"q2": 1.0}
    assert (found.left_out_model, found.questions_without_choice) == (2, 1)


def test_nothing_in_common_has_no_similarity():
    found = alignment({"q1": ["A"]}, {"q2": ["A"]}, {"q1": AB, "q2": AB})
    assert (found.similarity, found.ci_low, found.n_questions) == (None, None, 0)


def test_the_cluster_interval_resamples_whole_scenarios():
    # every question 0.5: any resample's mean is 0.5
    assert cluster_interval({"a": 0.5, "b": 0.5, "c": 0.5}, {"a": 1, "b": 2, "c": 3}) == (0.5, 0.5)
    # one scenario: no interval
    assert cluster_interval({"a": 0.2, "b": 0.8}, {"a": 1, "b": 1}) is None
    low, high = cluster_interval({"a": 0.0, "b": 1.0, "c": 1.0}, {"a": 1, "b": 2, "c": 2})
    # two scenarios: means of 0 (scenario 1 twice), 2/3 (one each: (0 + 1 + 1) / 3) or 1
    assert 0.0 <= low < 2 / 3 < high <= 1.0


def test_the_ceiling_of_four_respondents_is_exact_over_every_split():
    # A, A, B, B: three ways to halve them — {A,A}|{B,B} → 0, {A,B}|{A,B} twice → 1: 2/3
    answers = {"q": {"r1": "A", "r2": "A", "r3": "B", "r4": "B"}}
    assert ceiling(answers, {"q": AB}) == pytest.approx(2 / 3)


def test_the_ceiling_of_a_unanimous_panel_is_one_and_of_one_respondent_none():
    assert ceiling({"q": {"r1": "A", "r2": "A", "r3": "A"}}, {"q": AB}) == 1.0
    assert ceiling({"q": {"r1": "A"}}, {"q": AB}) is None


def test_the_ceiling_of_a_large_panel_takes_random_splits_reproducibly():
    answers = {"q": {f"r{i:02}": "AB"[i % 2] for i in range(30)}, "q2": {f"r{i:02}": "A" for i in range(30)}}
    first = ceiling(answers, {"q": AB, "q2": AB}, seed=7)
    assert first == ceiling(answers, {"q": AB, "q2": AB}, seed=7)  # same seed, same splits
    assert 0.5 < first < 1.0  # q2 unanimous (1 in every split), q splits near even


def test_respondents_alpha_is_krippendorffs_among_respondents():
    # two respondents agreeing on two questions with different answers: perfect agreement
    assert respondents_alpha({"q1": {"r1": "A", "r2": "A"}, "q2": {"r1": "B", "r2": "B"}}) == pytest.approx(1.0)
    # every respondent the same answer everywhere: one value, α undefined
    assert respondents_alpha({"q1": {"r1": "A", "r2": "A"}}) is None


distributions = st.lists(st.floats(min_value=0, max_value=1, allow_nan=False), min_size=2, max_size=6).filter(
    lambda values: sum(values) > 1e-6)


@given(distributions)
def test_a_distributions_similarity_with_itself_is_one(p):
    assert similarity(p, p) == pytest.approx(1.0, abs=1e-6)


@given(st.data())
def test_similarity_is_symmetric_and_within_zero_and_one(data):
    p = data.draw(distributions)
    q = data.draw(st.lists(st.floats(min_value=0, max_value=1, allow_nan=False), min_size=len(p),
                           max_size=len(p)).filter(lambda values: sum(values) > 1e-6))
    assert similarity(p, q) == pytest.approx(similarity(q, p), abs=1e-12)
    assert 0.0 <= similarity(p, q) <= 1.0


def test_respondents_alpha_by_hand_with_three_respondents():
    # q1: r1 A, r2 A, r3 B; q2: B, B, B. Each question's ordered pairs of values weighted
    # 1 / (m − 1) = ½: q1 gives AA 2·½ = 1, AB 1, BA 1; q2 gives BB 6·½ = 3.
    # n_A = 1 + 1 = 2, n_B = 1 + 3 = 4, n = 6; D_o = (1 + 1) / 6 = 1/3;
    # D_e = 2·n_A·n_B / (n(n − 1)) = 16/30 = 8/15; α = 1 − (1/3)/(8/15) = 1 − 15/24 = 0.375
    answers = {"q1": {"r1": "A", "r2": "A", "r3": "B"}, "q2": {"r1": "B", "r2": "B", "r3": "B"}}
    assert respondents_alpha(answers) == pytest.approx(0.375)
