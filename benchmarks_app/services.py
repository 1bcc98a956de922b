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


# --- prompted perspective (issue 40: GlobalOpinionQA's cross-national prompting) ------------

PERSPECTIVE_PREFIX = "Answer as someone from {country} would."


class PerspectiveInvalid(ValueError):
    """The country of a perspective cannot be read; the message says why."""


def perspective_condition(country: str, family: str = "") -> Condition:
    """The condition "answer as someone from <country>" (made once, then found): the family's
    own system prompt (the default family's when none is named) after the sentence, so the
    family's instructions (answer with a letter) still hold. `country` is an actor's code
    (its prompt name is used, e.g. "KR" → South Korea) or a name of 2-80 characters. Launch
    it as any condition (run_benchmark --conditions perspective-…); Models and people shows
    the model's similarity under it as a row of its own."""
    from django.utils.text import slugify

    from .models import Actor

    if not isinstance(country, str) or not 2 <= len(country.strip()) <= 80 or any(c in country for c in "{}\n\r\x00"):
        raise PerspectiveInvalid("country: an actor's code or a country's name of 2 to 80 characters, e.g. DE or Germany")
    country = country.strip()
    actor = Actor.objects.filter(code=country.upper()).first() if len(country) <= 3 else None
    shown = actor.prompt_name if actor is not None and actor.prompt_name else country
    if family:
        families.family(family)  # an unknown family raises here, named
    base = (families.family(family).system_prompt if family else families.default_system_prompt()) or ""
    name = f"perspective-{slugify(shown)}" + (f"-{family}" if family else "")
    prompt = PERSPECTIVE_PREFIX.format(country=shown) + ("\n\n" + base if base else "")
    found, _ = Condition.objects.get_or_create(name=name[:64], defaults={
        "label": f"Answer as someone from {shown}"[:120], "kind": Condition.Kind.STRATEGY, "family": family,
        "system_prompt": prompt,
        "description": "Prompted perspective (GlobalOpinionQA's cross-national prompting): does the model move "
                       "toward that country's panel?"})
    return found


class ActorLanguagesError(ValueError):
    """Languages of an actor that are not BCP 47 tags; the message names the first."""


def actor_languages_problem(codes: list[str]) -> str | None:
    from .language_codes import language_problem

    return next((problem for problem in map(language_problem, codes) if problem), None)


def set_actor_languages(actor, codes: list[str]):
    """Record `actor`'s own languages (BCP 47 codes, main one first, each once): a launch
    asking each actor in its own language asks its dyads in them."""
    problem = actor_languages_problem(codes)
    if problem:
        raise ActorLanguagesError(f"{actor.code} languages: {problem}")
    actor.languages = list(dict.fromkeys(codes))
    actor.save(update_fields=["languages"])
    return actor
