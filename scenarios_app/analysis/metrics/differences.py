"""Are two models' preferences different? (paper 000, sections 4.1 and 5)

For each pair of models (model_a before model_b in sorted order) and each (domain,
choice_count, category), on the scenarios both models answered:

- d_s = rate_a(s) - rate_b(s), the paired per-scenario difference of normalised rates;
  `diff` is the mean of d_s (so it can differ from the difference of the two domain
  rates when the models answered different scenarios);
- ci_low, ci_high: percentile bootstrap of mean(d) over scenarios (as `bootstrap.py`);
- p_value, p_method: two-sided paired permutation test by sign flipping, exact by
  enumerating the 2^k sign patterns when a category's non-zero differences are k <= 20
  (`analysis_app.metrics.exact`; issue 29 counted 2 of 96 significance calls that the
  Monte Carlo estimate turned against enumeration with 6-14 scenarios), else `iterations`
  random patterns
  with the estimate's Monte Carlo error in p_method (identical models, d = 0, give p = 1);
- p_adjusted, significant: Holm's correction (as statsmodels' `multipletests`) across all
  model pairs within each (domain, choice_count, category), at `alpha`.

Sign vectors and resamples are drawn per (pair, domain, choice_count) from generators
seeded with `seed` and that key, shared by the categories of the group.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

from analysis_app.metrics.bootstrap import bootstrap_ci, group_rng
from analysis_app.metrics.exact import sign_flip_tests
from analysis_app.metrics.paired import holm_adjusted

from .rates import scenario_rates
from .tidy import CategorySets, empty_frame

COLUMNS = ["domain", "choice_count", "category", "model_a", "model_b", "diff", "ci_low", "ci_high",
           "p_value", "p_method", "p_adjusted", "significant", "n_scenarios", "iterations"]


def holm(frame: pd.DataFrame, alpha: float) -> pd.DataFrame:
    """Add p_adjusted and significant: Holm across model pairs per (domain, choice_count, category)."""
    p_values = frame["p_value"].to_numpy()
    p_adjusted, significant = np.empty(len(frame)), np.empty(len(frame), dtype=bool)
    for rows in frame.groupby(["domain", "choice_count", "category"], sort=False).indices.values():
        significant[rows], p_adjusted[rows] = holm_adjusted(p_values[rows], alpha)
    return frame.assign(p_adjusted=p_adjusted, significant=significant)


def model_differences(df: pd.DataFrame, iterations: int = 2000, seed: int = 0, alpha: float = 0.05,
                      categories: CategorySets | None = None, per_scenario: pd.DataFrame | None = None) -> pd.DataFrame:
    """Pairwise model differences with bootstrap CI, permutation p-value and Holm correction.
    `per_scenario`: `scenario_rates(df, categories)` when the caller has it already."""
    if per_scenario is None:
        per_scenario = scenario_rates(df, categories)
    if per_scenario.empty:
        return empty_frame(COLUMNS)
    columns = {name: [] for name in ("category", "diff", "ci_low", "ci_high", "p_value", "p_method", "n_scenarios",
                                     "domain", "choice_count", "model_a", "model_b")}
    for (domain, choice_count), block in per_scenario.groupby(["domain", "choice_count"], sort=True):
        table = block.pivot(index=["model", "scenario"], columns="category", values="rate").dropna(axis=1, how="all")
        categories, rates = list(table.columns), table.to_numpy(dtype=float)
        model_of = table.index.get_level_values("model").to_numpy(dtype=object)
        scenario_of = table.index.get_level_values("scenario").to_numpy(dtype=object)
        models = sorted(set(model_of))
        # Each model's scenarios in the pivot's sorted order; the scenarios two models share
        # come out of intersect1d sorted as well, the order the resamples are drawn in.
        rows = {model: np.flatnonzero(model_of == model) for model in models}
        for model_a, model_b in combinations(models, 2):
            common, in_a, in_b = np.intersect1d(scenario_of[rows[model_a]], scenario_of[rows[model_b]],
                                                assume_unique=True, return_indices=True)
            if not len(common):
                continue
            d = rates[rows[model_a][in_a]] - rates[rows[model_b][in_b]]
            key = (model_a, model_b, domain, int(choice_count))
            low, high = bootstrap_ci(d, iterations, group_rng(seed, ("bootstrap",) + key))
            width = len(categories)
            tests = sign_flip_tests(d, group_rng(seed, ("sign-flip",) + key), iterations)
            for name, values in (("category", categories), ("diff", d.mean(axis=0)), ("ci_low", low),
                                 ("ci_high", high),
                                 ("p_value", [test.p_value for test in tests]),
                                 ("p_method", [test.describe() if d[:, j].any() else "every difference 0: p = 1"
                                               for j, test in enumerate(tests)]),
                                 ("n_scenarios", [d.shape[0]] * width), ("domain", [domain] * width),
                                 ("choice_count", [choice_count] * width), ("model_a", [model_a] * width),
                                 ("model_b", [model_b] * width)):
                columns[name].extend(values)
    if not columns["category"]:
        return empty_frame(COLUMNS)
    frame = holm(pd.DataFrame(columns), alpha)
    frame["iterations"] = iterations
    return frame[COLUMNS].sort_values(["domain", "choice_count", "category", "model_a", "model_b"],
                                      ignore_index=True)
