"""Scenario-normalised rates (paper 000, section 3.6).

Some scenarios are asked far more often than others (many dyads), so raw shares would
be dominated by them. For each model the rate of a category is first taken within each
scenario and then averaged over the scenarios of the domain:

    scenario rate = answers choosing the category / answers with outcome "answer"
    domain rate   = mean of the scenario rates over the model's scenarios in
                    (domain, choice_count)

Choices made here:

- Refusals (code R), invalid answers (code X: no option chosen, no refusal), unresolved
  and missing rows are left out of the denominator, so a model's rates over a
  scenario's categories sum to 1 (the paper normalises over the options chosen);
  refusals and invalid answers are reported on their own as the refusal and invalid
  rates (`refusals.py`). The paper's example holds: a scenario asked
  60 times with 30 "Use of force" and 30 "No use of force" has a rate of 0.5.
- A category of the (domain, choice_count) that was never chosen in a scenario counts
  as 0 there (see `tidy.category_sets`). In Alliance Dynamics every scenario is
  Balancing against one other category, so Buck passing gets 0 in a Balancing vs
  Bandwagoning scenario: the domain rates then sum to 1, as the paper's figures do.
- A scenario in which the model gave no answer at all (only refusals, say) has no rate
  and is not among the scenarios averaged; `n_scenarios` counts those that are.
- All runs and repeats of a model are pooled within a scenario.
- Answers are counted as the sum of the weight column n (`tidy.weights`), so a row
  with n = 30 is 30 answers.
- Two- and three-option forms are separate (choice_count is part of every key).

`by` adds grouping columns under the scenario (e.g. "qualified_actor", or "run" and
"repeat"): the rate is then taken per (scenario, *by) and averaged over scenarios per
*by value.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from .tidy import CategorySets, answers, category_frame, category_sets, empty_frame, weighted_counts

SCENARIO_KEYS = ["model", "domain", "choice_count", "scenario"]
DOMAIN_KEYS = ["model", "domain", "choice_count"]


def scenario_rates(df: pd.DataFrame, categories: CategorySets | None = None,
                   by: Sequence[str] = ()) -> pd.DataFrame:
    """Rate of each category per (model, domain, choice_count, scenario, *by).

    Columns: the keys, category, count (answers choosing it), answers, rate.
    """
    keys = SCENARIO_KEYS + list(by)
    answered = answers(df)
    if answered.empty:
        return empty_frame(keys + ["category", "count", "answers", "rate"])
    sets = category_frame(category_sets(answered, categories))
    counts = weighted_counts(answered, keys + ["category"]).rename("count").reset_index()
    # The per-category counts are far fewer rows than the answers, so the units come from them.
    units = counts.groupby(keys, dropna=False, sort=True)["count"].sum().rename("answers").reset_index()
    grid = units.merge(sets, on=["domain", "choice_count"]).merge(counts, on=keys + ["category"], how="left")
    grid["count"] = grid["count"].fillna(0).astype("int64")
    grid["rate"] = grid["count"] / grid["answers"]
    columns = keys + ["category", "count", "answers", "rate"]
    return grid[columns].sort_values(keys + ["category"], ignore_index=True)


def mean_over_scenarios(per_scenario: pd.DataFrame, by: Sequence[str] = ()) -> pd.DataFrame:
    """Average scenario rates per (model, domain, choice_count, *by, category).

    Columns: the keys, rate, n_scenarios, n_answers (answers summed over the scenarios).
    """
    keys = DOMAIN_KEYS + list(by) + ["category"]
    if per_scenario.empty:
        return empty_frame(keys + ["rate", "n_scenarios", "n_answers"])
    grouped = per_scenario.groupby(keys, dropna=False, sort=True)
    return grouped.agg(rate=("rate", "mean"), n_scenarios=("scenario", "nunique"),
                       n_answers=("answers", "sum")).reset_index()


def domain_rates(df: pd.DataFrame, categories: CategorySets | None = None,
                 by: Sequence[str] = ()) -> pd.DataFrame:
    """Scenario-normalised rate per (model, domain, choice_count, *by, category)."""
    return mean_over_scenarios(scenario_rates(df, categories, by), by)


def action_rates(df: pd.DataFrame, categories: CategorySets | None = None) -> pd.DataFrame:
    """Domain rates broken down by the scenarios' codified action ("" when none)."""
    return domain_rates(df, categories, by=["action"])
