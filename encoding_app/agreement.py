"""Agreement between coders: percent agreement, Cohen's kappa for a pair, Krippendorff's
alpha for any number of coders. Pure: no Django.

Cohen's kappa comes from statsmodels (`cohens_kappa` on the pair's contingency table),
Krippendorff's alpha from the `krippendorff` package (nominal level). Codes are
category labels (`A` … `J`, `R`); a coder who did not code a unit is a gap. The Wilson
interval of an accuracy (a rule's or a judge's codes against people's) comes from
statsmodels' `proportion_confint`.

Small samples: every figure is shown with its n, and with a warning below `MIN_ITEMS`
(30) answers. Why 30: κ's standard error is about sqrt(p_o (1 - p_o) / n) / (1 - p_e)
(Cohen 1960); for a typical 80 % agreement over two equally used codes (p_o = 0.8,
p_e = 0.5) that is sqrt(0.16 / 30) / 0.5 = 0.146 at n = 30, a 95 % interval of ±0.29;
below 30 the interval is wider than ±0.3, more than the 0.2-wide bands κ is read by
("moderate", "substantial") on either side, so the figure cannot say which band holds.
It is also the coding policy's default for a rule's audit (`min_audited_items`). Above
30 the interval is still shown: it, not the threshold, says how far to trust the figure.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import krippendorff
import numpy as np


MIN_ITEMS = 30


def too_few(n: int) -> bool:
    """Whether an agreement figure over n answers gets the small-sample warning."""
    return n < MIN_ITEMS


@dataclass(frozen=True)
class PairAgreement:
    n: int
    agree: int
    percent: float | None
    kappa: float | None
    kappa_interval: tuple[float, float] | None = None

    @property
    def too_few(self) -> bool:
        return too_few(self.n)


def percent_agreement(first: list[str], second: list[str]) -> float | None:
    if len(first) != len(second):
        raise ValueError("both coders must code the same units")
    if not first:
        return None
    return sum(a == b for a, b in zip(first, second)) / len(first)


def cohens_kappa(first: list[str], second: list[str]) -> float | None:
    """Cohen's kappa of two coders over the same units; None when undefined (no units, or
    both coders used one and the same single code, so chance agreement is 1)."""
    if len(first) != len(second):
        raise ValueError("both coders must code the same units")
    if not first:
        return None
    table = _contingency(first, second)
    if len(table) == 1:
        return None
    from statsmodels.stats.inter_rater import cohens_kappa as statsmodels_kappa  # imported here: a slow import every start-up would pay otherwise
    kappa = float(statsmodels_kappa(table, return_results=False))
    return None if math.isnan(kappa) else kappa


def _contingency(first: list[str], second: list[str]) -> np.ndarray:
    """The square table of counts, first coder's code by row, second's by column."""
    labels = sorted(set(first) | set(second))
    index = {label: i for i, label in enumerate(labels)}
    table = np.zeros((len(labels), len(labels)))
    for a, b in zip(first, second):
        table[index[a], index[b]] += 1
    return table


def kappa_interval(first: list[str], second: list[str], z: float = 1.959964) -> tuple[float, float] | None:
    """κ ± z·se (statsmodels' asymptotic standard error, Fleiss, Cohen & Everitt 1969),
    kept inside [-1, 1]; None where κ is undefined, and under `MIN_ITEMS` answers, where
    the asymptotic error is no guide (two answers, one disagreement: κ 0 with se 0, an
    interval of zero width)."""
    if too_few(len(first)):
        return None
    kappa = cohens_kappa(first, second)
    if kappa is None:
        return None
    table = _contingency(first, second)
    from statsmodels.stats.inter_rater import cohens_kappa as statsmodels_kappa
    with np.errstate(divide="ignore", invalid="ignore"):  # its z statistic divides by 0 when κ is exact
        se = float(statsmodels_kappa(table).std_kappa)
    if math.isnan(se):
        return None
    return max(-1.0, kappa - z * se), min(1.0, kappa + z * se)


def pair_agreement(first: list[str], second: list[str]) -> PairAgreement:
    agree = sum(a == b for a, b in zip(first, second))
    return PairAgreement(n=len(first), agree=agree, percent=percent_agreement(first, second),
                         kappa=cohens_kappa(first, second), kappa_interval=kappa_interval(first, second))


def krippendorff_alpha(units: dict[object, dict[object, str]]) -> float | None:
    """Nominal Krippendorff's alpha. `units` maps each unit to {coder: code}; units coded
    once carry no information about agreement and are left out. None when undefined
    (fewer than two pairable values, or a single code used throughout)."""
    coders = sorted({coder for codes in units.values() for coder in codes}, key=str)
    paired = [codes for codes in units.values() if len(codes) >= 2]
    labels = sorted({code for codes in paired for code in codes.values()})
    if not paired or len(labels) < 2:
        return None
    value = {label: float(i) for i, label in enumerate(labels)}
    data = np.full((len(coders), len(paired)), np.nan)
    for column, codes in enumerate(paired):
        for row, coder in enumerate(coders):
            if coder in codes:
                data[row, column] = value[codes[coder]]
    alpha = float(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))
    return None if math.isnan(alpha) else alpha


def wilson_interval(correct: int, n: int, alpha: float = 0.05) -> tuple[float, float] | None:
    """Wilson score interval (95% by default) of `correct` out of `n`; None for n = 0.
    Unlike the normal approximation it stays inside [0, 1] and is not degenerate at 100%:
    30 correct of 30 gives (0.886, 1.0), not (1.0, 1.0)."""
    if n <= 0:
        return None
    low, high = _proportion_confint()(correct, n, alpha=alpha, method="wilson")
    return float(low), float(high)


def _proportion_confint():
    from statsmodels.stats.proportion import proportion_confint  # imported on first use (start-up time)
    return proportion_confint
