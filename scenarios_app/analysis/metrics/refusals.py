"""Refusals, invalid answers and the rows that are not answers.

    read         = answers + refusals + invalid
    refusal_rate = refusals / read
    invalid_rate = invalid / read

An invalid answer (code X) is one the model gave without refusing but that chooses none
of the options (an option of its own, a list of several). It is no refusal: the model
was willing to answer, so it stays in the refusal rate's denominator (with no invalid
answers the rate is refusals / (answers + refusals), as before), and it gets its own
rate over the same denominator. Like refusals it is never in the option rates
(`rates.py` reads outcome "answer" only).

Unresolved rows (still with reviewers) and missing rows (failed calls, empty answers)
say nothing about the model's willingness to answer, so they are outside those ratios;
they are counted on their own, and every outcome also gets its share of all rows
(`<outcome>_share` = count / rows). Rates are pooled over the rows of the group (not
scenario-normalised). With nothing read (no answer, refusal or invalid answer) both
rates are NaN.

Every count is a sum of the weight column n (`tidy.weights`): `rows` is the number of
answers, refusals, invalid, unresolved and missing rows the group stands for. A group whose rows
all have n = 0 counts nothing and is left out.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from .tidy import OUTCOMES, empty_frame, validate, weighted_counts


def outcome_summary(df: pd.DataFrame, by: Sequence[str] = ("model",)) -> pd.DataFrame:
    """Counts and shares of each outcome, and the refusal and invalid rates, per `by` group.

    Columns: *by, answer, refusal, invalid, unresolved, missing, rows, refusal_rate,
    invalid_rate, answer_share, refusal_share, invalid_share, unresolved_share,
    missing_share.
    """
    by = list(by)
    shares = [f"{outcome}_share" for outcome in OUTCOMES]
    columns = by + list(OUTCOMES) + ["rows", "refusal_rate", "invalid_rate"] + shares
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
    read = (counts["answer"] + counts["refusal"] + counts["invalid"]).replace(0, np.nan)
    counts["refusal_rate"] = (counts["refusal"] / read).astype(float)
    counts["invalid_rate"] = (counts["invalid"] / read).astype(float)
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
