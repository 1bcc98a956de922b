"""One paired contrast over clusters (issue 29, for any family; no Django): the paired
differences d_i of a family's measure (left minus right), each in a cluster (a territory, a
crisis question, a simulation), possibly several per cluster (repeats, questions of one
simulation).

`clustered_difference(d, clusters, iterations, seed)` gives

- estimate: the mean over clusters of each cluster's mean difference (each cluster counts
  once, however many differences it holds: a territory asked in three repeats is one
  territory);
- ci_low, ci_high: the percentile interval of that estimate under a cluster bootstrap (whole
  clusters resampled with replacement). Resampling clusters and averaging their means is
  resampling the cluster means (`clustered.cluster_bootstrap_ci` with estimator
  "cluster_mean" draws from the same distribution), so the means are resampled with
  `bootstrap.resample_means`' index matrix: the multinomial counts took 0.1 s per contrast
  over 250 territories;
- se_clustered: Miller's (2024) clustered standard error of the same estimate: with each
  difference weighted 1 / (its cluster's size), Miller's
  sqrt(sum_c (sum_{i in c} w_i (d_i - mean))^2) / sum w reduces to
  sqrt(sum_c (m_c - mean)^2) / C, m_c the cluster means and C the clusters;
- p_value, p_method: the two-sided sign-flip test of the cluster means m_c (under "no
  difference" each m_c is as likely to be -m_c), exact by enumeration with at most 20
  non-zero cluster means, Monte Carlo otherwise (`exact.sign_flip_tests`);
- n_clusters, n_pairs.

`clustered_differences(items, iterations, seed)` computes many at once: each contrast's
bootstrap from its own generator (`bootstrap.group_rng(seed, key)`), and the Monte Carlo
sign patterns shared by the contrasts over the same number of clusters (one matrix of
`patterns` rows per cluster count, from its own generator: a contrast's p does not move
when others are added), as CFPD's `exact.sign_flip_tests` shares them between categories.

`adjusted(frame, method)` adds p_adjusted and significant across every row of a table (one
family of contrasts: Benjamini–Hochberg by default, Holm on request).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .bootstrap import group_rng, percentile_interval, resample_means
from .clustered import clustered_se
from .exact import sign_flip_tests
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


def _checked(differences, clusters) -> tuple[np.ndarray, np.ndarray]:
    d = np.asarray(differences, dtype=float).ravel()
    clusters = np.asarray(clusters).ravel()
    if len(d) != len(clusters):
        raise ValueError("differences and clusters must have one entry per pair")
    if len(d) == 0:
        raise ValueError("no paired differences")
    if not np.isfinite(d).all():
        raise ValueError("differences must be finite")
    return d, clusters


def _figures(d: np.ndarray, clusters: np.ndarray, means: np.ndarray, iterations: int,
             rng: np.random.Generator) -> dict:
    """Everything but the test: estimate, interval, SE and counts."""
    estimate = float(means.mean())
    if len(means) >= 2:
        _, index, sizes = np.unique(clusters, return_inverse=True, return_counts=True)
        low, high = percentile_interval(resample_means(means, iterations, rng))
        se = clustered_se(d, clusters, weights=1.0 / sizes[index])
        low, high = float(low), float(high)
    else:
        low = high = se = math.nan
    return {"estimate": estimate, "ci_low": low, "ci_high": high, "se_clustered": float(se),
            "n_clusters": int(len(means)), "n_pairs": int(len(d))}


def clustered_differences(items, iterations: int, seed: int, patterns: int = MONTE_CARLO_PATTERNS) -> list[dict]:
    """The figures of many contrasts: `items` is a list of (key, differences, clusters), key
    a tuple naming the contrast (it seeds the contrast's bootstrap)."""
    results, means_of = [], []
    for key, differences, clusters in items:
        d, clusters = _checked(differences, clusters)
        _, means = cluster_means(d, clusters)
        results.append(_figures(d, clusters, means, iterations, group_rng(seed, ("bootstrap",) + tuple(key))))
        means_of.append(means)
    by_size: dict[int, list[int]] = {}
    for position, means in enumerate(means_of):
        by_size.setdefault(len(means), []).append(position)
    for size, positions in by_size.items():
        matrix = np.column_stack([means_of[position] for position in positions])
        flips = sign_flip_tests(matrix, group_rng(seed, ("sign-flip", size)), patterns)
        for position, flip in zip(positions, flips):
            # Every difference 0: no sign pattern to flip ("exact sign-flip (1 patterns)" reads as a bug).
            method = flip.describe() if means_of[position].any() else "every difference 0: p = 1"
            results[position].update(p_value=flip.p_value, p_method=method)
    return [{name: result[name] for name in FIGURES} for result in results]


def clustered_difference(differences, clusters, iterations: int, seed: int = 0,
                         patterns: int = MONTE_CARLO_PATTERNS, key: tuple = ()) -> dict:
    """The figures of one contrast (see the module docstring); NaN interval and SE over one cluster."""
    return clustered_differences([(key, differences, clusters)], iterations, seed, patterns)[0]


def p_floor(n_clusters: int) -> float:
    """The smallest two-sided sign-flip p over n non-zero cluster means: the observed sign
    pattern and its mirror of 2^n, 2 / 2^n (0.25 over 3 clusters, 0.0625 over 5, 0.03125 over 6).
    A family shows it where it forbids significance (the intervals may still miss zero)."""
    return 2.0 / 2 ** int(n_clusters) if n_clusters >= 1 else 1.0


def floor_sentence(counts, unit: str, alpha: float = 0.05) -> str:
    """A sentence for the contrasts whose p cannot reach `alpha` with their number of clusters
    (`unit`: "territories", "clusters"); empty when every one can."""
    counts = [int(n) for n in counts]
    short = [n for n in counts if p_floor(n) > alpha]
    if not short:
        return ""
    fewest = min(short)
    which = ("No contrast here can be significant" if len(short) == len(counts)
             else f"{len(short)} of these {len(counts)} contrasts cannot be significant")
    return (f" {which}: over {fewest} {unit} the sign-flip p cannot fall below 2 / 2^{fewest} = "
            f"{p_floor(fewest):.4g} (at least 6 are needed for {alpha:g}); read the interval, which may still miss "
            f"zero, and add {unit} for a test.")


def adjusted(frame: pd.DataFrame, method: str = "bh", alpha: float = 0.05) -> pd.DataFrame:
    """The table with p_adjusted and significant across all its rows (one family)."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, not {method!r}")
    if frame.empty:
        return frame.assign(p_adjusted=pd.Series(dtype=float), significant=pd.Series(dtype=bool))
    reject, p_adjusted = adjust_p_values(frame["p_value"].to_numpy(dtype=float), method, alpha)
    return frame.assign(p_adjusted=p_adjusted, significant=reject)
