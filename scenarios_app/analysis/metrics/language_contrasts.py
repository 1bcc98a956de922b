"""Language contrasts (issue 41; no Django): does a model answer the same question
differently when it is asked in another language?

A translated question keeps its source's scenario, variant and dyad (only its key and
`language` differ), so the tidy table with a `language` column pairs them exactly:

- the cell is (scenario, qualified actor, opposing actor): the same situation and dyad in
  two languages. On each cell asked in both languages, the rate of a category is taken in
  each language (pooled over runs and repeats), d_cell = rate(left) - rate(right);
- the scenario is the cluster, as in the actor contrasts (`contrasts.py`): per scenario,
  left and right rates are the means over its shared cells, so every scenario counts once
  however many dyads it was asked for, and d_s = left_s - right_s;
- the figures are `contrasts.paired_figures` on the d_s: the mean in points, the cluster
  bootstrap interval, Miller's clustered SE, the exact sign-flip p (exact McNemar when
  every rate is 0 or 1), and the same BH / Holm adjustment across the family
  (`contrasts.one_family`).

Pairs, per model and (domain, choice_count): every language against the source language
(`source`, left) and any two other languages (left the earlier in alphabetical order);
`left` and `right` hold language codes, `kind` is "language".
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

from .contrasts import MONTE_CARLO_PATTERNS, _collect, _frame, one_family, paired_figures
from .rates import scenario_rates
from .tidy import CategorySets, category_sets

LANGUAGE = "language"
DYAD = ["qualified_actor", "opposing_actor"]


def language_order(present, source: str = "en") -> list[str]:
    """The source language first (when present), then the others alphabetically."""
    others = sorted(set(present) - {source})
    return ([source] if source in set(present) else []) + others


def language_pairs(present, source: str = "en") -> list[tuple[str, str]]:
    """(left, right) pairs: each language against the source, and any two others."""
    return list(combinations(language_order(present, source), 2))


def paired_by_scenario(table: pd.DataFrame, left: str, right: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`table` (index language, scenario, qualified_actor, opposing_actor; columns the
    categories' rates): the two languages' per-scenario mean rates over the cells asked in
    both, as (left (S, k), right (S, k), scenarios (S,)), scenarios sorted."""
    a, b = table.loc[left], table.loc[right]
    shared = a.index.intersection(b.index).sort_values()
    if not len(shared):
        return np.empty((0, table.shape[1])), np.empty((0, table.shape[1])), np.empty(0, dtype=object)
    # A category offered but never chosen in a cell is NaN after the pivot only when the
    # cell is absent; present cells carry 0 (rates.scenario_rates spreads over the set).
    a_s = a.loc[shared].groupby(level="scenario", sort=True).mean()
    b_s = b.loc[shared].groupby(level="scenario", sort=True).mean()
    return a_s.to_numpy(dtype=float), b_s.to_numpy(dtype=float), a_s.index.to_numpy(dtype=object)


def language_contrasts(df: pd.DataFrame, source: str = "en", categories: CategorySets | None = None,
                       iterations: int = 2000, seed: int = 0, patterns: int = MONTE_CARLO_PATTERNS,
                       languages=None) -> pd.DataFrame:
    """Paired differences between the languages a question was asked in, per model,
    (domain, choice_count) and category (unadjusted; `contrasts.one_family` adjusts).
    `df` is a tidy table with a `language` column (and the dyad columns; empty dyads pair
    on the scenario alone). `languages`: only these (default every one present)."""
    if LANGUAGE not in df.columns:
        raise ValueError("language contrasts need a tidy table with a language column "
                         "(tidy_with_categories(..., by_language=True))")
    rows: dict = {}
    if languages is not None:
        df = df[df[LANGUAGE].isin(list(languages))]
    sets = category_sets(df, categories)
    per = scenario_rates(df, sets, by=[*DYAD, LANGUAGE])
    if per.empty:
        return _frame(rows)
    for (model, domain, choice_count), block in per.groupby(["model", "domain", "choice_count"], sort=True):
        table = block.pivot(index=[LANGUAGE, "scenario", *DYAD], columns="category", values="rate")
        table = table.dropna(axis=1, how="all")
        present = table.index.get_level_values(LANGUAGE).unique()
        for left, right in language_pairs(list(present), source):
            a, b, scenarios = paired_by_scenario(table, left, right)
            if not len(scenarios):
                continue
            key = ("language", model, domain, int(choice_count), left, right)
            figures = paired_figures(a, b, scenarios, iterations, seed, key, patterns)
            _collect(rows, figures, kind="language", model=model, domain=domain, choice_count=int(choice_count),
                     category=list(table.columns), left=left, right=right)
    return _frame(rows)


def language_family(df: pd.DataFrame, source: str = "en", categories: CategorySets | None = None,
                    iterations: int = 2000, seed: int = 0, method: str = "bh", alpha: float = 0.05,
                    patterns: int = MONTE_CARLO_PATTERNS, models=None) -> pd.DataFrame:
    """The language contrasts adjusted as one family (BH or Holm) and sorted, as
    `contrasts.contrasts` gives the actor and model contrasts: what `contrast_report --kind
    language`, the dashboard and the profile read. `models`: only these (default all)."""
    rows = df if models is None else df[df["model"].isin(list(models))]
    return one_family([language_contrasts(rows, source, categories, iterations, seed, patterns)], method, alpha)


def language_sensitivity(contrasts: pd.DataFrame) -> pd.DataFrame:
    """Per model, from its language contrasts (adjusted): how far its answers move with
    the language. Columns model, contrasts, significant, largest (the absolute estimate of
    largest size, points), at (its domain · category · left vs right), mean_abs (mean
    absolute estimate, points)."""
    columns = ["model", "contrasts", "significant", "largest", "at", "mean_abs"]
    frame = contrasts[contrasts["kind"] == "language"] if len(contrasts) else contrasts
    if frame.empty:
        return pd.DataFrame({column: pd.Series(dtype=object) for column in columns})
    out = []
    for model, rows in frame.groupby("model", sort=True):
        size = rows["estimate"].abs()
        top = rows.loc[size.idxmax()]
        out.append({"model": model, "contrasts": len(rows), "significant": int(rows["significant"].sum()),
                    "largest": float(size.max()),
                    "at": f"{top['domain']} ({top['choice_count']}) · {top['category']} · {top['left']} vs {top['right']}",
                    "mean_abs": float(size.mean())})
    return pd.DataFrame(out, columns=columns)
