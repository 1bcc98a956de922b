"""Spread across repeats (paper 000, section 3.7).

Sampled models are asked the same questions several times; the paper reports "a mean
percentage and one standard deviation across five runs". Here one sampling pass is a
(run, repeat) pair: the domain rate is computed for each pass on its own (scenario-
normalised as in `rates.py`), then summarised per (model, domain, choice_count,
category) as

    mean = mean of the per-pass rates
    sd   = sample standard deviation of the per-pass rates (ddof=1; NaN for one pass)

A model with greedy decoding and one repeat therefore shows sd NaN, not 0. n_repeats
counts passes, not answers: the weight column n only enters through the rates.
"""

from __future__ import annotations

import pandas as pd

from .rates import DOMAIN_KEYS, domain_rates
from .tidy import CategorySets, empty_frame

PASS_KEYS = ["run", "repeat"]


def repeat_rates(df: pd.DataFrame, categories: CategorySets | None = None) -> pd.DataFrame:
    """Scenario-normalised rate per (model, domain, choice_count, run, repeat, category)."""
    return domain_rates(df, categories, by=PASS_KEYS)


def repeat_summary(df: pd.DataFrame, categories: CategorySets | None = None) -> pd.DataFrame:
    """Mean and sample sd (ddof=1) of the per-pass rates.

    Columns: model, domain, choice_count, category, mean, sd, n_repeats.
    """
    return summarise_repeats(repeat_rates(df, categories))


def summarise_repeats(per_pass: pd.DataFrame) -> pd.DataFrame:
    """`repeat_summary` of a `repeat_rates` table already computed (the dashboard shows both)."""
    keys = DOMAIN_KEYS + ["category"]
    if per_pass.empty:
        return empty_frame(keys + ["mean", "sd", "n_repeats"])
    grouped = per_pass.groupby(keys, sort=True)["rate"]
    return grouped.agg(mean="mean", sd=lambda rates: rates.std(ddof=1), n_repeats="size").reset_index()
