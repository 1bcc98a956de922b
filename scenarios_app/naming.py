"""Actor names as prompts use them, and grammar-safe substitution into templates.

`[Actor A]'s` becomes `Brazil's`, `the United States'`, or `The Netherlands'` at the
start of a sentence. A translation's `[Actor A:genitive]` becomes the actor's name in that
form (России), as the actor's name translation gives it. Pure: no Django.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

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


class MissingNameForm(LookupError):
    """A slot asks for a form of a name that the actor's name translation does not give."""


@dataclass(frozen=True)
class ActorName:
    name: str
    article: bool = False
    forms: dict[str, str] = field(default_factory=dict, hash=False)  # form name -> the name in that form

    def form(self, form: str) -> str:
        if form not in self.forms:
            raise MissingNameForm(f"{self.name} has no {form} form")
        return self.forms[form]

    def phrase(self, sentence_start: bool) -> str:
        if not self.article:
            return self.name
        return ("The " if sentence_start else "the ") + self.name

    def possessive(self, sentence_start: bool) -> str:
        phrase = self.phrase(sentence_start)
        return phrase + ("'" if phrase.endswith("s") else "'s")


# `[Actor A]` (or a translation's `[Actor A:genitive]`), optionally followed by a possessive
# `'s` (straight or curly apostrophe), optionally preceded by a stray "the " that authors
# sometimes write before the slot.
_SLOT = re.compile(r"(?P<the>\b[Tt]he )?\[Actor (?P<which>[AB])(?::(?P<form>[a-z_]+))?\](?P<poss>['’]s\b)?")
_SENTENCE_START = re.compile(r"(^|[.!?:]\s+|\n\s*|[\"“(]\s*)$")


def substitute_actors(template: str, actor_a: ActorName, actor_b: ActorName) -> str:
    """Put real actor names into a template's `[Actor A]` and `[Actor B]` slots (a slot
    with a form, `[Actor A:genitive]`, takes that form as it is; MissingNameForm if the
    actor has none)."""
    actors = {"A": actor_a, "B": actor_b}

    def replace(match: re.Match) -> str:
        actor = actors[match.group("which")]
        if match.group("form"):
            return (match.group("the") or "") + actor.form(match.group("form")) + (match.group("poss") or "")
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


def forms_used(text: str) -> set[tuple[str, str]]:
    """(A or B, form) of every slot of `text` that asks for a form: `[Actor A:genitive]` -> ("A", "genitive")."""
    return {(match.group("which"), match.group("form")) for match in _SLOT.finditer(text) if match.group("form")}


_UNKNOWN_SLOT = re.compile(r"\[\s*Actor\s*([^\]]*)\]", re.IGNORECASE)


def malformed_slots(text: str) -> list[str]:
    """Bracketed actor slots that are not exactly `[Actor A]` or `[Actor B]`."""
    return [m.group(0) for m in _UNKNOWN_SLOT.finditer(text) if m.group(0) not in ("[Actor A]", "[Actor B]")]


def parse_forms(text: str) -> dict[str, str]:
    """The console's `genitive=России; dative=России` (`;` or new lines between) as
    {form: text}; ValueError naming the part that is not `form=text`. Which forms a
    language has is checked by the caller (`translations.check_forms`)."""
    forms: dict[str, str] = {}
    for part in re.split(r"[;\n]", text or ""):
        if not part.strip():
            continue
        form, equals, value = part.partition("=")
        if not equals or not form.strip():
            raise ValueError(f"{part.strip()!r}: write form=text, e.g. genitive=России")
        if form.strip() in forms:
            raise ValueError(f"{form.strip()}: given twice")
        forms[form.strip()] = value.strip()
    return forms


def format_forms(forms: dict[str, str], order: tuple[str, ...] = ()) -> str:
    """`forms` as the console types them, in `order` (a language's forms; a JSON column
    need not keep the order they were written in), then any others by name."""
    rank = {form: i for i, form in enumerate(order)}
    ordered = sorted(forms, key=lambda form: (rank.get(form, len(rank)), form))
    return "; ".join(f"{form}={forms[form]}" for form in ordered)
