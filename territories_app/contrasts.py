"""Paired contrasts of territorial-dispute answers (issue 29; BorderLines, paper 003, section
5.2), clustered by territory. Pure: pandas and numpy, no Django.

Input: `concurrence.territory_scores` (one row per model, strategy, repeat and territory
asked, with `control`, `non_control` and `kb` as shares in 0..1, NaN where the territory
does not enter that score).

- **Control vs Non-control** (kind "control"), per model and strategy: on each territory
  with both a Control answer (asked in the controller's language, resolved) and at least
  one resolved Non-control answer, in a repeat, the paired difference
      d = control - non_control
  (1 or 0 for the controller's language, minus the share of the other claimants' languages
  naming the controller), in points. Several repeats give several d per territory: the
  territory is the cluster, and each counts once. This is the paper's ΔCS question ("does
  the model side with the controller more in its language?") asked within each territory:
  the concurrence table's delta_cs_abs subtracts two scores over different sets of
  territories (each keeps its own denominator), the paired gap only over territories that
  have both.
- **Model vs model** (kind "model"), per strategy and measure, each pair of models (sorted,
  left minus right) on the territories both have the measure for: measure "gap" (each
  model's Control − Non-control of that territory, averaged over its repeats) and "kb" (its
  KB CS answer, the English control naming the controller, averaged over repeats).

Each contrast's figures come from `analysis_app.metrics.cluster_contrast` (mean over
territories, cluster bootstrap interval, Miller's clustered SE, sign-flip p exact up to 20
territories); `contrasts` adjusts the whole table as one family (Benjamini–Hochberg,
or Holm).
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

from analysis_app.metrics.cluster_contrast import MONTE_CARLO_PATTERNS, adjusted, clustered_differences
from analysis_app.metrics.multiplicity import NAMES

COLUMNS = ["kind", "measure", "model", "strategy", "left", "right", "estimate", "ci_low", "ci_high", "se_clustered",
           "p_value", "p_method", "p_adjusted", "significant", "n_territories", "n_pairs"]
MEASURES = {"gap": "Control − Non-control", "kb": "KB CS"}


def _item(kind, measure, model, strategy, left, right, d, territories) -> tuple[dict, tuple, np.ndarray, np.ndarray]:
    """A contrast to compute: its columns, its key and its paired differences in points."""
    meta = {"kind": kind, "measure": measure, "model": model, "strategy": strategy, "left": left, "right": right}
    return meta, ("territory-contrast", *meta.values()), 100 * np.asarray(d, dtype=float), np.asarray(territories)


def control_contrasts(per_territory: pd.DataFrame) -> list[tuple]:
    items = []
    both = per_territory.dropna(subset=["control", "non_control"])
    for (model, strategy), block in both.groupby(["model", "strategy"], sort=True):
        block = block.sort_values(["territory", "repeat"], key=lambda c: c.astype(str))
        items.append(_item("control", "gap", model, strategy, "Control", "Non-control",
                           block["control"] - block["non_control"], block["territory"].astype(str).to_numpy()))
    return items


def _per_model(per_territory: pd.DataFrame, measure: str) -> pd.DataFrame:
    """(strategy, territory) x model: the measure averaged over repeats."""
    frame = per_territory.assign(gap=per_territory["control"] - per_territory["non_control"])
    return frame.pivot_table(index=["strategy", "territory"], columns="model", values=measure, aggfunc="mean")


def model_contrasts(per_territory: pd.DataFrame) -> list[tuple]:
    items = []
    for measure in MEASURES:
        table = _per_model(per_territory, measure)
        if table.empty:
            continue
        for strategy, block in table.groupby(level="strategy", sort=True):
            block = block.droplevel("strategy")
            for left, right in combinations(sorted(block.columns, key=str), 2):
                pair = block[[left, right]].dropna()
                if not pair.empty:
                    items.append(_item("model", measure, "", strategy, left, right, pair[left] - pair[right],
                                       pair.index.astype(str).to_numpy()))
    return items


def contrasts(per_territory: pd.DataFrame, iterations: int = 2000, seed: int = 0, method: str = "bh",
              alpha: float = 0.05, patterns: int = MONTE_CARLO_PATTERNS) -> pd.DataFrame:
    """Both kinds, adjusted as one family; sorted for reading (kind, measure, strategy, model, left, right)."""
    if per_territory.empty:
        return pd.DataFrame(columns=COLUMNS)
    items = control_contrasts(per_territory) + model_contrasts(per_territory)
    if not items:
        return pd.DataFrame(columns=COLUMNS)
    figures = clustered_differences([(key, d, clusters) for _, key, d, clusters in items], iterations, seed, patterns)
    rows = [{**meta, **result, "n_territories": result["n_clusters"]} for (meta, *_), result in zip(items, figures)]
    frame = adjusted(pd.DataFrame(rows), method, alpha)
    order = frame["kind"].map({"control": 0, "model": 1})
    return frame.assign(_order=order).sort_values(["_order", "measure", "strategy", "model", "left", "right"],
                                                  kind="stable", ignore_index=True)[COLUMNS]


def label(row) -> str:
    if row["kind"] == "control":
        return f"{row['model']} · {row['strategy']} · Control − Non-control"
    return f"{row['left']} − {row['right']} · {row['strategy']} · {MEASURES[row['measure']]}"


def method_note(method: str = "bh", iterations: int = 2000, patterns: int = MONTE_CARLO_PATTERNS) -> str:
    return ("Control − Non-control: within each territory with both, the answer in the controller's language naming "
            "it (1 or 0) minus the share of the other claimants' languages naming it, in points, per model and "
            "strategy; model − model: the same territories' gap (or KB CS answer), each model averaged over its "
            "repeats. Estimate: mean over territories (each territory counts once). 95 % interval: cluster "
            f"bootstrap over territories ({iterations} resamples, percentile); SE: clustered (Miller 2024). p: "
            "sign-flip permutation test of the territories' differences, exact by enumeration with up to 20 "
            f"non-zero ones, Monte Carlo ({patterns} patterns, its error in p_method) otherwise. Adjusted: "
            f"{NAMES[method]} across all contrasts in the table.")
