"""Refusals and the rows that are not answers.

    refusal_rate = refusals / (answers + refusals)

Unresolved rows (still with reviewers) and missing rows (failed calls, empty answers)
say nothing about the model's willingness to answer, so they are outside that ratio;
they are counted on their own, and every outcome also gets its share of all rows
(`<outcome>_share` = count / rows). Rates are pooled over the rows of the group (not
scenario-normalised). With no answers and no refusals the refusal rate is NaN.

Every count is a sum of the weight column n (`tidy.weights`): `rows` is the number of
answers, refusals, unresolved and missing rows the group stands for. A group whose rows
all have n = 0 counts nothing and is left out.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from .tidy import OUTCOMES, empty_frame, validate, weighted_counts


def outcome_summary(df: pd.DataFrame, by: Sequence[str] = ("model",)) -> pd.DataFrame:
    """Counts and shares of each outcome, and the refusal rate, per `by` group.

    Columns: *by, answer, refusal, unresolved, missing, rows, refusal_rate,
    answer_share, refusal_share, unresolved_share, missing_share.
    """
    by = list(by)
    shares = [f"{outcome}_share" for outcome in OUTCOMES]
    columns = by + list(OUTCOMES) + ["rows", "refusal_rate"] + shares
    validate(df)
    if df.empty:
        return empty_frame(columns)
    # dropna: rows with a missing `by` value are left out, as pd.crosstab did before n existed.
    per_outcome = weighted_counts(df, by + ["outcome"], dropna=True)
    # The last level, not the name "outcome": `by` may hold outcome too.
    counts = per_outcome.unstack(-1, fill_value=0).reindex(columns=list(OUTCOMES), fill_value=0)
    counts.columns.name = None
    counts["rows"] = counts[list(OUTCOMES)].sum(axis=1)
    counts = counts[counts["rows"] > 0]
    if counts.empty:
        return empty_frame(columns)
    decided = counts["answer"] + counts["refusal"]
    counts["refusal_rate"] = (counts["refusal"] / decided.replace(0, np.nan)).astype(float)
    for outcome, share in zip(OUTCOMES, shares):
        counts[share] = counts[outcome] / counts["rows"]
    return counts.reset_index()[columns]


def refusals_by_model(df: pd.DataFrame) -> pd.DataFrame:
    """Outcome counts and refusal rate per model."""
    return outcome_summary(df, ["model"])


def refusals_by_domain(df: pd.DataFrame) -> pd.DataFrame:
    """Outcome counts and refusal rate per (model, domain)."""
    return outcome_summary(df, ["model", "domain"])


def refusals_by_actor(df: pd.DataFrame) -> pd.DataFrame:
    """Outcome counts and refusal rate per (model, qualified_actor)."""
    return outcome_summary(df, ["model", "qualified_actor"])
