"""Intervals for clustered data: answers within a scenario are not independent draws, so
the unit resampled (and the unit whose residuals are summed) is the cluster.

- `cluster_bootstrap_ci`: percentile interval of a mean by resampling whole clusters with
  replacement. Two estimators: "pooled" (the mean over all observations of the resampled
  clusters: sum of values / sum of weights, the answer-level mean) and "cluster_mean" (the
  mean of the resampled clusters' own means: the scenario-normalised mean, each cluster
  counting once). With one observation per cluster both are the ordinary bootstrap.
  Vectorised: each resample is a row of multinomial counts of how often each cluster is
  drawn (the same distribution as drawing C indices with replacement), and the resample
  sums are one matrix product.
- `clustered_se`: the clustered standard error of the pooled mean after Miller, "Adding
  Error Bars to Evals" (2024), eq. for SE_clustered:
      SE = sqrt( sum over clusters c of ( sum over i in c of (x_ic - x_bar) )^2 ) / n,
  n the number of observations (the sum of the weights). It equals the unclustered
  sqrt(sum (x_i - x_bar)^2) / n (the CLT standard error with ddof 0) when every cluster
  holds one observation, and is larger when residuals within a cluster share a sign.
"""

from __future__ import annotations

import numpy as np

from .bootstrap import CONFIDENCE, percentile_interval

ESTIMATORS = ("pooled", "cluster_mean")


def cluster_totals(values, clusters, weights=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(labels, weighted sums per cluster (C, k), weights per cluster (C,)) of `values` ((n,) or (n, k))."""
    values = np.asarray(values, dtype=float)
    matrix = values.reshape(len(values), -1)
    w = np.ones(len(values)) if weights is None else np.asarray(weights, dtype=float)
    if len(w) != len(matrix) or len(np.asarray(clusters)) != len(matrix):
        raise ValueError("values, clusters and weights must have one entry per observation")
    if (w < 0).any():
        raise ValueError("weights must be 0 or more")
    labels, index = np.unique(np.asarray(clusters), return_inverse=True)
    sums = np.zeros((len(labels), matrix.shape[1]))
    np.add.at(sums, index, matrix * w[:, None])
    totals = np.bincount(index, weights=w, minlength=len(labels))
    return labels, sums, totals


def _point(sums: np.ndarray, totals: np.ndarray, estimator: str) -> np.ndarray:
    if estimator == "pooled":
        return sums.sum(axis=0) / totals.sum()
    return (sums / totals[:, None]).mean(axis=0)


def cluster_bootstrap_means(values, clusters, iterations: int, rng: np.random.Generator, weights=None,
                            estimator: str = "pooled") -> np.ndarray:
    """Means of `iterations` cluster resamples: (iterations,) for 1-D values, (iterations, k) otherwise."""
    if estimator not in ESTIMATORS:
        raise ValueError(f"estimator must be one of {', '.join(ESTIMATORS)}, not {estimator!r}")
    values = np.asarray(values, dtype=float)
    _, sums, totals = cluster_totals(values, clusters, weights)
    count = len(totals)
    if count == 0:
        raise ValueError("no clusters to resample")
    if (totals <= 0).any() and estimator == "cluster_mean":
        raise ValueError("a cluster with no weight has no mean")
    drawn = rng.multinomial(count, np.full(count, 1.0 / count), size=iterations).astype(float)
    if estimator == "pooled":
        means = (drawn @ sums) / (drawn @ totals)[:, None]
    else:
        means = (drawn @ (sums / totals[:, None])) / count
    return means[:, 0] if values.ndim == 1 else means


def cluster_bootstrap_ci(values, clusters, iterations: int = 2000, seed: int | np.random.Generator = 0,
                         confidence: float = CONFIDENCE, weights=None,
                         estimator: str = "pooled") -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval of the mean of `values` by resampling whole clusters."""
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    return percentile_interval(cluster_bootstrap_means(values, clusters, iterations, rng, weights, estimator),
                               confidence)


def clustered_mean(values, clusters, weights=None, estimator: str = "pooled") -> np.ndarray:
    """The point estimate the bootstrap resamples (pooled or mean of cluster means)."""
    _, sums, totals = cluster_totals(values, clusters, weights)
    point = _point(sums, totals, estimator)
    return point[0] if np.asarray(values).ndim == 1 else point


def clustered_se(values, clusters, weights=None):
    """Miller's (2024) clustered standard error of the pooled (weighted) mean; a float for 1-D
    values, one per column otherwise."""
    values = np.asarray(values, dtype=float)
    matrix = values.reshape(len(values), -1)
    labels, sums, totals = cluster_totals(matrix, clusters, weights)
    n = totals.sum()
    if n <= 0:
        raise ValueError("no observations")
    mean = sums.sum(axis=0) / n
    # Sum of weighted residuals in cluster c: sum_i w_i (x_i - mean) = S_c - W_c * mean.
    residual_sums = sums - totals[:, None] * mean
    se = np.sqrt((residual_sums ** 2).sum(axis=0)) / n
    return float(se[0]) if values.ndim == 1 else se


def unpaired_difference_ci(left, right, iterations: int = 2000, seed: int | np.random.Generator = 0,
                           confidence: float = CONFIDENCE) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval of mean(left) - mean(right) with the two sets of cluster values
    resampled independently: what the interval would be if the pairing were ignored (for
    comparison with the paired one; it is narrower only when the pairs are negatively
    correlated)."""
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    left, right = np.asarray(left, dtype=float), np.asarray(right, dtype=float)
    drawn_left = cluster_bootstrap_means(left, np.arange(len(left)), iterations, rng, estimator="cluster_mean")
    drawn_right = cluster_bootstrap_means(right, np.arange(len(right)), iterations, rng, estimator="cluster_mean")
    return percentile_interval(drawn_left - drawn_right, confidence)


def two_way_clustered_se(values, first, second, weights=None) -> float:
    """Standard error of the weighted mean of `values` clustered two ways at once (people's
    answers: by respondent and by scenario), after Cameron, Gelbach and Miller, "Robust
    inference with multiway clustering" (2011): V = V_first + V_second − V_both, each term
    Miller's clustered variance (`clustered_se` squared) with the clusters of one way, of the
    other, and of their intersection. Where the difference is negative (it can be, in small
    samples) the larger one-way variance stands in, as Cameron, Gelbach and Miller
    advise. It equals `clustered_se` by one way when the other way's clusters are single
    observations (V_second = V_both)."""
    first, second = np.asarray(first), np.asarray(second)
    both = np.array([f"{a}\x1f{b}" for a, b in zip(first.tolist(), second.tolist())], dtype=object)
    one, two, joint = (clustered_se(values, clusters, weights) ** 2 for clusters in (first, second, both))
    variance = one + two - joint
    if variance < -1e-12 * max(one, two, joint):  # negative beyond rounding: the larger one-way variance
        variance = max(one, two)
    return float(np.sqrt(max(variance, 0.0)))


def two_way_difference(values, left, first, second, weights=None) -> tuple[float, float, float]:
    """(estimate, SE, two-sided p) of mean_left − mean_right, the weighted means of `values`
    where `left` is true and where it is false, with the standard error clustered two ways
    (`first`, `second`: e.g. respondent and scenario) by statsmodels: the coefficient of
    `left` in a weighted least squares of the values on a constant and `left`, its sandwich
    covariance clustered by both ways at once (Cameron, Gelbach and Miller 2011; statsmodels'
    `cov_type="cluster"` with two columns of groups), without small-sample corrections, so
    that with one way of singleton clusters it is `clustered_se`'s variance of each mean,
    summed with the covariance the shared clusters carry. Observations of both sides in one
    cluster (a scenario a panel and a model both answered) make the two means covary: the
    pairing enters the interval. Where the two-way variance is not positive (small samples)
    the larger one-way variance stands in, as in `two_way_clustered_se`. The p-value is the
    normal one (z = estimate / SE); NaN where the SE is 0."""
    from statsmodels.regression.linear_model import WLS  # where used: a 1 s import, once a process
    from scipy.stats import norm

    values = np.asarray(values, dtype=float)
    left = np.asarray(left, dtype=bool)
    w = np.ones(len(values)) if weights is None else np.asarray(weights, dtype=float)
    if not (left.any() and (~left).any()):
        raise ValueError("both sides need an observation")
    design = np.column_stack([np.ones(len(values)), left.astype(float)])
    _, first_codes = np.unique(np.asarray(first), return_inverse=True)
    _, second_codes = np.unique(np.asarray(second), return_inverse=True)
    model = WLS(values, design, weights=w)

    def variance(groups) -> float:
        fitted = model.fit(cov_type="cluster", cov_kwds={"groups": groups, "use_correction": False,
                                                          "df_correction": False})
        return float(fitted.cov_params()[1, 1]), float(fitted.params[1])

    both, estimate = variance(np.column_stack([first_codes, second_codes]))
    if not both > 0:
        both = max(variance(first_codes)[0], variance(second_codes)[0], 0.0)
    se = float(np.sqrt(both))
    p_value = float(2 * norm.sf(abs(estimate) / se)) if se > 0 else float("nan")
    return estimate, se, p_value
