"""Paired contrasts of scenario-normalised rates (issue 29; no Django).

Both contrasts are means over scenarios of a within-scenario difference, so each scenario
(the cluster) counts once, as in the normalised rates (`rates.py`), and the resampling
unit is the scenario:

- **actor contrasts** (`actor_contrasts`): per model, (domain, choice_count) and category,
  for each pair of qualified actors (left, right; in the order the actors are given, the
  paper's focus actors US, GB, CN, RU, IN by default): on the scenarios asked for both,
  d_s = rate(s | left advised) - rate(s | right advised), each rate pooled over the
  scenario's dyads, runs and repeats. "Does the model recommend more force for the United
  States than for China in the same situation?"
- **model contrasts** (`model_contrasts`): per (domain, choice_count) and category, for
  each pair of models (sorted by name), on the questions both answered (a question is a
  (scenario, qualified actor, opposing actor) cell of the table; cells one model did not
  answer are left out of both), d_s = rate_left(s) - rate_right(s).

For each contrast (`paired_figures`):

- estimate: mean of d_s, in percentage points (left minus right);
- ci_low, ci_high: 95 % cluster bootstrap over scenarios (percentile; the pairs resampled
  together: `analysis_app.metrics.clustered`), seeded per contrast;
- se_clustered: Miller's (2024) clustered SE. With one paired difference per scenario it is
  sqrt(sum (d_s - mean)^2) / n: the clustering is in the normalisation itself, answers to
  one scenario never count as independent observations;
- p_value: two-sided sign-flip permutation test of the d_s, exact by enumerating the 2^k
  sign patterns when the non-zero differences are k <= 20, Monte Carlo (100,000 patterns)
  with its error in p_method otherwise; when every d_s is -1, 0 or 1 (one answer per model
  and scenario: two codes per pair) the exact McNemar test on the discordant pairs, which
  is the same number (tests/analysis_app/test_stats_exact.py);
- p_adjusted, significant: Benjamini–Hochberg across the whole family of contrasts in the
  table (Holm on request), `adjust`. In a two-option form the two categories' contrasts
  mirror each other (same p); both are in the family, as both are shown.

The **flip view** (`actor_flips`): per model, the questions whose modal answer changes when
only the qualified actor changes: same scenario, same opposing actor, left vs right
advised. The modal answer is the category chosen most often (ties listed together, "A / B");
a flip is a pair whose modal sets share no category.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import numpy as np
import pandas as pd

from analysis_app.metrics.bootstrap import group_rng
from analysis_app.metrics.clustered import cluster_bootstrap_ci, clustered_se
from analysis_app.metrics.exact import discordant_pairs_test, sign_flip_tests
from analysis_app.metrics.multiplicity import NAMES, adjust_p_values
from scenarios_app.taxonomy import FOCUS_ACTORS

from .rates import scenario_rates
from .tidy import CategorySets, answers, category_sets, empty_frame, weighted_counts

COLUMNS = ["kind", "model", "domain", "choice_count", "category", "left", "right", "estimate", "ci_low", "ci_high",
           "se_clustered", "p_value", "p_method", "p_adjusted", "significant", "n_scenarios"]
REPORT_COLUMNS = ["kind", "model", "domain", "choice_count", "category", "left", "right", "estimate", "ci_low",
                  "ci_high", "p_value", "p_adjusted", "n_scenarios"]
FLIP_COLUMNS = ["model", "domain", "choice_count", "scenario", "opposing_actor", "left", "right", "left_answer",
                "right_answer", "left_share", "right_share", "left_answers", "right_answers", "flipped"]
MONTE_CARLO_PATTERNS = 100_000
CELL = ["scenario", "qualified_actor", "opposing_actor"]


def paired_figures(left: np.ndarray, right: np.ndarray, scenarios: np.ndarray, iterations: int, seed: int,
                   key: tuple, patterns: int = MONTE_CARLO_PATTERNS) -> dict:
    """The figures of d = left - right per column (rows: the shared scenarios, columns: the
    categories, rates in [0, 1]), as lists, in points."""
    d = left - right
    rng = group_rng(seed, ("bootstrap",) + key)
    low, high = cluster_bootstrap_ci(d, scenarios, iterations, rng, estimator="cluster_mean")
    se = clustered_se(d, scenarios)
    tests = group_rng(seed, ("sign-flip",) + key)
    p_values, methods = [], []
    # One answer per model and scenario (every rate 0 or 1): two codes per pair.
    if np.isin(left, (0.0, 1.0)).all() and np.isin(right, (0.0, 1.0)).all():
        for column in range(d.shape[1]):
            result = discordant_pairs_test(left[:, column] == 1, right[:, column] == 1)
            p_values.append(result.p_value)
            methods.append(f"exact McNemar ({result.left_only} vs {result.right_only} discordant)")
    else:
        for flip in sign_flip_tests(d, tests, patterns):
            p_values.append(flip.p_value)
            methods.append(flip.describe())
    return {"estimate": list(100 * d.mean(axis=0)), "ci_low": list(100 * np.atleast_1d(low)),
            "ci_high": list(100 * np.atleast_1d(high)), "se_clustered": list(100 * np.atleast_1d(se)),
            "p_value": p_values, "p_method": methods, "n_scenarios": [d.shape[0]] * d.shape[1]}


def _collect(rows: dict, figures: dict, **fixed) -> None:
    width = len(figures["estimate"])
    for name, values in figures.items():
        rows.setdefault(name, []).extend(values)
    for name, value in fixed.items():
        rows.setdefault(name, []).extend(value if isinstance(value, list) else [value] * width)


def _frame(rows: dict) -> pd.DataFrame:
    if not rows:
        return empty_frame(COLUMNS)
    frame = pd.DataFrame(rows)
    frame["p_adjusted"] = np.nan
    frame["significant"] = False
    return frame[COLUMNS]


def actor_pairs(present: Sequence[str], actors: Sequence[str] | None) -> list[tuple[str, str]]:
    order = sorted(present) if actors is None else [actor for actor in actors if actor in set(present)]
    return list(combinations(order, 2))


def actor_contrasts(df: pd.DataFrame, actors: Sequence[str] | None = tuple(FOCUS_ACTORS),
                    categories: CategorySets | None = None, iterations: int = 2000, seed: int = 0,
                    patterns: int = MONTE_CARLO_PATTERNS) -> pd.DataFrame:
    """Within-scenario differences between qualified actors, per model (unadjusted; see `adjust`)."""
    sets = category_sets(df, categories)
    subset = df if actors is None else df[df["qualified_actor"].isin(list(actors))]
    per = scenario_rates(subset, sets, by=["qualified_actor"])
    rows: dict = {}
    if per.empty:
        return _frame(rows)
    for (model, domain, choice_count), block in per.groupby(["model", "domain", "choice_count"], sort=True):
        table = block.pivot(index=["qualified_actor", "scenario"], columns="category", values="rate")
        table = table.dropna(axis=1, how="all")
        present = table.index.get_level_values("qualified_actor").unique()
        for left, right in actor_pairs(list(present), actors):
            a, b = table.loc[left], table.loc[right]
            shared = a.index.intersection(b.index).sort_values()
            if not len(shared):
                continue
            key = ("actor", model, domain, int(choice_count), left, right)
            figures = paired_figures(a.loc[shared].to_numpy(dtype=float), b.loc[shared].to_numpy(dtype=float),
                                     shared.to_numpy(dtype=object), iterations, seed, key, patterns)
            _collect(rows, figures, kind="actor", model=model, domain=domain, choice_count=int(choice_count),
                     category=list(table.columns), left=left, right=right)
    return _frame(rows)


def shared_questions(df: pd.DataFrame, left: str, right: str) -> pd.DataFrame:
    """The two models' rows on the questions (scenario, qualified, opposing actor) both answered."""
    answered = answers(df)
    cells = [answered.loc[answered["model"] == model, CELL].drop_duplicates() for model in (left, right)]
    both = pd.MultiIndex.from_frame(cells[0].merge(cells[1], on=CELL))
    rows = df[df["model"].isin([left, right])]
    return rows[pd.MultiIndex.from_frame(rows[CELL]).isin(both)]


def model_contrasts(df: pd.DataFrame, models: Sequence[str] | None = None, categories: CategorySets | None = None,
                    iterations: int = 2000, seed: int = 0, patterns: int = MONTE_CARLO_PATTERNS) -> pd.DataFrame:
    """Paired differences between models over shared questions (unadjusted; see `adjust`)."""
    sets = category_sets(df, categories)
    present = sorted(set(answers(df)["model"]))
    chosen = present if models is None else sorted(set(models) & set(present))
    rows: dict = {}
    for left, right in combinations(chosen, 2):
        per = scenario_rates(shared_questions(df, left, right), sets)
        for (domain, choice_count), block in per.groupby(["domain", "choice_count"], sort=True):
            table = block.pivot(index=["model", "scenario"], columns="category", values="rate").dropna(axis=1, how="all")
            if left not in table.index or right not in table.index:
                continue
            a, b = table.loc[left], table.loc[right]
            shared = a.index.intersection(b.index).sort_values()
            key = ("model", left, right, domain, int(choice_count))
            figures = paired_figures(a.loc[shared].to_numpy(dtype=float), b.loc[shared].to_numpy(dtype=float),
                                     shared.to_numpy(dtype=object), iterations, seed, key, patterns)
            _collect(rows, figures, kind="model", model="", domain=domain, choice_count=int(choice_count),
                     category=list(table.columns), left=left, right=right)
    return _frame(rows)


def adjust(frame: pd.DataFrame, method: str = "bh", alpha: float = 0.05) -> pd.DataFrame:
    """p_adjusted and significant across every row of `frame` (one family)."""
    if frame.empty:
        return frame
    reject, adjusted = adjust_p_values(frame["p_value"].to_numpy(dtype=float), method, alpha)
    return frame.assign(p_adjusted=adjusted, significant=reject)


def contrasts(df: pd.DataFrame, kind: str = "actor", actors: Sequence[str] | None = tuple(FOCUS_ACTORS),
              models: Sequence[str] | None = None, categories: CategorySets | None = None, iterations: int = 2000,
              seed: int = 0, method: str = "bh", alpha: float = 0.05,
              patterns: int = MONTE_CARLO_PATTERNS) -> pd.DataFrame:
    """Actor or model contrasts (or "both"), adjusted as one family; sorted for reading.
    `patterns`: Monte Carlo sign patterns where enumeration is too long (the page uses fewer).
    Language contrasts: `language_contrasts.language_family`."""
    if kind not in ("actor", "model", "both"):
        raise ValueError(f"kind must be actor, model or both, not {kind!r}")
    parts = []
    if kind in ("actor", "both"):
        actor_rows = df if models is None else df[df["model"].isin(list(models))]
        parts.append(actor_contrasts(actor_rows, actors, categories, iterations, seed, patterns))
    if kind in ("model", "both"):
        parts.append(model_contrasts(df, models, categories, iterations, seed, patterns))
    return one_family(parts, method, alpha)


def one_family(parts: Sequence[pd.DataFrame], method: str = "bh", alpha: float = 0.05) -> pd.DataFrame:
    """Contrast tables adjusted together as one family, sorted for reading."""
    parts = [part for part in parts if not part.empty]
    if not parts:
        return empty_frame(COLUMNS)
    frame = adjust(pd.concat(parts, ignore_index=True), method, alpha)
    return frame.sort_values(["kind", "model", "domain", "choice_count", "category", "left", "right"],
                             ignore_index=True)


def method_note(method: str = "bh", iterations: int = 2000, patterns: int = MONTE_CARLO_PATTERNS) -> str:
    """The methods, in words, for a page or a file's header."""
    return (f"Estimates: mean over scenarios of the within-scenario difference of normalised rates, in points, "
            f"left minus right. 95 % intervals: cluster bootstrap over scenarios ({iterations} resamples, percentile). "
            f"SE: clustered (Miller 2024). p: sign-flip permutation test, exact by enumeration with up to "
            f"20 non-zero differences (exact McNemar when every rate is 0 or 1), Monte Carlo ({patterns} patterns, its "
            f"error in the method column) otherwise. "
            f"Adjusted: {NAMES[method]} across all contrasts shown.")


def modal_answers(df: pd.DataFrame) -> pd.DataFrame:
    """Per (model, domain, choice_count, scenario, qualified_actor, opposing_actor): the modal
    categories (a tuple, sorted; several on a tie), their share and the answers counted."""
    keys = ["model", "domain", "choice_count", "scenario", "qualified_actor", "opposing_actor"]
    answered = answers(df)
    if answered.empty:
        return empty_frame(keys + ["modal", "share", "answers"])
    counts = weighted_counts(answered, keys + ["category"]).rename("count").reset_index()
    counts = counts[counts["count"] > 0]
    grouped = counts.groupby(keys, sort=True)
    top = grouped["count"].transform("max")
    totals = grouped["count"].sum().rename("answers")
    modal = counts[counts["count"] == top].groupby(keys, sort=True).agg(
        modal=("category", lambda names: tuple(sorted(names))), top=("count", "first"))
    out = modal.join(totals).reset_index()
    out["share"] = out["top"] / out["answers"]
    return out[keys + ["modal", "share", "answers"]]


def actor_flips(df: pd.DataFrame, actors: Sequence[str] | None = tuple(FOCUS_ACTORS)) -> pd.DataFrame:
    """Every compared pair (same scenario and opposing actor, two qualified actors) with its
    two modal answers and `flipped`; filter on flipped for the flip view."""
    modal = modal_answers(df if actors is None else df[df["qualified_actor"].isin(list(actors))])
    if modal.empty:
        return empty_frame(FLIP_COLUMNS)
    order = {actor: index for index, actor in enumerate(sorted(set(modal["qualified_actor"])) if actors is None
                                                       else actors)}
    modal["rank"] = modal["qualified_actor"].map(order)
    on = ["model", "domain", "choice_count", "scenario", "opposing_actor"]
    pairs = modal.merge(modal, on=on, suffixes=("_l", "_r"))
    pairs = pairs[pairs["rank_l"] < pairs["rank_r"]]
    if pairs.empty:
        return empty_frame(FLIP_COLUMNS)
    out = pd.DataFrame({
        **{key: pairs[key] for key in on},
        "left": pairs["qualified_actor_l"], "right": pairs["qualified_actor_r"],
        "left_answer": pairs["modal_l"].map(" / ".join), "right_answer": pairs["modal_r"].map(" / ".join),
        "left_share": pairs["share_l"], "right_share": pairs["share_r"],
        "left_answers": pairs["answers_l"], "right_answers": pairs["answers_r"],
        "flipped": [not set(a) & set(b) for a, b in zip(pairs["modal_l"], pairs["modal_r"])],
    })
    out["_l"], out["_r"] = pairs["rank_l"], pairs["rank_r"]
    out = out.sort_values(["model", "domain", "choice_count", "scenario", "opposing_actor", "_l", "_r"],
                          ignore_index=True)
    return out[FLIP_COLUMNS]


def flip_summary(pairs: pd.DataFrame) -> pd.DataFrame:
    """Per model: pairs compared, flips, and their share."""
    if pairs.empty:
        return empty_frame(["model", "compared", "flips", "share"])
    summary = pairs.groupby("model", sort=True).agg(compared=("flipped", "size"), flips=("flipped", "sum"))
    summary["flips"] = summary["flips"].astype("int64")
    summary["share"] = summary["flips"] / summary["compared"]
    return summary.reset_index()
