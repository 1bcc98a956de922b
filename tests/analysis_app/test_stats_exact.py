"""Exact and Monte Carlo sign-flip tests, McNemar's exact test (analysis_app.metrics.exact),
and adjusted p-values (analysis_app.metrics.multiplicity)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binomtest

from analysis_app.metrics.exact import discordant_pairs_test, sign_flip_test
from analysis_app.metrics.multiplicity import adjust_p_values
from analysis_app.metrics.paired import sign_flip_p_values


def test_every_sign_pattern_is_enumerated():
    # d = [1, 2, 3]: the 8 sums +-1 +-2 +-3 are 6, 4, 2, 0, 0, -2, -4, -6; |sum| >= 6 twice: p = 2/8
    result = sign_flip_test([1, 2, 3])
    assert (result.p_value, result.method, result.patterns, result.mc_se) == (0.25, "exact", 8, 0.0)
    # Zeros change no sum (each count doubles): the same p with k = 3 patterns enumerated
    assert sign_flip_test([0, 1, 0, 2, 3]).p_value == 0.25
    # Mean 0: every pattern is at least as extreme
    assert sign_flip_test([1, -1]).p_value == 1.0
    assert sign_flip_test([0, 0]).p_value == 1.0


def test_rates_with_rounding_still_tie_exactly():
    # 0.1 + 0.2 != 0.3 in floats; -0.1 - 0.2 + 0.3 ties the observed 0.1 + 0.2 - 0.3 (= 0 up to 1e-17).
    assert sign_flip_test([0.1, 0.2, -0.3]).p_value == 1.0


def test_many_differences_fall_back_to_monte_carlo_with_its_error_stated():
    d = np.r_[np.full(13, 0.5), np.full(8, -0.25)]  # k = 21 > 20
    result = sign_flip_test(d, np.random.default_rng(0), iterations=20_000)
    assert result.method == "monte carlo" and result.patterns == 20_000
    assert result.mc_se == pytest.approx(np.sqrt(result.p_value * (1 - result.p_value) / 20_000))
    exact = sign_flip_test(d, exact_limit=21).p_value  # 2^21 sums, enumerated once here
    assert abs(result.p_value - exact) < 4 * result.mc_se
    assert "MC se" in result.describe() and "exact" in sign_flip_test([1]).describe()


def test_the_monte_carlo_test_of_the_dashboard_agrees_with_enumeration():
    d = np.array([0.2, 0.1, 0.4, -0.1, 0.3, 0.0, 0.25, -0.05])
    mc = sign_flip_p_values(d, 200_000, np.random.default_rng(5))[0]
    assert mc == pytest.approx(sign_flip_test(d).p_value, abs=0.005)


def test_mcnemar_counts_the_discordant_pairs():
    # b = 4 pairs only left coded, c = 0: p = 2 x (1/2)^4 = 0.125
    result = discordant_pairs_test([1, 1, 1, 1, 0, 1], [0, 0, 0, 0, 0, 1])
    assert (result.left_only, result.right_only, result.p_value) == (4, 0, 0.125)
    # b = 3, c = 1: P(X <= 1) + P(X >= 3) for Binomial(4, 1/2) = (1 + 4 + 4 + 1) / 16 = 0.625
    assert discordant_pairs_test([1, 1, 1, 0], [0, 0, 0, 1]).p_value == pytest.approx(0.625)
    assert discordant_pairs_test([1, 0], [1, 0]).p_value == 1.0


@settings(max_examples=80, deadline=None)
@given(st.lists(st.floats(-1, 1, allow_nan=False), min_size=1, max_size=14))
def test_an_exact_p_value_lies_in_0_to_1_and_never_below_two_patterns(d):
    result = sign_flip_test(d)
    k = sum(1 for value in d if value != 0)
    assert 0 < result.p_value <= 1
    if k:
        assert result.p_value >= min(1.0, 2 / 2 ** k)  # the observed pattern and its mirror


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from([-1, 0, 1]), min_size=1, max_size=18))
def test_on_two_codes_the_sign_flip_test_is_mcnemars(d):
    d = np.array(d)
    left, right = d == 1, d == -1  # +1: only left chose it; -1: only right did
    b, c = int(left.sum()), int(right.sum())
    expected = 1.0 if b + c == 0 else min(1.0, binomtest(b, b + c, 0.5).pvalue)
    assert sign_flip_test(d).p_value == pytest.approx(expected, rel=1e-9)
    assert discordant_pairs_test(left, right).p_value == pytest.approx(expected, rel=1e-12)


def test_benjamini_hochberg_and_holm_by_hand():
    p = [0.01, 0.04, 0.03, 0.20]
    # BH: sorted 0.01, 0.03, 0.04, 0.20 times m/rank = 4/1, 4/2, 4/3, 4/4 -> 0.04, 0.06, 0.0533, 0.20;
    # running minimum from the largest: 0.20, 0.0533, 0.0533, 0.04 -> back in order
    reject, adjusted = adjust_p_values(p, "bh", 0.05)
    assert adjusted == pytest.approx([0.04, 0.16 / 3, 0.16 / 3, 0.20])
    assert list(reject) == [True, False, False, False]
    # Holm: sorted times 4, 3, 2, 1 -> 0.04, 0.09, 0.08, 0.20; running maximum 0.04, 0.09, 0.09, 0.20
    reject, adjusted = adjust_p_values(p, "holm", 0.05)
    assert adjusted == pytest.approx([0.04, 0.09, 0.09, 0.20])


def test_a_test_without_a_p_value_is_left_out_of_the_family():
    # Only 0.01 and 0.04 are a family: BH 0.02, 0.04
    reject, adjusted = adjust_p_values([0.01, np.nan, 0.04], "bh")
    assert adjusted[0] == pytest.approx(0.02) and np.isnan(adjusted[1]) and adjusted[2] == pytest.approx(0.04)
    assert not reject[1]
    with pytest.raises(ValueError, match="one of bh, holm"):
        adjust_p_values([0.1], "bonferroni-ish")


# 20 examples: statsmodels collects garbage on each call (~50 ms here).
@settings(max_examples=20, deadline=None)
@given(st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=40))
def test_adjusted_p_values_are_never_below_raw_and_keep_their_order(p):
    p = np.array(p)
    _, bh = adjust_p_values(p, "bh")
    _, holm = adjust_p_values(p, "holm")
    assert (bh >= p - 1e-12).all() and (holm >= bh - 1e-12).all() and (bh <= 1).all()
    order = np.argsort(p, kind="stable")
    assert (np.diff(bh[order]) >= -1e-12).all() and (np.diff(holm[order]) >= -1e-12).all()


def test_columns_are_tested_exactly_or_with_shared_random_patterns():
    from analysis_app.metrics.exact import sign_flip_tests
    rng = np.random.default_rng(3)
    few = np.r_[[1.0, 2.0, 3.0], np.zeros(22)]  # 3 non-zero: exact 0.25
    many = rng.normal(0.5, 1, 25)  # 25 non-zero: Monte Carlo
    exact, sampled = sign_flip_tests(np.c_[few, many], np.random.default_rng(1), iterations=20_000)
    assert (exact.p_value, exact.method) == (0.25, "exact")
    assert sampled.method == "monte carlo" and sampled.patterns == 20_000
    alone = sign_flip_test(many, np.random.default_rng(9), iterations=20_000)
    assert abs(sampled.p_value - alone.p_value) < 4 * np.hypot(sampled.mc_se, alone.mc_se)
