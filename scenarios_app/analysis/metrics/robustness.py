"""Robustness check: scenario commonality (paper 000, section 4.3 and appendix B.2).

Some scenarios are asked for only some of the focus actors. The check re-computes the
results on the scenarios "with 100% commonality between our five main actors":

- a scenario is focus-complete when every focus actor appears as qualified actor in
  some row of it, whatever the model or outcome: "asked" is a property of the question
  set, so every model is judged on the same scenarios. A row counts as asked whatever
  its weight n, even n = 0 (a question asked with nothing counted back);
- the restricted table keeps all rows of those scenarios (other actors included);
- category sets come from the full table, so both subsets share them.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from scenarios_app.taxonomy import FOCUS_ACTORS

from .countries import country_rates
from .rates import domain_rates
from .tidy import CategorySets, category_sets, validate

SUBSETS = ("all", "focus-complete")


def focus_complete_scenarios(df: pd.DataFrame, actors: Sequence[str] = tuple(FOCUS_ACTORS)) -> list[str]:
    """The scenarios asked for every one of `actors` as qualified actor, sorted."""
    validate(df)
    wanted = set(actors)
    asked = df.loc[df["qualified_actor"].isin(list(wanted)), ["scenario", "qualified_actor"]].drop_duplicates()
    per_scenario = asked.groupby("scenario")["qualified_actor"].nunique()
    return sorted(per_scenario.index[per_scenario == len(wanted)])


def focus_complete(df: pd.DataFrame, actors: Sequence[str] = tuple(FOCUS_ACTORS)) -> pd.DataFrame:
    """The rows of the focus-complete scenarios."""
    return df[df["scenario"].isin(focus_complete_scenarios(df, actors))]


def robustness_rates(df: pd.DataFrame, actors: Sequence[str] = tuple(FOCUS_ACTORS),
                     categories: CategorySets | None = None, per_country: bool = False) -> pd.DataFrame:
    """Domain rates (or, with per_country, country rates for `actors`) on all scenarios and on
    the focus-complete ones, stacked with a column `subset` in {"all", "focus-complete"}."""
    sets = category_sets(df, categories)

    def compute(table):
        return country_rates(table, actors, sets) if per_country else domain_rates(table, sets)

    parts = [compute(table).assign(subset=name) for name, table in zip(SUBSETS, (df, focus_complete(df, actors)))]
    stacked = pd.concat(parts, ignore_index=True)
    return stacked[["subset"] + [column for column in stacked.columns if column != "subset"]]
