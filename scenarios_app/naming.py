"""Actor names as prompts use them, and grammar-safe substitution into templates.

`[Actor A]'s` becomes `Brazil's`, `the United States'`, or `The Netherlands'` at the
start of a sentence. Pure: no Django.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Customary English short names where pycountry offers none that reads naturally.
CUSTOMARY_SHORT_NAMES = {
    "RU": "Russia",
    "VA": "Holy See",
}

# Names that take "the" although no keyword below says so.
_ARTICLE_NAMES = {
    "Netherlands", "Philippines", "Bahamas", "Gambia", "Maldives", "Comoros", "Seychelles",
    "Caribbean Islands", "Holy See", "Vatican",
}
_ARTICLE_WORDS = {
    "Republic", "Kingdom", "Federation", "Union", "States", "Islands", "Isles",
    "Organization", "Organisation", "Emirates", "Alliance",
}


def country_prompt_name(alpha_2: str, name: str, common_name: str | None) -> str:
    """The short name a prompt should use for an ISO 3166 country.

    `Korea, Republic of` has the common name `South Korea`; `Virgin Islands, British`
    has none and reads `British Virgin Islands`; `Palestine, State of` reads
    `State of Palestine`.
    """
    if alpha_2 in CUSTOMARY_SHORT_NAMES:
        return CUSTOMARY_SHORT_NAMES[alpha_2]
    short = common_name or name
    if ", " in short:
        head, tail = short.split(", ", 1)
        if tail.endswith(" of") or tail.endswith(" of the") or " " not in tail:
            short = f"{tail} {head}"
    short = re.sub(r"\s*\(.*\)$", "", short)
    if short.startswith("The "):
        short = short[4:]
    return short


def takes_definite_article(name: str) -> bool:
    """Whether English puts "the" before the name: the United States, the Netherlands."""
    if name in _ARTICLE_NAMES or name.startswith("State of "):
        return True
    return any(word in _ARTICLE_WORDS for word in name.split())


@dataclass(frozen=True)
class ActorName:
    name: str
    article: bool = False

    def phrase(self, sentence_start: bool) -> str:
        if not self.article:
            return self.name
        return ("The " if sentence_start else "the ") + self.name

    def possessive(self, sentence_start: bool) -> str:
        phrase = self.phrase(sentence_start)
        return phrase + ("'" if phrase.endswith("s") else "'s")


# `[Actor A]`, optionally followed by a possessive `'s` (straight or curly apostrophe),
# optionally preceded by a stray "the " that authors sometimes write before the slot.
_SLOT = re.compile(r"(?P<the>\b[Tt]he )?\[Actor (?P<which>[AB])\](?P<poss>['’]s\b)?")
_SENTENCE_START = re.compile(r"(^|[.!?:]\s+|\n\s*|[\"“(]\s*)$")


def substitute_actors(template: str, actor_a: ActorName, actor_b: ActorName) -> str:
    """Put real actor names into a template's `[Actor A]` and `[Actor B]` slots."""
    actors = {"A": actor_a, "B": actor_b}

    def replace(match: re.Match) -> str:
        actor = actors[match.group("which")]
        preceding = template[: match.start()]
        at_start = bool(_SENTENCE_START.search(preceding))
        if match.group("the"):
            # The author wrote "the [Actor A]": keep their article only if the name takes one.
            at_start = match.group("the")[0] == "T"
            if not actor.article:
                text = actor.name
                return text + ("'s" if match.group("poss") else "")
        if match.group("poss"):
            return actor.possessive(at_start)
        return actor.phrase(at_start)

    return _SLOT.sub(replace, template)


def actor_slots(text: str) -> set[str]:
    """Which of `A`, `B` a text mentions as `[Actor A]` / `[Actor B]`."""
    return {match.group("which") for match in _SLOT.finditer(text)}


_UNKNOWN_SLOT = re.compile(r"\[\s*Actor\s*([^\]]*)\]", re.IGNORECASE)


def malformed_slots(text: str) -> list[str]:
    """Bracketed actor slots that are not exactly `[Actor A]` or `[Actor B]`."""
    return [m.group(0) for m in _UNKNOWN_SLOT.finditer(text) if m.group(0) not in ("[Actor A]", "[Actor B]")]
