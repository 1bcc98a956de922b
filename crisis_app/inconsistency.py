"""Inconsistency of free-form answers, and its summary over runs.

The inconsistency of two answers is ``clip(1 - rescaled F1, 0, 1)``, with the BERTScore
F1 rescaled by a baseline ``b`` (the F1 of unrelated texts): ``(F1 - b) / (1 - b)``.
Identical answers score 0; answers no closer than unrelated text score 1. A group of
samples (the answers to one prompt) scores the mean over all pairs ``i < j``, listed
row-major, ``(0, 1), (0, 2), ..., (1, 2), ...``, the order in which the original
release's npz files store each pair's value.

The scorer is any callable ``scorer(texts, pairs) -> rescaled F1 per pair``, so that a
whole group is scored in one call (the BERTScore scorer encodes each text once) and so
that tests can use a fake scorer with arithmetic done by hand.
"""

from dataclasses import dataclass
from itertools import combinations
from typing import Callable, Sequence

import numpy as np

PairScorer = Callable[[Sequence[str], Sequence[tuple[int, int]]], Sequence[float]]


def pair_indices(n):
    """All pairs ``(i, j)`` with ``i < j < n`` in row-major order."""
    return list(combinations(range(n), 2))


def rescale_f1(f1, baseline):
    """BERTScore's baseline rescaling: ``(F1 - b) / (1 - b)`` (scalar or array)."""
    if not baseline < 1:
        raise ValueError(f"baseline must be below 1, got {baseline}")
    return (np.asarray(f1, dtype=float) - baseline) / (1.0 - baseline)


def inconsistency_from_rescaled_f1(rescaled_f1):
    """``clip(1 - rescaled F1, 0, 1)`` (scalar or array)."""
    return np.clip(1.0 - np.asarray(rescaled_f1, dtype=float), 0.0, 1.0)


def pair_inconsistencies(texts, scorer, pairs=None):
    """Inconsistency of each pair of ``texts`` (default: all pairs, row-major)."""
    if pairs is None:
        pairs = pair_indices(len(texts))
    if not pairs:
        return np.zeros(0)
    rescaled = np.asarray(scorer(list(texts), list(pairs)), dtype=float)
    if rescaled.shape != (len(pairs),):
        raise ValueError(f"scorer returned {rescaled.shape} values for {len(pairs)} pairs")
    return inconsistency_from_rescaled_f1(rescaled)


def group_inconsistency(texts, scorer):
    """Mean inconsistency over all pairs of a group's samples."""
    if len(texts) < 2:
        raise ValueError(f"a group needs at least 2 samples to compare, got {len(texts)}")
    return float(pair_inconsistencies(texts, scorer).mean())


def kendall_tau_distance(ranking_a, ranking_b):
    """Share of item pairs that the two rankings order differently (0 same, 1 reversed).

    A ranking lists the same items best first; ties are not supported.
    """
    ranking_a, ranking_b = list(ranking_a), list(ranking_b)
    if len(set(ranking_a)) != len(ranking_a) or len(set(ranking_b)) != len(ranking_b):
        raise ValueError("a ranking lists each item once")
    if set(ranking_a) != set(ranking_b):
        raise ValueError(
            f"rankings rank different items: {sorted(map(str, set(ranking_a) ^ set(ranking_b)))}"
        )
    if len(ranking_a) < 2:
        raise ValueError("a ranking of fewer than 2 items has no pairs to compare")
    position_b = {item: k for k, item in enumerate(ranking_b)}
    pairs = list(combinations(ranking_a, 2))
    # ranking_a puts x before y; the pair is discordant when ranking_b puts y first.
    discordant = sum(position_b[x] > position_b[y] for x, y in pairs)
    return discordant / len(pairs)


@dataclass(frozen=True)
class RunSummary:
    mean: float
    sd: float
    ci_low: float
    ci_high: float
    n_runs: int
    confidence: float
    n_bootstrap: int
    seed: int


def summarise_runs(run_values, confidence=0.95, n_bootstrap=10_000, seed=0):
    """Mean over runs of each run's mean, the sd of the run means (ddof=1), and a
    percentile bootstrap CI that resamples whole runs with a seeded generator.

    ``run_values`` holds one sequence of values per run (e.g. each run's group
    inconsistencies). Runs, not groups, are resampled: groups within a run share the
    run's conditions and are not independent draws.
    """
    run_means = np.array([np.mean(np.asarray(v, dtype=float)) for v in run_values if len(v)])
    if len(run_means) != len(run_values):
        raise ValueError("every run needs at least one value")
    if len(run_means) == 0:
        raise ValueError("no runs to summarise")
    n = len(run_means)
    sd = float(np.std(run_means, ddof=1)) if n > 1 else float("nan")
    rng = np.random.default_rng(seed)
    resampled = run_means[rng.integers(0, n, size=(n_bootstrap, n))].mean(axis=1)
    tail = (1.0 - confidence) / 2.0 * 100.0
    ci_low, ci_high = np.percentile(resampled, [tail, 100.0 - tail])
    return RunSummary(
        mean=float(run_means.mean()),
        sd=sd,
        ci_low=float(ci_low),
        ci_high=float(ci_high),
        n_runs=n,
        confidence=confidence,
        n_bootstrap=n_bootstrap,
        seed=seed,
    )
