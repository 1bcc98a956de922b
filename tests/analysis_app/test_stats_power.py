"""The planner (analysis_app.metrics.power): hand-checked figures, the inverse, the ICC
estimate, and one plan checked against a simulation of clustered answers."""

import math

import numpy as np
import pytest

from analysis_app.metrics.power import (
    DEFAULT_ICC, clusters_for_half_width, clusters_for_power, design_effect, estimate_icc, half_width, plan, power,
    rate_se)


def test_a_plan_by_hand():
    # 40 scenarios, 5 questions x 2 repeats = m = 10 answers each, ICC 0.5: DE = 1 + 9 x 0.5 = 5.5
    # Var = 0.25 x 5.5 / (40 x 10) = 0.0034375, se = 0.0586302, half-width = 1.959964 x se = 0.114913
    assert design_effect(10, 0.5) == 5.5
    assert rate_se(40, 10, 0.5) == pytest.approx(math.sqrt(0.0034375))
    assert half_width(40, 10, 0.5) == pytest.approx(0.114913, abs=1e-6)
    # Difference of two models: se x sqrt 2 = 0.0829156; D = 0.10 -> 1.206045 se;
    # power = Phi(1.206045 - 1.959964) + Phi(-1.206045 - 1.959964) = 0.225449 + 0.000773 = 0.226222
    assert power(0.10, math.sqrt(2 * 0.0034375)) == pytest.approx(0.226222, abs=1e-6)
    # ±10 points: S >= 1.959964^2 x 0.25 x 5.5 / (10 x 0.01) = 52.82 -> 53 scenarios
    assert clusters_for_half_width(0.10, 10, 0.5) == 53
    # 80 % power for D = 0.10: S >= (1.959964 + 0.841621)^2 x 0.25 x 5.5 x 2 / (10 x 0.01) = 215.84 -> 216
    assert clusters_for_power(0.10, 10, 0.5) == 216
    figures = plan(40, 5, 2, models=3, icc=0.5, icc_source="given")
    assert figures.comparisons == 3 and figures.half_width == pytest.approx(0.114913, abs=1e-6)
    assert figures.power == pytest.approx(0.226222, abs=1e-6) and figures.power_adjusted < figures.power
    assert (figures.scenarios_for_half_width, figures.scenarios_for_power) == (53, 216)


def test_without_earlier_answers_the_correlation_is_assumed_and_said_so():
    figures = plan(10, 4, 1, models=2)
    assert figures.icc == DEFAULT_ICC and figures.icc_source.startswith("assumed")


def test_more_scenarios_never_widen_the_interval_or_lower_the_power():
    widths = [half_width(s, 6, 0.3) for s in range(1, 200)]
    powers = [power(0.1, math.sqrt(2) * rate_se(s, 6, 0.3)) for s in range(1, 200)]
    assert all(a >= b for a, b in zip(widths, widths[1:])) and all(a <= b for a, b in zip(powers, powers[1:]))
    # the inverse is the first S that reaches the target
    need = clusters_for_half_width(0.05, 6, 0.3)
    assert half_width(need, 6, 0.3) <= 0.05 < half_width(need - 1, 6, 0.3)


def test_the_icc_by_hand():
    # a = [1, 1], b = [0, 0]: all variation between scenarios -> 1
    assert estimate_icc([1, 1, 0, 0], [0, 0, 1, 1]) == 1.0
    # a = [1, 1, 1, 0], b = [0, 0, 0, 1]: means 0.75, 0.25, grand 0.5;
    # MSB = 4 x 0.0625 x 2 / 1 = 0.5; MSW = (3 x 0.0625 + 0.5625) x 2 / (8 - 2) = 0.25; n0 = (8 - 32/8) / 1 = 4
    # ICC = (0.5 - 0.25) / (0.5 + 3 x 0.25) = 0.2
    assert estimate_icc([1, 1, 1, 0, 0, 0, 0, 1], [0] * 4 + [1] * 4) == pytest.approx(0.2)
    # weights count identical rows: the same table in four rows
    assert estimate_icc([1, 0, 0, 1], [0, 0, 1, 1], weights=[3, 1, 3, 1]) == pytest.approx(0.2)
    # a = [1, 0], b = [1, 0]: no variation between -> negative estimate, clipped to 0
    assert estimate_icc([1, 0, 1, 0], [0, 0, 1, 1]) == 0.0
    assert math.isnan(estimate_icc([1, 0], [0, 0]))  # one scenario


def test_the_plan_agrees_with_a_simulation_of_clustered_answers():
    """Beta-binomial answers: scenario rates p_s ~ Beta(a, b) with mean p and ICC 1 / (a + b + 1),
    m answers per scenario. p = 0.5, ICC 0.5 -> a = b = 0.5. S = 40, m = 10 (the plan by hand above:
    half-width 0.1149, power 0.2262 for D = 0.10). 4,000 simulated launches: the half-width from the
    spread of the headline rates, and the share of launches in which two models 0.45 and 0.55
    (beta-binomial each, independent) differ significantly by the z-test on the estimated se."""
    rng = np.random.default_rng(29)
    launches, scenarios, m = 4000, 40, 10

    def headline(p):
        a = p * (1 / 0.5 - 1)
        b = (1 - p) * (1 / 0.5 - 1)
        scenario_rates = rng.binomial(m, rng.beta(a, b, size=(launches, scenarios))) / m
        return scenario_rates.mean(axis=1), scenario_rates.std(axis=1, ddof=1) / np.sqrt(scenarios)

    rates, _ = headline(0.5)
    assert 1.959964 * rates.std() == pytest.approx(half_width(40, 10, 0.5), rel=0.05)
    left, left_se = headline(0.45)
    right, right_se = headline(0.55)
    detected = np.abs(left - right) > 1.959964 * np.sqrt(left_se ** 2 + right_se ** 2)
    # planner at p = 0.5 (Var p(1 - p) = 0.25 vs 0.2475 at 0.45 and 0.55): 0.226
    assert detected.mean() == pytest.approx(plan(40, 5, 2, 2, icc=0.5).power, abs=0.03)
