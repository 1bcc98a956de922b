"""Bootstrap confidence intervals over scenarios (paper 000, section 4.1).

"Resampling the set of scenarios with replacement and recalculating the mean response
rate for each bootstrap sample; the 2.5th and 97.5th percentiles of these bootstrap
distributions provided the 95% confidence intervals."

The unit resampled is the scenario, with its rate for every category of the group at
once, so one resample gives a consistent set of category rates (they still sum to 1).
The resampling itself is `analysis_app.metrics.bootstrap` (one generator per group).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from analysis_app.metrics.bootstrap import CONFIDENCE, bootstrap_ci, group_rng

from .tidy import empty_frame


def scenario_bootstrap(per_scenario: pd.DataFrame, iterations: int = 2000, seed: int = 0,
                       group: Sequence[str] = ("model", "domain", "choice_count"),
                       confidence: float = CONFIDENCE) -> pd.DataFrame:
    """CI of the scenario-normalised rate per (*group, category) from `rates.scenario_rates`.

    Columns: the group keys, category, ci_low, ci_high, iterations.
    """
    group = list(group)
    columns = group + ["category", "ci_low", "ci_high", "iterations"]
    if per_scenario.empty:
        return empty_frame(columns)
    # One row per scenario, one column per category; categories outside a group's set
    # are NaN and dropped per group (inside the set, rates are zero-filled already).
    matrix = per_scenario.pivot(index=group + ["scenario"], columns="category", values="rate")
    parts = []
    for key, block in matrix.groupby(level=group, sort=True):
        block = block.dropna(axis=1, how="all")
        low, high = bootstrap_ci(block.to_numpy(), iterations, group_rng(seed, key), confidence)
        part = pd.DataFrame({"category": block.columns, "ci_low": low, "ci_high": high})
        for name, value in zip(group, key if isinstance(key, tuple) else (key,)):
            part[name] = value
        parts.append(part)
    result = pd.concat(parts, ignore_index=True)
    result["iterations"] = iterations
    return result[columns]
