"""The inconsistency report of the free-form crisis family, from plain group rows.

A group row is one stored group score (the samples of one run, model, question and
temperature) as a plain dict: model, simulation, variant, level, continuation, explicit,
temperature, move, scorer, run, n_samples, n_pairs, mean (its mean over pairs).

* ``per_run_frame``: one row per group, sorted, the identifying columns plus run.
* ``summary_frame``: one row per condition (the identifying columns): the mean over runs
  of each run's mean over pairs, the sd of the run means and a seeded bootstrap CI over
  runs (``inconsistency.summarise_runs``). n_samples and n_pairs are totals over runs.
* ``box_frame``, ``curve_frame``, ``band_frame``: what the dashboard draws: the
  distribution of group means per model and temperature, the temperature curve of the
  base tellings (level 0), and the level-1 and level-2 ablations as bands.
* ``scored_span``: where the scored section sits in an answer, for highlighting it.

Pure: pandas and numpy, no Django.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .inconsistency import pair_indices, summarise_runs
from .sections import DEFAULT_SECTION, SectionSpec, scored_text

KEY_COLUMNS = ["model", "simulation", "variant", "level", "continuation", "explicit", "temperature", "move", "scorer"]
PER_RUN_COLUMNS = KEY_COLUMNS + ["run", "n_samples", "n_pairs", "mean"]
SUMMARY_COLUMNS = KEY_COLUMNS + ["n_samples", "n_pairs", "runs", "mean", "sd", "ci_low", "ci_high"]
BOX_COLUMNS = ["model", "scorer", "temperature", "groups", "runs", "min", "q1", "median", "q3", "max", "mean", "sd",
               "ci_low", "ci_high"]
CURVE_COLUMNS = ["model", "scorer", "temperature", "groups", "runs", "mean", "sd", "ci_low", "ci_high"]
BAND_COLUMNS = ["model", "scorer", "level", "variants", "temperatures", "groups", "runs", "mean", "sd", "ci_low",
                "ci_high"]
BASE_LEVEL = 0
ABLATION_LEVELS = (1, 2)

_TYPES = {"model": str, "simulation": str, "variant": str, "level": int, "continuation": str, "explicit": bool,
          "temperature": float, "move": int, "scorer": str, "run": int, "n_samples": int, "n_pairs": int,
          "mean": float}


def per_run_frame(rows, extra_columns=()) -> pd.DataFrame:
    """One row per group: the identifying columns, run, n_samples, n_pairs and mean (and
    ``extra_columns`` of the rows, first, such as the dashboard's group id)."""
    frame = pd.DataFrame(list(rows), columns=[*extra_columns, *PER_RUN_COLUMNS])
    if frame.empty:
        return frame
    frame = frame.astype(_TYPES)
    return frame.sort_values(KEY_COLUMNS + ["run"], kind="stable").reset_index(drop=True)


def _run_means(frame: pd.DataFrame) -> pd.Series:
    """Each run's mean over its pairs (a run holding two groups of one condition weighs
    them by their pairs; usually a run holds one group per condition)."""
    weighted = frame.assign(total=frame["mean"] * frame["n_pairs"])
    sums = weighted.groupby("run", sort=True)[["total", "n_pairs"]].sum()
    return sums["total"] / sums["n_pairs"]


def _summary(run_means, confidence: float, n_bootstrap: int, seed: int) -> dict:
    summary = summarise_runs([[value] for value in run_means], confidence=confidence, n_bootstrap=n_bootstrap,
                             seed=seed)
    return {"runs": summary.n_runs, "mean": summary.mean, "sd": summary.sd, "ci_low": summary.ci_low,
            "ci_high": summary.ci_high}


def summary_frame(per_run: pd.DataFrame, confidence: float = 0.95, n_bootstrap: int = 10_000,
                  seed: int = 0) -> pd.DataFrame:
    """One row per condition: totals of samples and pairs, the number of runs, the mean
    over runs of the run means, their sd (NaN for one run) and the bootstrap CI over runs."""
    rows = []
    usable = per_run[per_run["n_pairs"] > 0] if not per_run.empty else per_run
    # dropna=False: a condition without a temperature (the model's own) is still a condition.
    for key, group in usable.groupby(KEY_COLUMNS, sort=True, dropna=False):
        rows.append({**dict(zip(KEY_COLUMNS, key)), "n_samples": int(group["n_samples"].sum()),
                     "n_pairs": int(group["n_pairs"].sum()),
                     **_summary(_run_means(group), confidence, n_bootstrap, seed)})
    frame = pd.DataFrame(rows, columns=SUMMARY_COLUMNS)
    return frame.astype({"explicit": bool}) if not frame.empty else frame


def _run_lists(group: pd.DataFrame) -> list[list[float]]:
    """Each run's group means, for summarise_runs (it averages each run's list first)."""
    return [list(values) for _, values in group.groupby("run", sort=True)["mean"]]


def _pooled(group: pd.DataFrame, confidence: float, n_bootstrap: int, seed: int) -> dict:
    summary = summarise_runs(_run_lists(group), confidence=confidence, n_bootstrap=n_bootstrap, seed=seed)
    return {"groups": len(group), "runs": summary.n_runs, "mean": summary.mean, "sd": summary.sd,
            "ci_low": summary.ci_low, "ci_high": summary.ci_high}


def box_frame(per_run: pd.DataFrame, confidence: float = 0.95, n_bootstrap: int = 10_000,
              seed: int = 0) -> pd.DataFrame:
    """Per model, scorer and temperature, the base tellings' (level 0) group means: their
    quartiles (the box), and the mean over runs of each run's mean of them with its CI."""
    rows = []
    base = per_run[per_run["level"] == BASE_LEVEL] if not per_run.empty else per_run
    for (model, scorer, temperature), group in base.groupby(["model", "scorer", "temperature"], sort=True):
        means = group["mean"].to_numpy(dtype=float)
        q1, median, q3 = np.percentile(means, [25, 50, 75])
        rows.append({"model": model, "scorer": scorer, "temperature": temperature, "min": float(means.min()),
                     "q1": float(q1), "median": float(median), "q3": float(q3), "max": float(means.max()),
                     **_pooled(group, confidence, n_bootstrap, seed)})
    return pd.DataFrame(rows, columns=BOX_COLUMNS)


def curve_frame(per_run: pd.DataFrame, confidence: float = 0.95, n_bootstrap: int = 10_000,
                seed: int = 0) -> pd.DataFrame:
    """The temperature curve: per model, scorer and temperature, the level-0 groups' mean
    over runs (each run's mean of its group means) with its bootstrap CI over runs."""
    frame = box_frame(per_run, confidence, n_bootstrap, seed)
    return frame[CURVE_COLUMNS].reset_index(drop=True)


def _temperatures(values) -> str:
    return ", ".join(f"{t:g}" for t in sorted(set(values)))


def band_frame(per_run: pd.DataFrame, confidence: float = 0.95, n_bootstrap: int = 10_000,
               seed: int = 0) -> pd.DataFrame:
    """Per model and scorer, the level-1 and level-2 variants' group means pooled (over
    the temperatures they were sampled at, listed): mean over runs with its CI, drawn as
    a band beside the temperature curve."""
    rows = []
    ablated = per_run[per_run["level"].isin(ABLATION_LEVELS)] if not per_run.empty else per_run
    for (model, scorer, level), group in ablated.groupby(["model", "scorer", "level"], sort=True):
        rows.append({"model": model, "scorer": scorer, "level": int(level),
                     "variants": ", ".join(sorted(set(group["variant"]))),
                     "temperatures": _temperatures(group["temperature"]),
                     **_pooled(group, confidence, n_bootstrap, seed)})
    return pd.DataFrame(rows, columns=BAND_COLUMNS)


@dataclass(frozen=True)
class Report:
    per_run: pd.DataFrame
    summary: pd.DataFrame


def build(rows, confidence: float = 0.95, n_bootstrap: int = 10_000, seed: int = 0) -> Report:
    per_run = per_run_frame(rows)
    return Report(per_run=per_run, summary=summary_frame(per_run, confidence, n_bootstrap, seed))


@dataclass(frozen=True)
class ScoredSpan:
    """An answer cut around its scored section: ``before + scored + after == answer``.
    With no section found the whole answer was scored and nothing is cut out."""

    before: str
    scored: str
    after: str
    section_found: bool


def scored_span(answer: str, spec: SectionSpec = DEFAULT_SECTION) -> ScoredSpan:
    """Where ``sections.scored_text`` found the scored text inside ``answer``."""
    answer = answer or ""
    found = scored_text(answer, spec)
    start = spec.start_pattern().search(answer)
    if not found.section_found or start is None:
        return ScoredSpan(answer, "", "", False)
    # scored_text strips markup and spaces around the section: the rest is verbatim.
    index = answer.find(found.text, start.end())
    if index < 0:
        return ScoredSpan(answer, "", "", False)
    end = index + len(found.text)
    return ScoredSpan(answer[:index], answer[index:end], answer[end:], True)


@dataclass(frozen=True)
class DivergentPair:
    pair: int  # its index among the row-major pairs
    first: int  # sample indexes i < j
    second: int
    value: float


def divergent_pairs(pair_values, n_samples: int) -> tuple[DivergentPair, DivergentPair] | None:
    """The most and the least divergent pair of a group (the first such pair on ties)."""
    pairs = pair_indices(n_samples)
    values = [float(v) for v in pair_values]
    if not values or len(values) != len(pairs):
        return None
    most, least = int(np.argmax(values)), int(np.argmin(values))
    return (DivergentPair(most, *pairs[most], values[most]), DivergentPair(least, *pairs[least], values[least]))


def for_csv(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame as the CSVs write it: temperatures as written in the conditions (0.2, not
    0.200000 as the other numbers; empty for none); every other column unchanged."""
    if "temperature" not in frame.columns or frame.empty:
        return frame
    return frame.assign(temperature=[f"{t:g}" if isinstance(t, (float, int)) and not pd.isna(t) else
                                     ("" if t is None or (isinstance(t, float) and pd.isna(t)) else t)
                                     for t in frame["temperature"]])
