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

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy.stats import norm

from analysis_app.metrics.clustered import two_way_clustered_se, two_way_difference
from analysis_app.metrics.multiplicity import adjust_p_values

from .tidy import CategorySets, empty_frame

CONFIDENCE = 0.95
KEYS = ["people", "domain", "choice_count"]
COLUMNS = KEYS + ["category", "rate", "ci_low", "ci_high", "se_clustered", "n_scenarios", "n_respondents",
                  "n_answers"]


def people_rates(answers: pd.DataFrame, categories: CategorySets | None = None,
                 confidence: float = CONFIDENCE, by: Sequence[str] = ()) -> pd.DataFrame:
    """One row per (people, domain, choice_count, *by, category offered): the scenario-normalised
    rate with its interval clustered by respondent and scenario. `by` (e.g. "qualified_actor",
    as `countries.country_rates` has the models') takes the rate within each of its values:
    the share within each (scenario, *by), then the mean over the scenarios."""
    by = list(by)
    if answers.empty:
        return empty_frame(KEYS + by + COLUMNS[len(KEYS):])
    z = float(norm.ppf(0.5 + confidence / 2))
    rows = []
    for key, part in answers.groupby(KEYS + by, sort=True):
        people, domain, count = key[:3]
        offered = list((categories or {}).get((domain, count), [])) or sorted(part["category"].unique())
        per_scenario = part.groupby("scenario")["category"].transform("size").to_numpy(dtype=float)
        weights = 1.0 / per_scenario
        for category in offered:
            chose = (part["category"] == category).to_numpy(dtype=float)
            rate = float((weights * chose).sum() / weights.sum())
            se = two_way_clustered_se(chose, part["respondent"].to_numpy(), part["scenario"].to_numpy(), weights)
            rows.append([people, domain, int(count), *key[3:], category, rate, max(0.0, rate - z * se), min(1.0, rate + z * se),
                         se, part["scenario"].nunique(), part["respondent"].nunique(), len(part)])
    table = pd.DataFrame(rows, columns=KEYS + by + COLUMNS[len(KEYS):])
    table[["rate", "ci_low", "ci_high", "se_clustered"]] = table[["rate", "ci_low", "ci_high",
                                                                  "se_clustered"]].astype(np.float64)
    return table


CONTRAST_COLUMNS = ["people", "model", "domain", "choice_count", "category", "people_rate", "model_rate", "estimate",
                    "ci_low", "ci_high", "se_clustered", "p_value", "p_adjusted", "significant", "n_scenarios",
                    "n_respondents", "n_answers"]


def people_model_contrasts(answers: pd.DataFrame, per_scenario: pd.DataFrame, categories: CategorySets | None = None,
                           adjust: str = "bh", confidence: float = CONFIDENCE) -> pd.DataFrame:
    """People minus each model (`per_scenario`: the models' scenario rates, `rates.scenario_rates`),
    per (people, model, domain, choice_count, category), on the scenarios both answered.

    Both rates are normalised over those scenarios (a panel's as `people_rates`, a model's
    the mean of its scenario rates); the estimate is their difference in points, its
    interval estimate ± z·SE with the SE clustered by respondent and by scenario
    (`clustered.two_way_difference`: a model's scenario rate is one observation of its
    scenario, a respondent of its own, so the scenarios both answered pair the two rates),
    the p-value the normal one, adjusted across the table (`adjust`)."""
    if answers.empty or per_scenario.empty:
        return empty_frame(CONTRAST_COLUMNS)
    z = float(norm.ppf(0.5 + confidence / 2))
    models = {key: part for key, part in per_scenario.groupby(["domain", "choice_count"], sort=True)}
    rows = []
    for (people, domain, count), part in answers.groupby(KEYS, sort=True):
        theirs = models.get((domain, count))
        if theirs is None:
            continue
        offered = list((categories or {}).get((domain, count), [])) or sorted(part["category"].unique())
        for model, rates in theirs.groupby("model", sort=True):
            shared = sorted(set(part["scenario"]) & set(rates["scenario"]))
            if not shared:
                continue
            ours = part[part["scenario"].isin(shared)]
            weights = 1.0 / ours.groupby("scenario")["category"].transform("size").to_numpy(dtype=float)
            for category in offered:
                model_rates = rates[(rates["category"] == category) & rates["scenario"].isin(shared)]
                rated = model_rates.set_index("scenario")["rate"].reindex(shared, fill_value=0.0)
                chose = (ours["category"] == category).to_numpy(dtype=float)
                values = np.concatenate([chose, rated.to_numpy(dtype=float)])
                left = np.concatenate([np.ones(len(ours), bool), np.zeros(len(shared), bool)])
                who = np.concatenate([ours["respondent"].astype(str).to_numpy(dtype=object),
                                      np.array([f"\x1fmodel {s}" for s in shared], dtype=object)])
                where = np.concatenate([ours["scenario"].astype(str).to_numpy(dtype=object),
                                        np.array([str(s) for s in shared], dtype=object)])
                estimate, se, p_value = two_way_difference(values, left, who, where,
                                                           np.concatenate([weights, np.ones(len(shared))]))
                people_rate = float((weights * chose).sum() / weights.sum())
                rows.append([people, model, domain, int(count), category, people_rate, float(rated.mean()),
                             100 * estimate, max(-100.0, 100 * (estimate - z * se)),
                             min(100.0, 100 * (estimate + z * se)), 100 * se, p_value, np.nan, False, len(shared),
                             ours["respondent"].nunique(), len(ours)])
    if not rows:
        return empty_frame(CONTRAST_COLUMNS)
    table = pd.DataFrame(rows, columns=CONTRAST_COLUMNS)
    table["significant"], table["p_adjusted"] = adjust_p_values(table["p_value"].to_numpy(dtype=float), adjust)
    return table
