"""The one shape every family publishes its headline figures in, and what the models'
profile and comparison pages compute from them: a model's standing among the other
models asked the same thing, and the difference of two models' figures with its interval.

A `Figure` is one number of one model: which benchmark, family and runs it comes from,
the condition it was asked under, the metric (a stable key) and its label (what a person
reads), the estimate with its interval (ci_low, ci_high; None where the family has none),
n (the units the interval resamples: scenarios, territories, runs), the unit
("share" 0-1, "percent" 0-100, "score") and the direction: the end a ranking lists first
("higher": rank 1 is the highest estimate; "lower": the lowest, e.g. inconsistency).
`withheld` says why a figure is not a result (its instrument failed a check): it is shown
with that sentence, never ranked nor differenced.

Two figures are of the same thing, and so ranked and differenced together, when their
`key` (benchmark, family, metric, condition) is equal.

The difference's interval (`difference`) is formed by MOVER (the method of variance
estimates recovery; Newcombe 1998, Zou & Donner 2008) from the two published intervals:

    d  = a - b
    lo = d - sqrt((a - a_lo)^2 + (b_hi - b)^2)
    hi = d + sqrt((a_hi - a)^2 + (b - b_lo)^2)

Why this and not bootstrap draws: every family publishes an estimate and an interval
(percentile bootstrap over scenarios, territories or runs) and no family keeps its draws,
so the only interval every family can have is one built from what it publishes. MOVER
keeps the asymmetry of those intervals (a rate near 0 has a short lower arm), and for
symmetric intervals it is exactly the normal approximation sqrt(h_a^2 + h_b^2), h the
half-widths. It treats the two models' estimates as independent; where they share units
(CFPD's models asked the same scenarios) a positive correlation makes the true interval
narrower, so this one errs wide. Pure: numpy only, no Django.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

DIRECTIONS = ("higher", "lower")
UNITS = ("share", "percent", "score")
# The fields of a figure, in the order the CSVs and the API write them.
FIELDS = ("benchmark", "family", "runs", "model", "condition", "metric", "label", "estimate", "ci_low", "ci_high",
          "n", "unit", "direction", "withheld")


def _number(value) -> float | None:
    """A plain float, or None for a missing one (None, NaN, an infinite ΔCS)."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


@dataclass(frozen=True)
class Figure:
    benchmark: str
    family: str
    model: str
    metric: str
    label: str
    estimate: float | None
    ci_low: float | None = None
    ci_high: float | None = None
    n: int = 0
    unit: str = "share"
    direction: str = "higher"
    condition: str = ""
    runs: tuple[int, ...] = field(default_factory=tuple)
    # Why this number is not a result ("" for a result): the family's instrument failed a
    # check. Shown with the number, never ranked nor differenced.
    withheld: str = ""

    def __post_init__(self):
        if self.direction not in DIRECTIONS:
            raise ValueError(f"figure {self.metric}: direction must be one of {DIRECTIONS}, not {self.direction!r}")
        if self.unit not in UNITS:
            raise ValueError(f"figure {self.metric}: unit must be one of {UNITS}, not {self.unit!r}")
        object.__setattr__(self, "estimate", _number(self.estimate))
        object.__setattr__(self, "ci_low", _number(self.ci_low))
        object.__setattr__(self, "ci_high", _number(self.ci_high))
        object.__setattr__(self, "n", int(self.n))
        object.__setattr__(self, "runs", tuple(sorted({int(r) for r in self.runs})))

    @property
    def key(self) -> tuple[str, str, str, str]:
        """What makes two models' figures comparable."""
        return (self.benchmark, self.family, self.metric, self.condition)

    @property
    def has_interval(self) -> bool:
        """An interval to reason with (a difference's, its ★). A bootstrap over one unit (one
        scenario, territory or run: n = 1) is always [x, x], which says nothing of the figure's
        uncertainty, so such a figure has none here (its bounds are still published as its
        dashboard gives them)."""
        return (self.estimate is not None and self.ci_low is not None and self.ci_high is not None
                and self.n != 1)

    def to_dict(self) -> dict:
        values = asdict(self)
        values["runs"] = list(self.runs)
        return {name: values[name] for name in FIELDS}

    @classmethod
    def from_dict(cls, values: dict) -> Figure:
        return cls(**{name: values[name] for name in FIELDS if name in values})


@dataclass(frozen=True)
class Standing:
    """Where a model's figure stands among every model with a figure of the same key:
    its rank (1 first, in the figure's direction; ties share the best rank, as in
    1, 2, 2, 4), how many models are ranked, and the other models' estimates' spread."""

    rank: int | None
    of: int
    others: int
    others_min: float | None
    others_median: float | None
    others_max: float | None


def rank_of(estimate: float | None, others: Sequence[float | None], direction: str = "higher") -> Standing:
    """The standing of `estimate` among `others` (the other models' estimates of the same
    key; None ones are not ranked). A model without an estimate has no rank."""
    values = np.array([v for v in others if v is not None], dtype=float)
    spread = (float(values.min()), float(np.median(values)), float(values.max())) if len(values) else (None,) * 3
    if estimate is None:
        return Standing(None, len(values), len(values), *spread)
    ahead = values > estimate if direction == "higher" else values < estimate
    return Standing(int(ahead.sum()) + 1, len(values) + 1, len(values), *spread)


def standings(model: str, figures: Iterable[Figure]) -> dict[tuple, Standing]:
    """For each key `model` has a figure of, its standing among the other models' figures
    of that key (every model's figures given; one figure per model and key)."""
    by_key: dict[tuple, dict[str, Figure]] = {}
    for figure in figures:
        by_key.setdefault(figure.key, {})[figure.model] = figure
    result = {}
    for key, models in by_key.items():
        own = models.get(model)
        if own is None:
            continue
        # A withheld figure is not a result: it has no rank and ranks no other model.
        others = [f.estimate for name, f in sorted(models.items()) if name != model and not f.withheld]
        result[key] = rank_of(None if own.withheld else own.estimate, others, own.direction)
    return result


@dataclass(frozen=True)
class Difference:
    """`model_a`'s figure minus `model_b`'s, of one key, with its MOVER interval (None
    where either figure has no interval, `Figure.has_interval`: none published, or n = 1)."""

    benchmark: str
    family: str
    metric: str
    label: str
    condition: str
    unit: str
    model_a: str
    model_b: str
    estimate_a: float | None
    estimate_b: float | None
    difference: float | None
    ci_low: float | None
    ci_high: float | None
    n_a: int
    n_b: int

    @property
    def excludes_zero(self) -> bool:
        return self.ci_low is not None and (self.ci_low > 0 or self.ci_high < 0)

    def to_dict(self) -> dict:
        return asdict(self)


def mover_interval(a: float, a_low: float, a_high: float, b: float, b_low: float,
                   b_high: float) -> tuple[float, float, float]:
    """(a - b, low, high): the MOVER interval of a difference (module docstring)."""
    d = a - b
    return (d, d - math.sqrt((a - a_low) ** 2 + (b_high - b) ** 2),
            d + math.sqrt((a_high - a) ** 2 + (b - b_low) ** 2))


def difference(a: Figure, b: Figure) -> Difference:
    if a.key != b.key:
        raise ValueError(f"figures of different things: {a.key} and {b.key}")
    value = low = high = None
    if a.estimate is not None and b.estimate is not None and not (a.withheld or b.withheld):
        value = a.estimate - b.estimate
        if a.has_interval and b.has_interval:
            value, low, high = mover_interval(a.estimate, a.ci_low, a.ci_high, b.estimate, b.ci_low, b.ci_high)
    return Difference(benchmark=a.benchmark, family=a.family, metric=a.metric, label=a.label, condition=a.condition,
                      unit=a.unit, model_a=a.model, model_b=b.model, estimate_a=a.estimate, estimate_b=b.estimate,
                      difference=value, ci_low=low, ci_high=high, n_a=a.n, n_b=b.n)


def differences(figures: Iterable[Figure], models: Sequence[str]) -> list[Difference]:
    """Each later model of `models` against the first, on every key both have a figure
    of, in the order of the figures (keys) given."""
    if len(models) < 2:
        raise ValueError("a comparison needs two models or more")
    by_key: dict[tuple, dict[str, Figure]] = {}
    for figure in figures:
        by_key.setdefault(figure.key, {})[figure.model] = figure
    first, rest = models[0], models[1:]
    return [difference(found[first], found[other]) for found in by_key.values() if first in found
            for other in rest if other in found]
