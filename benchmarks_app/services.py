"""Workflows on the shared question table that every family and the engine use."""

from __future__ import annotations

from . import families
from .models import Benchmark, Condition, DEFAULT_CONDITION_ID, Question


def current_questions(benchmark: Benchmark):
    """The questions a new run of this benchmark asks."""
    return Question.objects.filter(benchmark=benchmark, is_current=True)


def render_messages(question: Question, order: list[int], condition: Condition | None,
                    system_prompt: str = "") -> list[dict[str, str]]:
    """The chat messages of one unit, as the question's family writes them."""
    return families.family(question.benchmark.family).render(question, order, condition, system_prompt or "")


def default_condition() -> Condition:
    return Condition.objects.get(pk=DEFAULT_CONDITION_ID)
