"""Paired tests with exact p-values where they are cheap.

- `sign_flip_test`: the two-sided paired permutation test by sign flipping (under "no
  difference" each d_i is as likely to be -d_i). Differences of exactly 0 are dropped
  (flipping them changes nothing: every count doubles, the share stays). With k non-zero
  differences and k <= `exact_limit` (20: 2^20 ≈ 1 million patterns) every one of the 2^k
  sign patterns is enumerated and p = #{|sum(s*d)| >= |sum(d)|} / 2^k exactly (the
  observed pattern is among them, so p > 0; never below 2 / 2^k since -pattern ties it).
  Otherwise `iterations` random patterns give the add-one estimate (1 + b) / (m + 1)
  (Phipson and Smyth 2010) with its Monte Carlo standard error sqrt(p(1 - p) / m) stated.
  The sums of all patterns are built by doubling (s + d_i, s - d_i), 2^k floats, no 2^k x k
  matrix. Ties are judged with the tolerance of `paired.TIE_TOLERANCE`.
- `discordant_pairs_test`: for two codes per pair (chose the category or not), the exact
  McNemar test: of the b + c discordant pairs, b went one way; p is the two-sided exact
  binomial test of b against Binomial(b + c, 1/2) (scipy.stats.binomtest). On differences in
  {-1, 0, 1} it is the same number as the exact sign-flip test (tested).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import binomtest

from .paired import TIE_TOLERANCE

EXACT_LIMIT = 20


@dataclass(frozen=True)
class SignFlip:
    p_value: float
    method: str  # "exact" or "monte carlo"
    patterns: int  # 2^k enumerated, or the random patterns drawn
    mc_se: float  # 0 when exact

    def describe(self) -> str:
        if self.method == "exact":
            return f"exact sign-flip ({self.patterns} patterns)"
        return f"Monte Carlo sign-flip ({self.patterns} patterns, MC se {self.mc_se:.4f})"


def _at_least(statistics: np.ndarray, observed: float) -> int:
    return int((np.abs(statistics) >= abs(observed) * (1 - TIE_TOLERANCE) - TIE_TOLERANCE).sum())


def sign_flip_test(differences, rng: np.random.Generator | None = None, iterations: int = 100_000,
                   exact_limit: int = EXACT_LIMIT) -> SignFlip:
    """Two-sided sign-flip p-value of the mean of `differences` (1-D): exact or Monte Carlo."""
    d = np.asarray(differences, dtype=float).ravel()
    if not np.isfinite(d).all():
        raise ValueError("differences must be finite")
    d = d[d != 0]
    k = len(d)
    if k == 0:
        return SignFlip(1.0, "exact", 1, 0.0)
    observed = d.sum()
    if k <= exact_limit:
        sums = np.zeros(1)
        for value in d:
            sums = np.concatenate((sums + value, sums - value))
        return SignFlip(_at_least(sums, observed) / sums.size, "exact", int(sums.size), 0.0)
    if rng is None:
        raise ValueError(f"{k} non-zero differences need Monte Carlo patterns: pass rng")
    signs = rng.integers(0, 2, size=(iterations, k)) * 2.0 - 1.0
    extreme = _at_least(signs @ d, observed)
    p = (extreme + 1) / (iterations + 1)
    return SignFlip(float(p), "monte carlo", iterations, float(np.sqrt(p * (1 - p) / iterations)))


def sign_flip_tests(differences, rng: np.random.Generator, iterations: int = 100_000,
                    exact_limit: int = EXACT_LIMIT) -> list[SignFlip]:
    """`sign_flip_test` of each column of `differences` (rows: the pairs): exact where the
    column has at most `exact_limit` non-zero differences; the other columns share one
    matrix of `iterations` random sign patterns (a zero difference adds nothing under
    either sign, so the zeros need no dropping there)."""
    d = np.asarray(differences, dtype=float).reshape(len(differences), -1)
    if not np.isfinite(d).all():
        raise ValueError("differences must be finite")
    nonzero = (d != 0).sum(axis=0)
    results: list[SignFlip | None] = [sign_flip_test(d[:, j]) if nonzero[j] <= exact_limit else None
                                      for j in range(d.shape[1])]
    sampled = [j for j, result in enumerate(results) if result is None]
    if sampled:
        signs = rng.integers(0, 2, size=(iterations, d.shape[0])) * 2.0 - 1.0
        statistics = signs @ d[:, sampled]
        for column, j in enumerate(sampled):
            p = (_at_least(statistics[:, column], d[:, j].sum()) + 1) / (iterations + 1)
            results[j] = SignFlip(float(p), "monte carlo", iterations, float(np.sqrt(p * (1 - p) / iterations)))
    return results


@dataclass(frozen=True)
class Discordant:
    left_only: int  # b: pairs where left has the code and right has not
    right_only: int  # c
    p_value: float


def discordant_pairs_test(left, right) -> Discordant:
    """Exact McNemar test on paired booleans (the same units coded twice)."""
    left, right = np.asarray(left, dtype=bool), np.asarray(right, dtype=bool)
    if left.shape != right.shape:
        raise ValueError("left and right must pair one to one")
    b, c = int((left & ~right).sum()), int((~left & right).sum())
    p = 1.0 if b + c == 0 else float(binomtest(b, b + c, 0.5).pvalue)
    return Discordant(b, c, min(p, 1.0))
