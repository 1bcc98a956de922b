"""The intra-scenario correlation of earlier answers, for the planner (issue 29; no Django).

Per (model, domain, choice_count, category), the answers coded 1 when they chose the
category and 0 otherwise, clustered by scenario: the one-way ANOVA estimate
(`analysis_app.metrics.power.estimate_icc`, weighted by n). The benchmark's figure is the
mean of those estimates weighted by the answers behind each; groups where it is undefined
(one scenario, one answer per scenario, no variation) are left out. NaN with no group.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis_app.metrics.power import estimate_icc

from .tidy import answers, category_sets, weights


def scenario_icc(df: pd.DataFrame) -> tuple[float, int]:
    """(pooled ICC, answers it rests on) of the tidy table `df`."""
    answered = answers(df)
    if answered.empty:
        return float("nan"), 0
    sets = category_sets(answered)
    estimates, sizes = [], []
    n = weights(answered)
    for (model, domain, choice_count), rows in answered.groupby(["model", "domain", "choice_count"], sort=True):
        w = n.loc[rows.index].to_numpy(dtype=float)
        for category in sets.get((domain, int(choice_count)), []):
            icc = estimate_icc((rows["category"] == category).to_numpy(dtype=float), rows["scenario"].to_numpy(), w)
            if np.isfinite(icc):
                estimates.append(icc)
                sizes.append(w.sum())
    if not estimates:
        return float("nan"), 0
    # every category of a group rests on the same answers: count them once per group
    total = int(answered.assign(_n=n).groupby(["model", "domain", "choice_count"])["_n"].sum().sum())
    return float(np.average(estimates, weights=sizes)), total
