"""Power before launch: how precise will a headline rate be, and how many scenarios does a
difference of D points need? (No Django; the launch plan asks a family for the numbers.)

The headline rate is a scenario-normalised mean: S scenarios, m answers in each (questions
asked per scenario x repeats), all answers to one scenario correlated with intra-scenario
correlation rho (the ICC). For a rate near p:

    Var(rate) = p (1 - p) / (S m) * DE,   DE = 1 + (m - 1) rho   (the design effect, Kish)
    half-width = z_(1 - alpha/2) * sqrt(Var(rate))

which is exact for the beta-binomial model (scenario rates p_s with mean p and
Var(p_s) = rho p (1 - p), m answers each): Var = Var(p_s)/S + E[p_s(1 - p_s)]/(S m).
(Checked by simulation: `simulate` below draws seeded beta-binomial launches and measures the
product's own intervals on them; tests/analysis_app/test_stats_power.py, tests/analysis_app/test_power_simulation.py,
bench/power_check.py.)

A difference between two models on the same scenarios has Var = 2 Var(rate) (1 - r), r
the correlation of the two models' scenario rates; r = 0 (no credit for pairing) unless
given, so the power stated is a floor for the paired analysis. Power of the two-sided
z-test at level alpha to detect a true difference D:

    power = Phi(D / se - z) + Phi(-D / se - z)

With M models the M (M - 1) / 2 pairwise differences are a family; `plan` also states the
power at alpha / pairs (Bonferroni, a floor for Holm's and Benjamini–Hochberg's).

Assumptions stated with every plan: p = 0.5 (the widest interval) unless given; rho
estimated from earlier answers (`estimate_icc`) where there are any, else `DEFAULT_ICC`
= 0.5 (choice-mode models answer one scenario alike across actors and repeats: the
correlation is high; 0.5 is a middle value, stated on the page).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
from scipy.stats import norm

DEFAULT_ICC = 0.5
DEFAULT_DIFFERENCE = 0.10  # 10 percentage points
DEFAULT_RATE = 0.5


def design_effect(per_cluster: float, icc: float) -> float:
    if per_cluster < 1:
        raise ValueError("at least one answer per scenario")
    if not 0 <= icc <= 1:
        raise ValueError("the intra-scenario correlation lies in [0, 1]")
    return 1 + (per_cluster - 1) * icc


def rate_se(clusters: int, per_cluster: float, icc: float, p: float = DEFAULT_RATE) -> float:
    """Standard error of a scenario-normalised rate near p."""
    if clusters < 1:
        raise ValueError("at least one scenario")
    return math.sqrt(p * (1 - p) * design_effect(per_cluster, icc) / (clusters * per_cluster))


def z_value(alpha: float) -> float:
    return float(norm.ppf(1 - alpha / 2))


def half_width(clusters: int, per_cluster: float, icc: float, p: float = DEFAULT_RATE,
               alpha: float = 0.05) -> float:
    return z_value(alpha) * rate_se(clusters, per_cluster, icc, p)


def power(difference: float, se_difference: float, alpha: float = 0.05) -> float:
    """Power of the two-sided z-test at level alpha when the true difference is `difference`."""
    if se_difference <= 0:
        return 1.0 if difference else alpha
    z = z_value(alpha)
    shift = abs(difference) / se_difference
    return float(norm.cdf(shift - z) + norm.cdf(-shift - z))


def difference_se(clusters: int, per_cluster: float, icc: float, p: float = DEFAULT_RATE,
                  correlation: float = 0.0) -> float:
    return rate_se(clusters, per_cluster, icc, p) * math.sqrt(2 * (1 - correlation))


def clusters_for_half_width(target: float, per_cluster: float, icc: float, p: float = DEFAULT_RATE,
                            alpha: float = 0.05) -> int:
    """Fewest scenarios for a headline interval of +-`target` (a rate, 0.10 = 10 points)."""
    if target <= 0:
        raise ValueError("the half-width must be positive")
    need = z_value(alpha) ** 2 * p * (1 - p) * design_effect(per_cluster, icc) / (per_cluster * target ** 2)
    return max(1, math.ceil(need - 1e-9))


def clusters_for_power(difference: float, per_cluster: float, icc: float, p: float = DEFAULT_RATE,
                       alpha: float = 0.05, target_power: float = 0.8, correlation: float = 0.0) -> int:
    """Fewest scenarios for `target_power` to detect `difference` between two models (normal
    approximation, the far tail ignored, then checked upward with `power`)."""
    if difference <= 0:
        raise ValueError("the difference must be positive")
    unit = p * (1 - p) * design_effect(per_cluster, icc) * 2 * (1 - correlation) / per_cluster
    guess = max(1, math.ceil((z_value(alpha) + norm.ppf(target_power)) ** 2 * unit / difference ** 2 - 1e-9))
    while power(difference, math.sqrt(unit / guess), alpha) < target_power:
        guess += 1
    return guess


def estimate_icc(values, clusters, weights=None) -> float:
    """One-way ANOVA estimate of the intra-cluster correlation (Fleiss; for 0/1 codes too):

        MSB = sum_c n_c (ybar_c - ybar)^2 / (C - 1)
        MSW = sum_c sum_i (y_ic - ybar_c)^2 / (N - C)
        n0  = (N - sum_c n_c^2 / N) / (C - 1)
        ICC = (MSB - MSW) / (MSB + (n0 - 1) MSW), clipped to [0, 1]

    NaN when it is undefined (one cluster, one answer per cluster, or no variation at all).
    `weights` count identical rows (n answers a row stands for)."""
    y = np.asarray(values, dtype=float)
    w = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=float)
    keep = w > 0
    y, w, clusters = y[keep], w[keep], np.asarray(clusters)[keep]
    labels, index = np.unique(clusters, return_inverse=True)
    count, total = len(labels), w.sum()
    if count < 2 or total <= count:
        return float("nan")
    sizes = np.bincount(index, weights=w, minlength=count)
    means = np.bincount(index, weights=w * y, minlength=count) / sizes
    grand = (w * y).sum() / total
    msb = (sizes * (means - grand) ** 2).sum() / (count - 1)
    msw = (w * (y - means[index]) ** 2).sum() / (total - count)
    n0 = (total - (sizes ** 2).sum() / total) / (count - 1)
    denominator = msb + (n0 - 1) * msw
    if denominator <= 0:
        return float("nan")
    return float(min(1.0, max(0.0, (msb - msw) / denominator)))


@dataclass(frozen=True)
class Plan:
    scenarios: int
    per_scenario: float  # answers per scenario and model: questions x repeats
    models: int
    icc: float
    icc_source: str  # "estimated from N earlier answers" or "assumed"
    design_effect: float
    rate: float
    difference: float
    alpha: float
    half_width: float
    power: float  # one pair of models at alpha
    comparisons: int
    power_adjusted: float  # at alpha / comparisons (Bonferroni)
    scenarios_for_half_width: int  # for +-difference
    scenarios_for_power: int  # for 80 % power at alpha
    target_power: float

    def as_dict(self) -> dict:
        return asdict(self)


def plan(scenarios: int, questions_per_scenario: float, repeats: int, models: int, icc: float | None = None,
         icc_source: str = "", difference: float = DEFAULT_DIFFERENCE, rate: float = DEFAULT_RATE,
         alpha: float = 0.05, target_power: float = 0.8) -> Plan:
    """The planner's figures for one launch (see the module's docstring for the formulas)."""
    if icc is None or not math.isfinite(icc):
        icc, icc_source = DEFAULT_ICC, "assumed: no earlier answers to estimate it from"
    per_scenario = questions_per_scenario * repeats
    comparisons = max(1, models * (models - 1) // 2)
    se_diff = difference_se(scenarios, per_scenario, icc, rate)
    return Plan(
        scenarios=scenarios, per_scenario=per_scenario, models=models, icc=icc, icc_source=icc_source or "given",
        design_effect=design_effect(per_scenario, icc), rate=rate, difference=difference, alpha=alpha,
        half_width=half_width(scenarios, per_scenario, icc, rate, alpha),
        power=power(difference, se_diff, alpha), comparisons=comparisons,
        power_adjusted=power(difference, se_diff, alpha / comparisons),
        scenarios_for_half_width=clusters_for_half_width(difference, per_scenario, icc, rate, alpha),
        scenarios_for_power=clusters_for_power(difference, per_scenario, icc, rate, alpha, target_power),
        target_power=target_power)


@dataclass(frozen=True)
class Simulation:
    """A plan's figures measured on synthetic launches (`simulate`)."""
    draws: int
    resamples: int
    seed: int
    spread_half_width: float  # z x the standard deviation of the simulated headline rates
    se_half_width: float  # mean of z x the clustered (Miller) standard error
    bootstrap_half_width: float  # mean half-width of the 95 % cluster-bootstrap interval
    se_coverage: float  # share of the rate +- z x clustered SE intervals that hold the true rate
    bootstrap_coverage: float
    se_power: float  # share of launches in which the z-test on the clustered SE of the paired difference rejects
    bootstrap_power: float  # share in which the paired cluster-bootstrap interval excludes 0
    se_size: float  # the same z-test when the two models do not differ (its real level)

    def as_dict(self) -> dict:
        return asdict(self)


def simulate(figures: Plan, draws: int = 10_000, seed: int = 29, resamples: int = 1000,
             bootstrap_draws: int = 4000) -> Simulation:
    """Synthetic launches under the planner's own model, to check its figures: beta-binomial
    answers, S scenarios with rates p_s ~ Beta(p k, (1 - p) k), k = 1 / ICC - 1 (so Var(p_s) =
    ICC p (1 - p): the answers to one scenario correlate by ICC), m = questions x repeats
    answers each; the headline rate is the scenario-normalised mean. Two models on the same
    scenarios, drawn independently, at p -+ D / 2 (so their variances average p (1 - p) - D^2 / 4,
    the planner's p (1 - p) to within D^2 / 4). The intervals are the product's own
    (`clustered.clustered_se`, `clustered.cluster_bootstrap_means`, estimator "cluster_mean");
    the bootstrap over the first `bootstrap_draws` launches, `resamples` resamples each (one
    multinomial table shared by all launches: one matrix product). Seeded: the same figures
    every time. Needs a whole number of answers per scenario and 0 < ICC < 1."""
    from .bootstrap import percentile_interval
    from .clustered import cluster_bootstrap_means, clustered_se

    m, p, d, icc = figures.per_scenario, figures.rate, figures.difference, figures.icc
    if m != int(m) or not 0 < icc < 1:
        raise ValueError("the simulation needs whole answers per scenario and an ICC strictly between 0 and 1")
    m, scenarios = int(m), figures.scenarios
    rng = np.random.default_rng(seed)
    k = 1 / icc - 1
    z = z_value(figures.alpha)
    labels = np.arange(scenarios)

    def launches(rate: float) -> np.ndarray:
        """(scenarios, draws) scenario rates: one column per simulated launch."""
        return rng.binomial(m, rng.beta(rate * k, (1 - rate) * k, size=(scenarios, draws))) / m

    def bootstrap(columns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        means = cluster_bootstrap_means(columns[:, :bootstrap_draws], labels, resamples, rng, estimator="cluster_mean")
        return percentile_interval(means, 1 - figures.alpha)

    single = launches(p)
    rates, se = single.mean(axis=0), clustered_se(single, labels)
    low, high = bootstrap(single)
    difference = launches(p - d / 2) - launches(p + d / 2)
    d_low, d_high = bootstrap(difference)
    null = launches(p) - launches(p)
    return Simulation(
        draws=draws, resamples=resamples, seed=seed,
        spread_half_width=float(z * rates.std()), se_half_width=float(z * se.mean()),
        bootstrap_half_width=float(((high - low) / 2).mean()),
        se_coverage=float((np.abs(rates - p) <= z * se).mean()),
        bootstrap_coverage=float(((low <= p) & (p <= high)).mean()),
        se_power=float((np.abs(difference.mean(axis=0)) > z * clustered_se(difference, labels)).mean()),
        bootstrap_power=float(((d_low > 0) | (d_high < 0)).mean()),
        se_size=float((np.abs(null.mean(axis=0)) > z * clustered_se(null, labels)).mean()))
