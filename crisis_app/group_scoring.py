"""Pure pieces of scoring groups of samples (no Django): several groups in one scorer
call, Kendall-τ groups of rankings, and whether two scorer configurations are the same.

A group is the samples of one prompt, ordered by repeat; its pairs are ``i < j``
row-major (``inconsistency.pair_indices``). Groups are scored together so that the
encoder's batches are full: the texts of up to ``groups_per_call`` groups are
concatenated, each group's pairs are offset by the number of texts before it, and the
scorer is called once (the BERTScore scorer encodes each distinct text once per call).
Batching does not change a pair's value: a text is encoded alone, padding is masked.
Only an idf scorer depends on the texts of its call (idf is computed over them), so an
idf scorer is called one group at a time.
"""

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .inconsistency import PairScorer, inconsistency_from_rescaled_f1, kendall_tau_distance, pair_indices

GROUPS_PER_CALL = 20

# The keys that say whether two BERTScore scorers score alike. Versions of packages are
# stored beside them but may move on without changing the scorer's meaning.
COMPARED_KEYS = ("model_name", "num_layers", "idf", "precision", "baseline_f1")
# What a stored configuration without the key meant: scorers stored before precision was
# recorded computed in float32.
STORED_DEFAULTS = {"precision": "float32"}
# A computed baseline is recomputed each time the encoder is loaded; its last digits
# vary with the thread count and the BLAS, not with the scorer.
BASELINE_TOLERANCE = 1e-6


@dataclass(frozen=True)
class GroupValues:
    pair_values: list[float]
    mean: float


def _group_values(values):
    values = [float(v) for v in values]
    return GroupValues(values, float(np.mean(values)))


def score_text_groups(groups: Sequence[Sequence[str]], scorer: PairScorer,
                      groups_per_call: int = GROUPS_PER_CALL) -> list[GroupValues]:
    """Inconsistency of every pair of every group (each of at least 2 texts) and each
    group's mean, calling ``scorer`` once per ``groups_per_call`` groups."""
    for k, group in enumerate(groups):
        if len(group) < 2:
            raise ValueError(f"group {k} has {len(group)} sample(s); a group needs at least 2")
    results = []
    for start in range(0, len(groups), max(1, groups_per_call)):
        batch = groups[start : start + max(1, groups_per_call)]
        texts, pairs, sizes = [], [], []
        for group in batch:
            offset = len(texts)
            group_pairs = pair_indices(len(group))
            pairs.extend((offset + i, offset + j) for i, j in group_pairs)
            texts.extend(group)
            sizes.append(len(group_pairs))
        rescaled = np.asarray(scorer(texts, pairs), dtype=float)
        if rescaled.shape != (len(pairs),):
            raise ValueError(f"scorer returned {rescaled.shape} values for {len(pairs)} pairs")
        values = inconsistency_from_rescaled_f1(rescaled)
        position = 0
        for size in sizes:
            results.append(_group_values(values[position : position + size]))
            position += size
    return results


def score_ranking_group(rankings: Sequence[Sequence[str]]) -> GroupValues:
    """Kendall-τ distance of every pair of rankings (row-major) and their mean."""
    if len(rankings) < 2:
        raise ValueError(f"a group needs at least 2 rankings, got {len(rankings)}")
    return _group_values(kendall_tau_distance(rankings[i], rankings[j]) for i, j in pair_indices(len(rankings)))


def config_differences(stored: dict, current: dict, keys: Sequence[str] = COMPARED_KEYS) -> list[str]:
    """What differs between a stored scorer configuration and the current one, one
    ``"key: stored … , now …"`` line per differing key ([] when they score alike)."""
    differences = []
    for key in keys:
        old, new = stored.get(key, STORED_DEFAULTS.get(key)), current.get(key, STORED_DEFAULTS.get(key))
        if key == "baseline_f1" and isinstance(old, (int, float)) and isinstance(new, (int, float)):
            if math.isclose(old, new, rel_tol=0, abs_tol=BASELINE_TOLERANCE):
                continue
        elif old == new:
            continue
        differences.append(f"{key}: stored {old!r}, now {new!r}")
    return differences
