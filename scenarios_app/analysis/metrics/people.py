"""Rates of a panel of people (issue 40), beside the models' and never among them.

A panel's rate of a category is normalised over scenarios exactly as a model's
(`rates.py`): its people's share choosing the category within each scenario, then the mean
over the scenarios its people answered. Written as one weighted mean over the answers, each
answer weighs 1 / (the panel's answers in its scenario):

    rate = sum_i w_i x_i / sum_i w_i,   x_i = 1 if answer i chose the category, else 0.

Its interval is not a model's bootstrap over scenarios: a person answers several scenarios
and a scenario is answered by several people, so answers are clustered two ways at once.
The standard error is the two-way clustered one (by respondent and by scenario,
`analysis_app.metrics.clustered.two_way_clustered_se`, Cameron, Gelbach and Miller 2011)
and the interval rate ± z·SE (z of a two-sided 95 %), cut at 0 and 1. An interval that
ignored the respondents (one-way by scenario, or the answers taken as independent) is too
narrow when a person answers alike across scenarios (tests/scenarios_app/test_metrics_people.py).

Input columns: people (the panel's label), respondent, domain, choice_count, scenario,
category (answers that chose an option only: people do not refuse)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import norm

from analysis_app.metrics.clustered import two_way_clustered_se

from .tidy import CategorySets, empty_frame

CONFIDENCE = 0.95
KEYS = ["people", "domain", "choice_count"]
COLUMNS = KEYS + ["category", "rate", "ci_low", "ci_high", "se_clustered", "n_scenarios", "n_respondents",
                  "n_answers"]


def people_rates(answers: pd.DataFrame, categories: CategorySets | None = None,
                 confidence: float = CONFIDENCE) -> pd.DataFrame:
    """One row per (people, domain, choice_count, category offered): the scenario-normalised
    rate with its interval clustered by respondent and scenario."""
    if answers.empty:
        return empty_frame(COLUMNS)
    z = float(norm.ppf(0.5 + confidence / 2))
    rows = []
    for (people, domain, count), part in answers.groupby(KEYS, sort=True):
        offered = list((categories or {}).get((domain, count), [])) or sorted(part["category"].unique())
        per_scenario = part.groupby("scenario")["category"].transform("size").to_numpy(dtype=float)
        weights = 1.0 / per_scenario
        for category in offered:
            chose = (part["category"] == category).to_numpy(dtype=float)
            rate = float((weights * chose).sum() / weights.sum())
            se = two_way_clustered_se(chose, part["respondent"].to_numpy(), part["scenario"].to_numpy(), weights)
            rows.append([people, domain, int(count), category, rate, max(0.0, rate - z * se), min(1.0, rate + z * se),
                         se, part["scenario"].nunique(), part["respondent"].nunique(), len(part)])
    table = pd.DataFrame(rows, columns=COLUMNS)
    table[["rate", "ci_low", "ci_high", "se_clustered"]] = table[["rate", "ci_low", "ci_high",
                                                                  "se_clustered"]].astype(np.float64)
    return table
