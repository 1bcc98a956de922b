"""How each benchmark family asks its questions: a registry the engine consults, so the
engine knows questions, conditions and answers and never a family's specifics.

A family app registers itself from its AppConfig.ready():

    families.register(Family(name="cfpd", render=..., filter_questions=...))

- `render(question, order, condition, system_prompt)` returns the chat messages for one
  unit: `order` is the option order shown (indexes into `question.options`), `condition`
  the unit's Condition, `system_prompt` a run's override ("" for none).
- `filter_questions(queryset, selection)` narrows a benchmark's current questions by the
  family's own selection keys (CFPD: domains, qualified actors); the engine itself only
  knows choice counts, samples and seeds.
- `rank_prompt(question, order, condition, system_prompt)` (optional) returns the
  plain-text prompt and the continuations (option texts in `order`) that rank
  classification scores; a strategy's system prompt, where the family uses one, leads the
  prompt.
- `check_selection(selection)` (optional) returns {field: [messages]} for selection
  keys that name nothing.
- `applies(question, condition)` (optional) says whether the condition can be asked of
  the question at all (BorderLines' nationalist persona has no country for the English
  control): a launch makes no unit where it cannot.
- `permutable`: whether option order may be shuffled (False where the letters are
  written inside the question text, as BorderLines writes them).
- `read_answer(question, text)` (optional) reads a generated answer the family's way
  before the generic encoder: returns (index into question.options, rule, reason), with
  index None for "unresolved, tell reviewers `reason`", or None to leave the answer to
  the generic encoder.
- `summary(benchmark)` (optional) returns HTML (already escaped) describing a
  benchmark's questions for the console, e.g. CFPD's counts by domain and actor.
- `follow_ups(question)` (optional) returns the ids of questions asked after this one in
  the same conversation (the free-form family's move 2 after move 1): when a unit's
  answer arrives, the engine creates one unit per follow-up (same run, model, condition
  and repeat) in the transaction that writes the answer, and asks it with the earlier
  messages and answer before the follow-up's own turn.
- `mark_asked(question_ids)` (optional) is called in the transaction that creates a
  run's units or imports answers: CFPD freezes the scenario versions asked.
No Django import here: families hand in plain callables.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable


def _no_filter(queryset, selection):
    return queryset


def _no_errors(selection) -> dict[str, list[str]]:
    return {}


def _nothing(question_ids) -> None:
    return None


def _always(question, condition) -> bool:
    return True


@dataclass(frozen=True)
class Family:
    name: str
    render: Callable[..., list[dict[str, str]]]
    filter_questions: Callable[[Any, Any], Any] = _no_filter
    check_selection: Callable[[Any], dict[str, list[str]]] = _no_errors
    mark_asked: Callable[[list[int]], None] = _nothing
    applies: Callable[[Any, Any], bool] = _always
    permutable: bool = True
    read_answer: Callable[[Any, str], tuple[int | None, str, str] | None] | None = None
    summary: Callable[[Any], str] | None = None
    rank_prompt: Callable[..., tuple[str, list[str]]] | None = None
    follow_ups: Callable[[Any], list[int]] | None = None

    @property
    def asks_every_condition(self) -> bool:
        """Whether every condition applies to every question (no `applies` of its own):
        a launch then needs no question object to decide its units."""
        return self.applies is _always


_registry: dict[str, Family] = {}


class UnknownFamily(LookupError):
    pass


def register(family: Family) -> None:
    _registry[family.name] = family


def family(name: str) -> Family:
    try:
        return _registry[name]
    except KeyError:
        known = ", ".join(sorted(_registry)) or "none"
        raise UnknownFamily(f"no benchmark family {name!r} is installed (installed: {known})") from None


def registered() -> list[str]:
    return sorted(_registry)


def plain_messages(text: str, system_prompt: str = "") -> list[dict[str, str]]:
    """A question without options, as any family may ask one: the text as the user turn."""
    messages = [{"role": "system", "content": system_prompt}] if system_prompt else []
    return messages + [{"role": "user", "content": text}]
