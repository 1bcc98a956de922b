"""The preference table: one row per (model, domain, choice_count, category), ready for a CSV.

rate is the scenario-normalised rate (`rates.py`), ci_low/ci_high its 95% bootstrap
interval over scenarios (`bootstrap.py`), n_scenarios the scenarios averaged, and
refusal_rate the model's pooled refusals / (answers + refusals + invalid answers) in
that (domain, choice_count), invalid_rate its invalid answers (code X: no option chosen,
no refusal) over the same (`refusals.py`); both are outside the rates, which are over
answers that chose an option. With the same seed two calls agree exactly.
"""

from __future__ import annotations

import pandas as pd

from .bootstrap import scenario_bootstrap
from .rates import DOMAIN_KEYS, mean_over_scenarios, scenario_rates
from .refusals import outcome_summary
from .tidy import CategorySets, empty_frame

COLUMNS = ["model", "domain", "choice_count", "category", "rate", "ci_low", "ci_high", "n_scenarios",
           "refusal_rate", "invalid_rate", "iterations"]


def preference_table(df: pd.DataFrame, iterations: int = 2000, seed: int = 0,
                     categories: CategorySets | None = None, per_scenario: pd.DataFrame | None = None) -> pd.DataFrame:
    """Rates with bootstrap CIs and refusal rates; columns `COLUMNS`. `per_scenario`:
    `scenario_rates(df, categories)` when the caller has it already."""
    if per_scenario is None:
        per_scenario = scenario_rates(df, categories)
    if per_scenario.empty:
        return empty_frame(COLUMNS)
    keys = DOMAIN_KEYS + ["category"]
    rates = mean_over_scenarios(per_scenario)
    intervals = scenario_bootstrap(per_scenario, iterations, seed)
    refusals = outcome_summary(df, DOMAIN_KEYS)[DOMAIN_KEYS + ["refusal_rate", "invalid_rate"]]
    table = rates.merge(intervals, on=keys).merge(refusals, on=DOMAIN_KEYS, how="left")
    return table[COLUMNS].sort_values(keys, ignore_index=True)
