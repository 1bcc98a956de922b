"""Percentile bootstrap intervals of a mean (paper 000, section 4.1): rows resampled with
replacement, the mean recomputed per resample, the 2.5th and 97.5th percentiles of those
means. A family decides what a row is (CFPD resamples its scenarios).

- A row may carry several values at once (k columns), so that one resample gives a
  consistent set of them (a scenario's rate of every category, which still sum to 1).
- One index matrix `rng.integers(0, n, size=(iterations, n))` is drawn per group and
  the resample means are built with whole-array numpy operations (2,000 iterations
  over 400 scenarios x 3 categories take about 12 ms; bench/bootstrap_speed.py).
  Percentiles use numpy's default linear interpolation.
- Each group (e.g. model, domain, choice_count) gets its own generator seeded from
  `seed` and the group's key, so a group's interval does not move when other models or
  domains are added to the table, and two calls with the same seed agree exactly.
"""

from __future__ import annotations

import zlib
from collections.abc import Hashable

import numpy as np

CONFIDENCE = 0.95


def group_rng(seed: int, key: Hashable) -> np.random.Generator:
    """A generator for one group, stable across runs and independent of other groups."""
    parts = key if isinstance(key, tuple) else (key,)
    label = "\x1f".join(str(part) for part in parts).encode()
    return np.random.default_rng([int(seed), zlib.crc32(label)])


def resample_means(values: np.ndarray, iterations: int, rng: np.random.Generator) -> np.ndarray:
    """Means of `iterations` resamples (with replacement) of the rows of `values`.

    `values` is (n,) or (n, k); the result is (iterations,) or (iterations, k).
    """
    values = np.asarray(values, dtype=float)
    n = values.shape[0]
    index = rng.integers(0, n, size=(iterations, n))
    if iterations > 1 and values.ndim in (1, 2) and values.size:
        # Per category, the draws gathered as (n, iterations) and summed over the first
        # axis: numpy adds whole rows in draw order there, so the means are bit-identical
        # to the loop below (a sum along the last axis would be pairwise: other bits), in
        # one call per category instead of one per scenario.
        drawn = np.ascontiguousarray(index.T)
        if values.ndim == 1:
            return values[drawn].sum(axis=0) / n
        columns = [np.ascontiguousarray(values[:, j])[drawn].sum(axis=0) for j in range(values.shape[1])]
        return np.stack(columns, axis=1).reshape((iterations,) + values.shape[1:]) / n
    # The s-th draw of every resample gathered and added at once, in draw order.
    total = np.zeros((iterations,) + values.shape[1:])
    for draws in index.T:
        total += values[draws]
    return total / n


def percentile_interval(means: np.ndarray, confidence: float = CONFIDENCE) -> tuple[np.ndarray, np.ndarray]:
    """The (low, high) percentiles of bootstrap means along the first axis."""
    tail = round(50 * (1 - confidence), 10)  # 2.5 exactly for 0.95, not 2.5000000000000022
    low, high = np.percentile(means, [tail, 100 - tail], axis=0)
    return low, high


def bootstrap_ci(values: np.ndarray, iterations: int = 2000, seed: int | np.random.Generator = 0,
                 confidence: float = CONFIDENCE) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval of the mean of `values` (rows = the units resampled) by resampling rows."""
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    return percentile_interval(resample_means(values, iterations, rng), confidence)
