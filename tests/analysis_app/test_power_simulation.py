"""The planner's figures against synthetic launches (issue 29's closing example), and the
coverage of the product's clustered intervals on clustered 0/1 answers: 1,000 seeded draws.

The example: two models, 50 scenarios x 4 questions x 5 repeats (m = 20 answers per scenario
and model), intra-scenario correlation 0.2, base rate 0.3, D = 10 points. By hand:
    DE = 1 + 19 x 0.2 = 4.8
    Var(rate) = 0.3 x 0.7 x 4.8 / (50 x 20) = 0.001008, se = 0.0317490
    half-width = 1.959964 x 0.0317490 = 0.062227 (6.22 points)
    se of the difference = 0.0317490 x sqrt 2 = 0.0448999; D / se = 2.227177
    power = Phi(2.227177 - 1.959964) + Phi(-2.227177 - 1.959964) = 0.605347 + 0.000014 = 0.605361
(50 scenarios, not 200: at 200 the power for 10 points is 0.995, which a simulation cannot
tell from 1; 200 scenarios reach the same 0.605 for D = 5 points, since se halves.)
"""

import math

import pytest

from analysis_app.metrics.power import plan, simulate

EXAMPLE = dict(scenarios=50, questions_per_scenario=4, repeats=5, models=2, icc=0.2, rate=0.3, difference=0.10)


@pytest.fixture(scope="module")
def example():
    figures = plan(**EXAMPLE)
    return figures, simulate(figures, draws=10_000, seed=29, resamples=1000, bootstrap_draws=4000)


def test_the_example_by_hand():
    figures = plan(**EXAMPLE)
    assert figures.per_scenario == 20 and figures.design_effect == pytest.approx(4.8)
    assert figures.half_width == pytest.approx(1.959964 * math.sqrt(0.001008), abs=1e-6)
    assert figures.half_width == pytest.approx(0.062227, abs=1e-6)
    assert figures.power == pytest.approx(0.605361, abs=1e-5)


def test_the_planned_half_width_is_the_spread_of_simulated_headline_rates(example):
    """Under the beta-binomial model the planner's variance is exact, so only Monte Carlo error
    separates them: the sd of 10,000 near-normal means has relative se 1 / sqrt(2 x 10,000) =
    0.7 %; 2.5 % is 3.5 of those. Simulated (seed 29): 0.06277 against 0.06223."""
    figures, simulated = example
    assert simulated.spread_half_width == pytest.approx(figures.half_width, rel=0.025)


def test_the_product_intervals_are_as_wide_as_planned(example):
    """The intervals computed from each launch's own data run about 1.5-2 % narrower than the
    truth at 50 scenarios: Miller's SE divides by S, not S - 1 (sqrt(49/50) = 0.990), and the
    mean of an estimated sd falls short of the sd (about 1 / (4 x 49) = 0.5 %). 4 % allows that
    and the Monte Carlo error (< 1 %). Simulated: 0.06128 (clustered SE), 0.06109 (bootstrap)."""
    figures, simulated = example
    assert simulated.se_half_width == pytest.approx(figures.half_width, rel=0.04)
    assert simulated.bootstrap_half_width == pytest.approx(figures.half_width, rel=0.04)


def test_the_planned_power_is_the_simulated_rejection_rate(example):
    """Models at 0.25 and 0.35 (base rate 0.3 -+ 5 points). The Monte Carlo se of a rejection
    rate near 0.6 is sqrt(0.6 x 0.4 / 10,000) = 0.005 (the z-test on the clustered SE) and
    sqrt(0.6 x 0.4 / 4,000) = 0.008 (the paired bootstrap). On top of that the tests with an
    estimated se run a little above their nominal 5 % at 50 scenarios (simulated size 6.0 %),
    which adds about a point of power. 0.03 allows both (about 4 Monte Carlo se for the
    bootstrap). Simulated: 0.616 (SE) and 0.623 (bootstrap) against the planned 0.605."""
    figures, simulated = example
    assert simulated.se_power == pytest.approx(figures.power, abs=0.03)
    assert simulated.bootstrap_power == pytest.approx(figures.power, abs=0.03)
    # the level the planner assumes, within the small-sample excess and Monte Carlo error (se 0.002)
    assert 0.045 <= simulated.se_size <= 0.07


def test_95_percent_intervals_cover_the_truth_on_clustered_answers():
    """1,000 seeded synthetic launches of clustered 0/1 answers (200 scenarios x 20 answers,
    ICC 0.2, rate 0.3; beta-binomial): the 95 % cluster-bootstrap interval (1,000 resamples,
    the scenario-normalised mean) and the rate +- 1.96 Miller SE each cover the true 0.3 in
    93-97 % of them (binomial se of a 95 % share over 1,000 draws: 0.7 points). Simulated:
    94.5 % both. (The normal-data version: tests/analysis_app/test_stats_clustered.py.)"""
    figures = plan(200, 4, 5, 2, icc=0.2, rate=0.3, difference=0.05)
    simulated = simulate(figures, draws=1000, seed=29, resamples=1000, bootstrap_draws=1000)
    assert 0.93 <= simulated.bootstrap_coverage <= 0.97
    assert 0.93 <= simulated.se_coverage <= 0.97


def test_the_simulation_needs_whole_answers_and_a_correlation_inside_0_1():
    with pytest.raises(ValueError):
        simulate(plan(10, 2.5, 1, 2, icc=0.2), draws=10)
    with pytest.raises(ValueError):
        simulate(plan(10, 2, 1, 2, icc=0.0), draws=10)
