"""Expansion of a scenario into questions: one per (scenario version, dyad), and for a
three-option scenario a second, labelled two-option variant without its middle option
(paper 000, appendix A.1 footnote 27). Pure and deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass

from .naming import ActorName, substitute_actors

FULL = "full"
NO_MIDDLE = "no-middle"


@dataclass(frozen=True)
class TemplateOption:
    text: str
    category: str
    rank: int | None = None  # intensity order of the category; None for unordered domains


@dataclass(frozen=True)
class ExpandedQuestion:
    key: str
    variant: str
    actor_a: str
    actor_b: str
    qualified_actor: str
    text: str
    options: tuple[str, ...]
    categories: tuple[str, ...]
    option_order: tuple[int, ...]

    @property
    def choice_count(self) -> int:
        return len(self.options)


def question_key(scenario_key: str, version: int, actor_a: str, actor_b: str, variant: str) -> str:
    """A stable key a question keeps across exports: `esc2-attack-river.v1.CN-RU.full`."""
    return f"{scenario_key}.v{version}.{actor_a}-{actor_b}.{variant}"


def middle_index(options: list[TemplateOption]) -> int | None:
    """Index of the middle option of a three-option scenario (the one ranked between the others)."""
    if len(options) != 3 or any(option.rank is None for option in options):
        return None
    ranks = sorted(option.rank for option in options)
    if len(set(ranks)) != 3:
        return None
    return next(i for i, option in enumerate(options) if option.rank == ranks[1])


def variants(options: list[TemplateOption]) -> list[tuple[str, list[int]]]:
    """(variant label, indexes of the options it keeps)."""
    every = list(range(len(options)))
    middle = middle_index(options)
    if middle is None:
        return [(FULL, every)]
    return [(FULL, every), (NO_MIDDLE, [i for i in every if i != middle])]


def expand_scenario(
    scenario_key: str,
    version: int,
    template: str,
    options: list[TemplateOption],
    qualified: str,
    dyads: list[tuple[str, str]],
    names: dict[str, ActorName],
) -> list[ExpandedQuestion]:
    """Every question of one scenario version, in dyad order then variant order."""
    questions = []
    for actor_a, actor_b in dyads:
        name_a, name_b = names[actor_a], names[actor_b]
        text = substitute_actors(template, name_a, name_b)
        texts = [substitute_actors(option.text, name_a, name_b) for option in options]
        for variant, kept in variants(options):
            questions.append(
                ExpandedQuestion(
                    key=question_key(scenario_key, version, actor_a, actor_b, variant),
                    variant=variant,
                    actor_a=actor_a,
                    actor_b=actor_b,
                    qualified_actor=actor_a if qualified == "A" else actor_b,
                    text=text,
                    options=tuple(texts[i] for i in kept),
                    categories=tuple(options[i].category for i in kept),
                    option_order=tuple(range(len(kept))),
                )
            )
    return questions
