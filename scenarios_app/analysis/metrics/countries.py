"""Rates by the country advised (paper 000, section 4.2).

- `country_rates`: the scenario-normalised rate within each qualified actor: per model,
  the rate of each category among the answers for (scenario, qualified_actor), then the
  mean over the scenarios asked for that actor in (domain, choice_count). The default
  actors are the paper's five focus actors; `actors=None` keeps every actor.
- `dyad_rates`: heatmap data for one category: per (qualified_actor, opposing_actor)
  cell the same normalisation (rate per scenario within the dyad, mean over scenarios),
  with n_scenarios and n_answers so that thin cells can be greyed out.

Category sets are taken from the whole table before filtering to actors, so a category
nobody chose for these actors still shows as 0.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from scenarios_app.taxonomy import FOCUS_ACTORS

from .rates import domain_rates
from .tidy import CategorySets, category_sets, empty_frame


def country_rates(df: pd.DataFrame, actors: Sequence[str] | None = tuple(FOCUS_ACTORS),
                  categories: CategorySets | None = None) -> pd.DataFrame:
    """Rate per (model, domain, choice_count, qualified_actor, category), normalised over scenarios."""
    sets = category_sets(df, categories)
    subset = df if actors is None else df[df["qualified_actor"].isin(list(actors))]
    return domain_rates(subset, sets, by=["qualified_actor"])


def dyad_rates(df: pd.DataFrame, category: str, categories: CategorySets | None = None) -> pd.DataFrame:
    """Rate of `category` per (model, domain, choice_count, qualified_actor, opposing_actor).

    Only the (domain, choice_count) whose category set holds `category` appear.
    Columns: model, domain, choice_count, qualified_actor, opposing_actor, rate,
    n_scenarios, n_answers.
    """
    keys = ["model", "domain", "choice_count", "qualified_actor", "opposing_actor"]
    rates = domain_rates(df, categories, by=["qualified_actor", "opposing_actor"])
    if rates.empty:
        return empty_frame(keys + ["rate", "n_scenarios", "n_answers"])
    chosen = rates[rates["category"] == category]
    return chosen[keys + ["rate", "n_scenarios", "n_answers"]].reset_index(drop=True)
