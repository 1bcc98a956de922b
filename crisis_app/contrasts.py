"""Paired contrasts of free-form inconsistency (issue 29; paper 001): between temperatures of
one model and between models at one temperature, paired by question. Pure: pandas and
numpy, no Django.

Input: `report.per_run_frame` (one row per scored group: the samples of one run, model,
question and temperature, with its mean inconsistency over pairs and n_pairs). A question is
(simulation, variant, level, continuation, explicit, move). Per model, scorer, question and
temperature the value is the mean over runs of each run's mean over pairs (as the summary).

- **temperature** contrasts, per model and scorer, each pair of temperatures (left the
  higher, right the lower: "how much more inconsistent at the higher temperature"), on the
  questions scored at both: d_q = value(q, higher) - value(q, lower);
- **model** contrasts, per scorer and temperature, each pair of models (sorted by name, left
  minus right), on the questions both were scored on at that temperature.

The cluster: the simulation when the paired questions come from two simulations or more
(the questions of one simulation share its background and are not independent draws), else
the question (one simulation: its questions are all there is to resample; the unit is named
in the `cluster` column). Each cluster counts once. Figures from
`analysis_app.metrics.cluster_contrast`: mean over clusters, cluster bootstrap interval,
Miller's clustered SE, sign-flip p exact up to 20 clusters; the table adjusted as one
family (Benjamini–Hochberg, or Holm). Differences are in inconsistency units (0..1).
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

from analysis_app.metrics.cluster_contrast import MONTE_CARLO_PATTERNS, adjusted, clustered_differences
from analysis_app.metrics.multiplicity import NAMES

QUESTION = ["simulation", "variant", "level", "continuation", "explicit", "move"]
COLUMNS = ["kind", "model", "scorer", "temperature", "left", "right", "estimate", "ci_low", "ci_high",
           "se_clustered", "p_value", "p_method", "p_adjusted", "significant", "cluster", "n_clusters",
           "n_questions"]
DEFAULT_TEMPERATURE = "model default"


def temperature_name(value) -> str:
    return DEFAULT_TEMPERATURE if value is None or (isinstance(value, float) and np.isnan(value)) else f"{value:g}"


def question_values(per_run: pd.DataFrame) -> pd.DataFrame:
    """One row per (model, scorer, temperature, question): the mean over runs of each run's
    mean over pairs; `temperature` as written (0.2, or "model default")."""
    keys = ["model", "scorer", "temperature", *QUESTION]
    usable = per_run[per_run["n_pairs"] > 0]
    if usable.empty:
        return pd.DataFrame(columns=[*keys, "value"])
    frame = usable.assign(temperature=[temperature_name(t) for t in usable["temperature"]],
                          total=usable["mean"] * usable["n_pairs"])
    runs = frame.groupby([*keys, "run"], sort=True)[["total", "n_pairs"]].sum()
    runs["value"] = runs["total"] / runs["n_pairs"]
    return runs.groupby(level=keys, sort=True)["value"].mean().reset_index()


def _item(kind, model, scorer, temperature, left, right, pair: pd.DataFrame) -> tuple:
    """A contrast to compute (`pair`: one row per shared question, the QUESTION columns, left and
    right values): its columns, its key, its differences and their clusters."""
    by_simulation = pair["simulation"].nunique() >= 2
    clusters = (pair["simulation"] if by_simulation else
                pair[QUESTION].astype(str).agg("\x1f".join, axis=1)).astype(str).to_numpy()
    meta = {"kind": kind, "model": model, "scorer": scorer, "temperature": temperature, "left": left, "right": right,
            "cluster": "simulation" if by_simulation else "question", "n_questions": len(pair)}
    key = ("crisis-contrast", kind, model, scorer, temperature, left, right)
    return meta, key, (pair["left"] - pair["right"]).to_numpy(dtype=float), clusters


def _paired(values: pd.DataFrame, column: str, left, right) -> pd.DataFrame:
    a = values[values[column] == left].set_index(QUESTION)["value"].rename("left")
    b = values[values[column] == right].set_index(QUESTION)["value"].rename("right")
    return pd.concat([a, b], axis=1, join="inner").reset_index()


def _by_temperature(name: str):
    return (1, 0.0) if name == DEFAULT_TEMPERATURE else (0, float(name))


def temperature_contrasts(values: pd.DataFrame) -> list[tuple]:
    rows = []
    known = values[values["temperature"] != DEFAULT_TEMPERATURE]
    for (model, scorer), block in known.groupby(["model", "scorer"], sort=True):
        temperatures = sorted(set(block["temperature"]), key=_by_temperature)
        for lower, higher in combinations(temperatures, 2):
            pair = _paired(block, "temperature", higher, lower)
            if not pair.empty:
                rows.append(_item("temperature", model, scorer, "", f"T={higher}", f"T={lower}", pair))
    return rows


def model_contrasts(values: pd.DataFrame) -> list[tuple]:
    rows = []
    for (scorer, temperature), block in values.groupby(["scorer", "temperature"], sort=True):
        for left, right in combinations(sorted(set(block["model"])), 2):
            pair = _paired(block, "model", left, right)
            if not pair.empty:
                rows.append(_item("model", "", scorer, temperature, left, right, pair))
    return rows


def contrasts(per_run: pd.DataFrame, iterations: int = 2000, seed: int = 0, method: str = "bh",
              alpha: float = 0.05, patterns: int = MONTE_CARLO_PATTERNS) -> pd.DataFrame:
    """Both kinds, adjusted as one family; temperature contrasts first, then model contrasts."""
    if per_run is None or per_run.empty:
        return pd.DataFrame(columns=COLUMNS)
    values = question_values(per_run)
    items = temperature_contrasts(values) + model_contrasts(values)
    if not items:
        return pd.DataFrame(columns=COLUMNS)
    figures = clustered_differences([(key, d, clusters) for _, key, d, clusters in items], iterations, seed, patterns)
    rows = [{**meta, **result} for (meta, *_), result in zip(items, figures)]
    return adjusted(pd.DataFrame(rows), method, alpha)[COLUMNS]


def label(row) -> str:
    if row["kind"] == "temperature":
        return f"{row['model']} · {row['left']} − {row['right']}"
    return f"{row['left']} − {row['right']} · T={row['temperature']}" if row["temperature"] != DEFAULT_TEMPERATURE \
        else f"{row['left']} − {row['right']} · {DEFAULT_TEMPERATURE}"


def method_note(method: str = "bh", iterations: int = 2000, patterns: int = MONTE_CARLO_PATTERNS) -> str:
    return ("Temperature contrasts: one model's inconsistency at the higher temperature minus the lower, on the "
            "questions (simulation, variant, move, continuation) scored at both; model contrasts: left minus right "
            "model at one temperature on the questions both were scored on. Each question's value is the mean over "
            "runs of each run's mean over pairs. Estimate: mean over clusters in inconsistency units (0..1); the "
            "cluster is the simulation when the questions come from two or more, else the question (the cluster "
            f"column). 95 % interval: cluster bootstrap ({iterations} resamples, percentile); SE: clustered (Miller "
            "2024). p: sign-flip permutation test of the cluster means, exact by enumeration with up to 20 non-zero "
            f"ones, Monte Carlo ({patterns} patterns) otherwise. Adjusted: {NAMES[method]} across all contrasts in "
            "the table.")
