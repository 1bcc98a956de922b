"""Synthetic coded answers at the paper's scale, for load tests of the analysis side
(`load_synthetic_answers`, `bench/dashboard_scale.py`). Pure: numpy and plain values,
no Django.

Two steps, both driven by one seeded generator so a load is reproducible:

1. `plan_scenarios`: about 400 scenarios over the four domains, each on a real codified
   comparison (two- or three-option), with ordered dyads drawn from the given actors
   (the focus actors more often as actor A), so that the questions they expand into --
   one per dyad, plus the "no-middle" two-option variant of a three-option scenario --
   add up to exactly the number asked for.
2. `draw_outcomes`: one outcome per (question, model, repeat). Each model has its own
   taste for every action category, shifted per scenario and per qualified actor, so
   models really differ and the per-country panels have something to show; a share of
   answers are refusals, unresolved (with reviewers) or missing (failed calls).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

REFUSAL_SHARE = 0.02  # code R, source "choice"
UNRESOLVED_SHARE = 0.01  # no code yet, with reviewers (code_source "unresolved")
MISSING_SHARE = 0.005  # failed call: status failed, code_source "missing"

# Outcome codes of `draw_outcomes`: 0, 1, 2 are the options in the author's order (A, B, C).
REFUSAL, UNRESOLVED, MISSING = 3, 4, 5

# Share of scenarios per domain, and of three-option forms where a domain has them
# (escalation and intervention); the rest are two-option.
DOMAIN_SHARES = {"escalation": 0.32, "intervention": 0.28, "cooperation": 0.2, "alliance": 0.2}
THREE_OPTION_SHARE = 0.4
FOCUS_WEIGHT = 6.0  # a focus actor is this many times likelier than another to be actor A
QUESTIONS_PER_SCENARIO = 8  # fewest questions per scenario on average when --questions is small


@dataclass(frozen=True)
class Form:
    """A codified comparison as the planner needs it: option categories in slot order,
    and which of them is the middle option of a three-option form (None otherwise)."""

    comparison: str
    domain: str
    categories: tuple[str, ...]
    middle: int | None = None

    @property
    def variants(self) -> int:
        """Questions per dyad: the full form, and the no-middle form of a three-option one."""
        return 2 if self.middle is not None else 1


@dataclass(frozen=True)
class PlannedScenario:
    key: str
    form: Form
    dyads: tuple[tuple[str, str], ...]

    @property
    def question_count(self) -> int:
        return len(self.dyads) * self.form.variants


def middle_of(categories: Sequence[str], ranks: Mapping[str, int | None]) -> int | None:
    """Index of the category ranked between the other two, as the expansion finds it."""
    if len(categories) != 3 or any(ranks.get(c) is None for c in categories):
        return None
    order = sorted(categories, key=lambda c: ranks[c])
    return list(categories).index(order[1])


def scenario_count(questions: int, wanted: int = 400) -> int:
    """`wanted` scenarios, fewer when there are too few questions to go round."""
    return max(1, min(wanted, questions // QUESTIONS_PER_SCENARIO))


def choose_forms(count: int, forms: Sequence[Form], rng: np.random.Generator) -> list[Form]:
    """`count` forms in the domain mix above; at least one two-option form (so any total
    can be reached, three-option scenarios adding questions in pairs) and, from two
    scenarios on, at least one three-option form."""
    by_domain: dict[str, dict[int, list[Form]]] = {}
    for form in forms:
        by_domain.setdefault(form.domain, {}).setdefault(len(form.categories), []).append(form)
    domains = [d for d in DOMAIN_SHARES if d in by_domain] + sorted(set(by_domain) - set(DOMAIN_SHARES))
    shares = np.array([DOMAIN_SHARES.get(d, 0.1) for d in domains])
    picked = rng.choice(len(domains), size=count, p=shares / shares.sum())
    chosen = []
    for i, index in enumerate(picked):
        sizes = by_domain[domains[index]]
        size = 3 if 3 in sizes and (2 not in sizes or rng.random() < THREE_OPTION_SHARE) else min(sizes)
        chosen.append(sizes[size][int(rng.integers(len(sizes[size])))])
    two = [f for f in forms if f.variants == 1]
    three = [f for f in forms if f.variants == 2]
    if two and not any(f.variants == 1 for f in chosen):
        chosen[0] = two[int(rng.integers(len(two)))]
    if count > 1 and three and not any(f.variants == 2 for f in chosen):
        chosen[1] = three[int(rng.integers(len(three)))]
    return chosen


def allocate_dyads(total: int, variants: Sequence[int], weights: Sequence[float], capacity: int) -> np.ndarray:
    """Dyads per scenario so that sum(dyads * variants) == total exactly, each scenario
    with 1..capacity dyads, roughly in proportion to `weights`."""
    variants = np.asarray(variants, dtype=np.int64)
    weights = np.asarray(weights, dtype=float)
    low, high = int(variants.sum()), int((variants * capacity).sum())
    if not low <= total <= high:
        raise ValueError(f"{total} questions cannot be spread over {len(variants)} scenarios of at most "
                         f"{capacity} dyads: between {low} and {high} can")
    if total % 2 and not (variants == 1).any():
        raise ValueError("an odd number of questions needs a two-option scenario")
    target = weights / weights.sum() * total
    dyads = np.clip(np.floor(target / variants), 1, capacity).astype(np.int64)
    remainder = total - int((dyads * variants).sum())
    # Walk the remainder to zero one dyad at a time, adding where a scenario is furthest
    # below its share and removing where it is furthest above; two-option scenarios
    # settle an odd remainder.
    for _ in range(4 * len(variants) + 4 * abs(remainder) + 8):
        if remainder == 0:
            return dyads
        gap = target - dyads * variants
        if remainder > 0:
            room = (dyads < capacity) & (variants <= remainder)
            pick = int(np.argmax(np.where(room, gap, -np.inf)))
            dyads[pick] += 1
        else:
            room = (dyads > 1) & (variants <= -remainder)
            if not room.any():
                room = dyads > 1
            pick = int(np.argmin(np.where(room, gap, np.inf)))
            dyads[pick] -= 1
        remainder = total - int((dyads * variants).sum())
    raise ValueError(f"could not spread {total} questions over the scenarios exactly")


def sample_dyads(count: int, actors: Sequence[str], focus: Sequence[str], rng: np.random.Generator
                 ) -> list[tuple[str, str]]:
    """`count` distinct ordered pairs of different actors; focus actors are likelier as
    actor A (the qualified actor) and somewhat likelier as actor B."""
    n = len(actors)
    is_focus = np.array([a in set(focus) for a in actors])
    weight_a = np.where(is_focus, FOCUS_WEIGHT, 1.0)
    weight_b = np.where(is_focus, 2.0, 1.0)
    pairs = np.outer(weight_a, weight_b)
    np.fill_diagonal(pairs, 0.0)
    flat = rng.choice(n * n, size=count, replace=False, p=(pairs / pairs.sum()).ravel())
    return [(actors[i // n], actors[i % n]) for i in flat]


def plan_scenarios(questions: int, forms: Sequence[Form], actors: Sequence[str], focus: Sequence[str],
                   rng: np.random.Generator, scenarios: int = 400, prefix: str = "syn") -> list[PlannedScenario]:
    """Scenarios whose questions add up to exactly `questions` (see the module docstring)."""
    if questions < 1:
        raise ValueError("at least one question is needed")
    if len(actors) < 2:
        raise ValueError("at least two actors are needed for a dyad")
    count = scenario_count(questions, scenarios)
    chosen = choose_forms(count, forms, rng)
    # Scenario sizes vary a lot in the paper (a few dyads to a whole actor set): lognormal.
    weights = rng.lognormal(0.0, 0.9, size=count)
    dyads = allocate_dyads(questions, [f.variants for f in chosen], weights, len(actors) * (len(actors) - 1))
    width = len(str(count))
    return [
        PlannedScenario(f"{prefix}-{form.comparison}-{i + 1:0{width}d}", form,
                        tuple(sample_dyads(int(d), actors, focus, rng)))
        for i, (form, d) in enumerate(zip(chosen, dyads))
    ]


@dataclass(frozen=True)
class Shares:
    refusal: float = REFUSAL_SHARE
    unresolved: float = UNRESOLVED_SHARE
    missing: float = MISSING_SHARE


def draw_outcomes(option_categories: np.ndarray, scenario: np.ndarray, qualified: np.ndarray, models: int,
                  repeats: int, rng: np.random.Generator, shares: Shares = Shares()) -> np.ndarray:
    """Outcome per (question, model, repeat): 0/1/2 the option chosen (author's order),
    `REFUSAL`, `UNRESOLVED` or `MISSING`. int8 array of shape (questions, models, repeats).

    `option_categories` (questions, 3): each option's category as an integer, -1 where a
    question has fewer options; `scenario` and `qualified` (questions,): integer ids of
    the scenario and the qualified actor. The two variants of a scenario share its
    scenario id, so the no-middle form is the full form with the middle option removed.

    A model's log-odds for a category = its own lean (differs between models) + the
    scenario's pull (shared by all models) + its own reading of the scenario + its lean
    for the qualified actor, times the model's sharpness (near-deterministic models and
    sampling ones).
    """
    option_categories = np.asarray(option_categories)
    questions = len(option_categories)
    categories = int(option_categories.max()) + 1
    scenarios = int(scenario.max()) + 1 if questions else 0
    actors = int(qualified.max()) + 1 if questions else 0
    lean = rng.normal(0.0, 1.0, size=(models, categories))
    pull = rng.normal(0.0, 1.0, size=(scenarios, categories))
    reading = rng.normal(0.0, 0.5, size=(models, scenarios, categories))
    country = rng.normal(0.0, 0.5, size=(models, actors, categories))
    sharpness = rng.uniform(0.7, 2.0, size=models)
    # Refusal rates differ by model around the configured share (their mean is the share).
    factor = rng.uniform(0.3, 1.7, size=models)
    refusal = shares.refusal * factor / factor.mean()

    present = option_categories >= 0
    cat = np.where(present, option_categories, 0)
    logits = (lean[:, cat] + pull[scenario[:, None], cat][None]
              + reading[:, scenario[:, None], cat] + country[:, qualified[:, None], cat])  # (models, questions, 3)
    logits = logits * sharpness[:, None, None]
    logits = np.where(present[None], logits, -np.inf)
    logits -= logits.max(axis=2, keepdims=True)
    probabilities = np.exp(logits)
    probabilities /= probabilities.sum(axis=2, keepdims=True)
    cumulative = np.cumsum(probabilities, axis=2).transpose(1, 0, 2)  # (questions, models, 3)

    kind = rng.random((questions, models, repeats), dtype=np.float32)
    pick = rng.random((questions, models, repeats), dtype=np.float32)
    option = (pick[..., None] > cumulative[:, :, None, :2]).sum(axis=3)
    # Rounding can leave the last cumulative a hair under 1: never choose a missing option.
    option = np.minimum(option, present.sum(axis=1)[:, None, None] - 1).astype(np.int8)
    outcome = option
    missing_at, unresolved_at = shares.missing, shares.missing + shares.unresolved
    refusal_at = (unresolved_at + refusal)[None, :, None]
    outcome = np.where(kind < refusal_at, REFUSAL, outcome)
    outcome = np.where(kind < unresolved_at, UNRESOLVED, outcome)
    outcome = np.where(kind < missing_at, MISSING, outcome)
    return outcome.astype(np.int8)
