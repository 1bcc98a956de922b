"""One paired contrast over clusters (issue 29, for any family; no Django): the paired
differences d_i of a family's measure (left minus right), each in a cluster (a territory, a
crisis question, a simulation), possibly several per cluster (repeats, questions of one
simulation).

`clustered_difference(d, clusters, iterations, rng)` gives

- estimate: the mean over clusters of each cluster's mean difference (each cluster counts
  once, however many differences it holds: a territory asked in three repeats is one
  territory);
- ci_low, ci_high: the percentile interval of that estimate under a cluster bootstrap (whole
  clusters resampled with replacement, `clustered.cluster_bootstrap_ci`, estimator
  "cluster_mean");
- se_clustered: Miller's (2024) clustered standard error of the same estimate: with each
  difference weighted 1 / (its cluster's size), Miller's
  sqrt(sum_c (sum_{i in c} w_i (d_i - mean))^2) / sum w reduces to
  sqrt(sum_c (m_c - mean)^2) / C, m_c the cluster means and C the clusters;
- p_value, p_method: the two-sided sign-flip test of the cluster means m_c (under "no
  difference" each m_c is as likely to be -m_c), exact by enumeration with at most 20
  non-zero cluster means, Monte Carlo otherwise (`exact.sign_flip_test`);
- n_clusters, n_pairs.

`adjusted(frame, method)` adds p_adjusted and significant across every row of a table (one
family of contrasts: Benjamini–Hochberg by default, Holm on request).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .clustered import cluster_bootstrap_ci, clustered_se
from .exact import sign_flip_test
from .multiplicity import METHODS, adjust_p_values

FIGURES = ["estimate", "ci_low", "ci_high", "se_clustered", "p_value", "p_method", "n_clusters", "n_pairs"]
MONTE_CARLO_PATTERNS = 100_000


def cluster_means(differences, clusters) -> tuple[np.ndarray, np.ndarray]:
    """(labels sorted, each cluster's mean difference)."""
    d = np.asarray(differences, dtype=float)
    labels, index = np.unique(np.asarray(clusters), return_inverse=True)
    sums = np.bincount(index, weights=d, minlength=len(labels))
    sizes = np.bincount(index, minlength=len(labels))
    return labels, sums / sizes


def clustered_difference(differences, clusters, iterations: int, rng: np.random.Generator,
                         patterns: int = MONTE_CARLO_PATTERNS) -> dict:
    """The figures of one contrast (see the module docstring); NaN interval and SE over one cluster."""
    d = np.asarray(differences, dtype=float).ravel()
    clusters = np.asarray(clusters).ravel()
    if len(d) != len(clusters):
        raise ValueError("differences and clusters must have one entry per pair")
    if len(d) == 0:
        raise ValueError("no paired differences")
    if not np.isfinite(d).all():
        raise ValueError("differences must be finite")
    labels, means = cluster_means(d, clusters)
    estimate = float(means.mean())
    if len(labels) >= 2:
        _, index, sizes = np.unique(clusters, return_inverse=True, return_counts=True)
        low, high = cluster_bootstrap_ci(d, clusters, iterations, rng, estimator="cluster_mean")
        se = clustered_se(d, clusters, weights=1.0 / sizes[index])
        low, high = float(low), float(high)
    else:
        low = high = se = math.nan
    flip = sign_flip_test(means, rng, patterns)
    return {"estimate": estimate, "ci_low": low, "ci_high": high, "se_clustered": float(se),
            "p_value": flip.p_value, "p_method": flip.describe(), "n_clusters": int(len(labels)),
            "n_pairs": int(len(d))}


def adjusted(frame: pd.DataFrame, method: str = "bh", alpha: float = 0.05) -> pd.DataFrame:
    """The table with p_adjusted and significant across all its rows (one family)."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, not {method!r}")
    if frame.empty:
        return frame.assign(p_adjusted=pd.Series(dtype=float), significant=pd.Series(dtype=bool))
    reject, p_adjusted = adjust_p_values(frame["p_value"].to_numpy(dtype=float), method, alpha)
    return frame.assign(p_adjusted=p_adjusted, significant=reject)
