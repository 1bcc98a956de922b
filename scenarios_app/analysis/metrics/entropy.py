"""Response entropy (paper 000, appendix B.3).

    H(S) = - sum_i p(i) log2 p(i)

- p(i) is the share of category i among one scenario's answers by one model in one
  sampling pass (a (run, repeat) pair). Refusals are removed before the shares are taken
  ("conditioned on the model not refusing"), as are unresolved and missing rows. The
  counts behind the shares are sums of the weight column n (`tidy.weights`).
- A scenario's entropy is the mean over the passes that answered it ("for models with
  multiple runs, the mean of all runs"); a (model, domain, choice_count) entropy is the
  mean over its scenarios.
- Categories never chosen contribute 0 (0 log 0 = 0), so the set of options offered
  does not change H; the ceiling is log2(choice_count).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .rates import DOMAIN_KEYS, SCENARIO_KEYS
from .tidy import answers, empty_frame, weighted_counts

PASS_KEYS = ["run", "repeat"]


def shannon_entropy(counts) -> float:
    """Entropy in bits of a distribution given as counts (zeros allowed)."""
    counts = np.asarray(counts, dtype=float)
    p = counts[counts > 0] / counts.sum()
    return float(-(p * np.log2(p)).sum()) + 0.0


def pass_entropy(df: pd.DataFrame) -> pd.DataFrame:
    """Entropy per (model, domain, choice_count, scenario, run, repeat); column entropy."""
    keys = SCENARIO_KEYS + PASS_KEYS
    answered = answers(df)
    if answered.empty:
        return empty_frame(keys + ["entropy"])
    counts = weighted_counts(answered, keys + ["category"]).rename("count").reset_index()
    p = counts["count"] / counts.groupby(keys, dropna=False)["count"].transform("sum")
    counts["term"] = -p * np.log2(p)
    entropy = counts.groupby(keys, dropna=False)["term"].sum().rename("entropy").reset_index()
    entropy["entropy"] = entropy["entropy"] + 0.0  # -0.0 (a single category) reads as 0.0
    return entropy


def scenario_entropy(df: pd.DataFrame) -> pd.DataFrame:
    """Entropy per (model, domain, choice_count, scenario), the mean over its passes.

    Columns: the keys, entropy, n_repeats.
    """
    per_pass = pass_entropy(df)
    if per_pass.empty:
        return empty_frame(SCENARIO_KEYS + ["entropy", "n_repeats"])
    grouped = per_pass.groupby(SCENARIO_KEYS, sort=True)["entropy"]
    return grouped.agg(entropy="mean", n_repeats="size").reset_index()


def domain_entropy(df: pd.DataFrame) -> pd.DataFrame:
    """Mean scenario entropy per (model, domain, choice_count); columns entropy, n_scenarios."""
    per_scenario = scenario_entropy(df)
    if per_scenario.empty:
        return empty_frame(DOMAIN_KEYS + ["entropy", "n_scenarios"])
    grouped = per_scenario.groupby(DOMAIN_KEYS, sort=True)["entropy"]
    return grouped.agg(entropy="mean", n_scenarios="size").reset_index()
