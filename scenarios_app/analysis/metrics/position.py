"""Position bias (issue 29): does the letter an option is shown under move the answer?
Pure: pandas, numpy and scipy, no Django.

The input is one row per distinct answer shown (`ANSWER_COLUMNS`, weight `n`): the model,
the scenario (the unit of normalisation, as in `rates`), its domain and choice count, the
order the options were shown in (`order`: canonical option indexes lettered A, B, C …) and
the option chosen (`chosen`: its canonical index). Refusals and answers that chose no
option have no position and are not in it.

**Observed against expected share by position.** Per model and choice count, the observed
share of position p is the share of answers that chose the option shown at p. The share
expected from content alone is

    expected(p) = mean over answers a of q_s(a)(order_a[p])

where q_s(i) is the model's share of answers choosing canonical option i in scenario s,
from all its answers of that scenario whatever the order shown: if the position did not
matter, answer a would pick the option shown at p with probability q_s(order_a[p]). When a
scenario was always shown in one order, expected equals observed there (the content and
the position cannot be told apart); under the balanced design (each option at each
position equally often) expected(p) is exactly 1/n.

**The test** is a stratified permutation test of "the choice depends on the content only":
within each (model, scenario) the orders shown are reshuffled among the answers (the
randomisation the design itself made: seeded shuffles or rotations dealt over the units),
which leaves every expected share as it is, and the statistic is Pearson's
χ² = Σ_p (observed_p − expected_p)² / expected_p over the position counts
(`scipy.stats.chisquare`). p = (1 + permutations with χ² at least the observed) / (1 +
permutations), Monte Carlo (its standard error about √(p(1 − p)/B) is stated beside it).
A permutation is drawn as the table it makes (per scenario: answers by option chosen × order
shown, with both margins fixed), cell by cell with hypergeometric draws, which is the same
distribution as reshuffling the answers one by one and costs the cells rather than the
answers: 1,000 permutations of 350,000 balanced answers over 2,000 scenarios take about 6 s.
With every scenario shown in one order there is nothing to permute: no test.

**Rates with and without the position effect.** The observed rate is the scenario-
normalised rate of `rates` (over the answers that chose an option). The position-balanced
rate standardises each scenario to a uniform position: option i's rate is the mean over the
n positions of the share of answers choosing i among those that showed i at that position,

    balanced_s(i) = mean_p x_s(i, p) / m_s(i, p),  normalised to sum to 1 over the options,

(m: answers that showed i at p, x: those of them choosing i): the rate the model would have
given had every option been shown at every position equally often. It needs every option
shown at every position in the scenario; a scenario where some was not keeps its observed
rate (`scenarios_adjusted` counts those that were adjusted). Under an exactly balanced
design (m_s(i, p) = k for all i, p) both rates are the same: the design cancels the
position effect. Both are averaged over scenarios per (model, domain, choice count,
category), as `rates` does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from .tidy import CategorySets

ANSWER_COLUMNS = ("model", "domain", "choice_count", "scenario", "order", "chosen")
LETTERS = "ABCDEFGHIJ"
SHARE_COLUMNS = ["model", "choice_count", "position", "answers", "observed", "expected", "observed_share",
                 "expected_share", "difference", "chi_square", "p_value", "p_error", "permutations", "scenarios",
                 "scenarios_varied"]
RATE_COLUMNS = ["model", "domain", "choice_count", "category", "rate_observed", "rate_balanced", "difference",
                "n_scenarios", "scenarios_adjusted"]


def _weights(df: pd.DataFrame) -> np.ndarray:
    return df["n"].to_numpy(dtype=np.int64) if "n" in df else np.ones(len(df), dtype=np.int64)


def chosen_positions(df: pd.DataFrame) -> np.ndarray:
    """The displayed position (0 = A) of each row's chosen option."""
    return np.array([list(order).index(chosen) for order, chosen in zip(df["order"], df["chosen"])], dtype=np.int64)


def _statistic(observed: np.ndarray, expected: np.ndarray) -> float:
    """Pearson's χ² over the positions whose expected count is not 0 (where it is 0 no answer
    chose the option shown there, so the observed count is 0 too)."""
    kept = expected > 1e-12
    if kept.sum() < 2:
        return 0.0
    return float(stats.chisquare(observed[kept], expected[kept] * observed[kept].sum() / expected[kept].sum())
                 .statistic)


def _statistics(counts: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """`_statistic` of each row of `counts` at once (the permutations' own)."""
    kept = expected > 1e-12
    if kept.sum() < 2:
        return np.zeros(len(counts))
    observed = counts[:, kept]
    scaled = expected[kept][None, :] * observed.sum(axis=1, keepdims=True) / expected[kept].sum()
    return ((observed - scaled) ** 2 / scaled).sum(axis=1)


def _tables(part: pd.DataFrame, count: int) -> tuple[np.ndarray, np.ndarray]:
    """The answers of one (model, choice count) as tables: `x[s, c, t]` answers of scenario s
    that chose option c and were shown order type t, and `shows[c, t, p]`, 1 where order
    type t shows option c at position p."""
    strata = pd.factorize(part["scenario"], sort=True)[0]
    types, type_of = np.unique(np.array([list(o) for o in part["order"]], dtype=np.int64).reshape(len(part), count),
                               axis=0, return_inverse=True)
    x = np.zeros((strata.max() + 1 if len(strata) else 0, count, len(types)), dtype=np.int64)
    np.add.at(x, (strata, part["chosen"].to_numpy(dtype=np.int64), type_of.ravel()), _weights(part))
    shows = (types[None, :, :] == np.arange(count)[:, None, None]).astype(np.int64)  # [c, t, p]
    return x, shows


def _random_tables(chosen: np.ndarray, shown: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """`size` tables [size, s, c, t] drawn as the permutation makes them: in each stratum the
    answers' orders reshuffled, i.e. a table uniform over the assignments with the stratum's
    margins (answers per chosen option `chosen[s, c]`, per order type `shown[s, t]`), cell
    by cell with hypergeometric draws (`Generator.hypergeometric` on arrays)."""
    strata, options = chosen.shape
    types = shown.shape[1]
    table = np.zeros((size, strata, options, types), dtype=np.int64)
    left_in_type = np.broadcast_to(shown, (size, strata, types)).copy()
    for c in range(options - 1):
        wanted = np.broadcast_to(chosen[:, c], (size, strata)).copy()
        rest = left_in_type.sum(axis=2)
        for t in range(types - 1):
            rest = rest - left_in_type[:, :, t]  # the orders of the later types
            drawn = rng.hypergeometric(left_in_type[:, :, t], rest, wanted)
            table[:, :, c, t] = drawn
            wanted = wanted - drawn
        table[:, :, c, types - 1] = wanted
        left_in_type = left_in_type - table[:, :, c, :]
    table[:, :, options - 1, :] = left_in_type
    return table


def permutation_test(x: np.ndarray, shows: np.ndarray, expected: np.ndarray, permutations: int, seed: int,
                     chunk: int = 2_000_000) -> tuple[float, float]:
    """(χ² observed, p) for the tables of `_tables`: within each stratum the orders shown
    reshuffled among its answers, `permutations` times (Monte Carlo)."""
    observed_stat = _statistic(np.einsum("sct,ctp->p", x, shows).astype(float), expected)
    varied = (x.sum(axis=1) > 0).sum(axis=1) > 1  # strata shown in more than one order can change
    if not varied.any() or permutations <= 0:
        return observed_stat, float("nan")
    fixed = np.einsum("sct,ctp->p", x[~varied], shows)
    x = x[varied]
    chosen, shown = x.sum(axis=2), x.sum(axis=1)
    rng = np.random.default_rng(seed)
    step = max(1, chunk // max(1, x.size))  # permutations per batch: about `chunk` cells at once
    at_least, done = 0, 0
    while done < permutations:
        size = min(step, permutations - done)
        counts = np.einsum("bsct,ctp->bp", _random_tables(chosen, shown, size, rng), shows) + fixed
        at_least += int((_statistics(counts.astype(float), expected) >= observed_stat - 1e-9).sum())
        done += size
    return observed_stat, (1 + at_least) / (1 + permutations)


def _content_shares(df: pd.DataFrame, count: int) -> dict:
    """{(model, scenario): q} with q[i] the share of the scenario's answers choosing option i."""
    shares = {}
    weights = _weights(df)
    for (model, scenario), index in df.groupby(["model", "scenario"], sort=False).indices.items():
        q = np.bincount(df["chosen"].to_numpy()[index], weights=weights[index], minlength=count)
        shares[model, scenario] = q / q.sum()
    return shares


def position_shares(df: pd.DataFrame, permutations: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Per (model, choice count, position): answers, observed and expected counts and
    shares, their difference in points, and the model's χ² and permutation p-value (the same
    on each of its positions; NaN when every scenario was shown in one order)."""
    rows = []
    for (model, count), part in df.groupby(["model", "choice_count"], sort=True):
        count = int(count)
        part = part.reset_index(drop=True)
        q = _content_shares(part, count)
        weights = _weights(part)
        observed = np.bincount(chosen_positions(part), weights=weights, minlength=count)
        expected = np.zeros(count)
        for (order, scenario, weight) in zip(part["order"], part["scenario"], weights):
            expected += weight * q[model, scenario][list(order)]
        x, shows = _tables(part, count)
        statistic, p = permutation_test(x, shows, expected, permutations, seed)
        by_scenario = part.groupby("scenario")["order"].agg(lambda o: len({tuple(x) for x in o}))
        total = float(observed.sum())
        for position in range(count):
            rows.append({
                "model": model, "choice_count": count, "position": LETTERS[position], "answers": int(total),
                "observed": int(observed[position]), "expected": float(expected[position]),
                "observed_share": observed[position] / total, "expected_share": expected[position] / total,
                "difference": 100 * (observed[position] - expected[position]) / total,
                "chi_square": statistic, "p_value": p,
                "p_error": float(np.sqrt(p * (1 - p) / permutations)) if p == p else float("nan"),
                "permutations": permutations if p == p else 0,
                "scenarios": int(len(by_scenario)), "scenarios_varied": int((by_scenario > 1).sum())})
    return pd.DataFrame(rows, columns=SHARE_COLUMNS)


def _scenario_rates(part: pd.DataFrame, count: int) -> tuple[list, np.ndarray, np.ndarray, np.ndarray]:
    """(scenarios, observed [s, option], balanced [s, option], adjusted [s]) for the rows of
    one choice count: every scenario's option rates at once."""
    codes, scenarios = pd.factorize(part["scenario"], sort=True)
    weights = _weights(part).astype(float)
    chosen = part["chosen"].to_numpy(dtype=np.int64)
    orders = np.array([list(o) for o in part["order"]], dtype=np.int64).reshape(len(part), count)
    shown = np.zeros((len(scenarios), count, count))  # m[s, option, position]
    picked = np.zeros((len(scenarios), count, count))  # x[s, option, position]
    np.add.at(shown, (codes[:, None], orders, np.arange(count)[None, :]), weights[:, None])
    np.add.at(picked, (codes, chosen, chosen_positions(part)), weights)
    observed = picked.sum(axis=2)
    observed = observed / observed.sum(axis=1, keepdims=True)
    adjusted = (shown > 0).all(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        balanced = (picked / shown).mean(axis=2)
        balanced = balanced / balanced.sum(axis=1, keepdims=True)
    balanced = np.where(adjusted[:, None], balanced, observed)
    return list(scenarios), observed, balanced, adjusted


def balanced_rates(df: pd.DataFrame, option_categories: Mapping[str, Sequence[str]],
                   categories: CategorySets | None = None) -> pd.DataFrame:
    """Per (model, domain, choice count, category): the observed and the position-balanced
    scenario-normalised rates, their difference in points, the scenarios averaged and those
    adjusted. `option_categories[scenario]` names each canonical option's category;
    `categories` the categories of each (domain, choice count) (a category a scenario does
    not offer counts 0 there, as in `rates`)."""
    records = []
    for (model, domain, count), part in df.groupby(["model", "domain", "choice_count"], sort=True):
        scenarios, observed, balanced, adjusted = _scenario_rates(part.reset_index(drop=True), int(count))
        for i, scenario in enumerate(scenarios):
            offered = list(option_categories[scenario])
            wanted = list((categories or {}).get((domain, int(count)), ())) or sorted(set(offered))
            for category in wanted:
                mask = np.array([c == category for c in offered])
                records.append((model, domain, int(count), scenario, category, float(observed[i][mask].sum()),
                                float(balanced[i][mask].sum()), bool(adjusted[i])))
    table = pd.DataFrame(records, columns=["model", "domain", "choice_count", "scenario", "category",
                                           "rate_observed", "rate_balanced", "adjusted"])
    if table.empty:
        return pd.DataFrame(columns=RATE_COLUMNS)
    out = table.groupby(["model", "domain", "choice_count", "category"], sort=True).agg(
        rate_observed=("rate_observed", "mean"), rate_balanced=("rate_balanced", "mean"),
        n_scenarios=("scenario", "nunique"), scenarios_adjusted=("adjusted", "sum")).reset_index()
    out["difference"] = 100 * (out["rate_balanced"] - out["rate_observed"])
    out["scenarios_adjusted"] = out["scenarios_adjusted"].astype("int64")
    return out[RATE_COLUMNS]


def any_varied(df: pd.DataFrame) -> bool:
    """Whether some (model, scenario) was shown in more than one order: without that there is
    nothing to measure."""
    if df.empty:
        return False
    return bool((df.groupby(["model", "scenario"])["order"].agg(lambda o: len({tuple(x) for x in o})) > 1).any())
