"""The BorderLines question template of one language, and how it is filled (paper 003, 4.1).

A template is one question in one language with three placeholders: XX the territory,
YY and ZZ the claimants ("Is XX a territory of YY or ZZ?"). The release writes a single
template per language, with two claimant slots, yet territories have 2 to 6 claimants.
Its reading, which this module keeps: the words between YY and ZZ are that language's
"or", and the whole span from YY to ZZ becomes every claimant, lettered in claimant
order and joined by that "or":

    "Is XX a territory of YY or ZZ?" with Crimea, [Russia, Ukraine, Moldova] ->
    "Is Crimea a territory of A) Russia or B) Ukraine or C) Moldova?"

so two claimants read exactly as the template and N claimants repeat the "or" (the
paper's Equation 1, whose letters mark it as a multiple-choice question). Where the
territory goes is the template's business (XX may follow the claimants, as in Malagasy).
"""

from __future__ import annotations

import string

LETTERS = string.ascii_uppercase
TERRITORY, FIRST, LAST = "XX", "YY", "ZZ"


def template_problem(template: str) -> str | None:
    """What stops the template being filled, or None when it can be."""
    for placeholder in (TERRITORY, FIRST, LAST):
        count = template.count(placeholder)
        if count != 1:
            where = "lacks" if count == 0 else f"has {count} of"
            return (f"template {where} the placeholder {placeholder} "
                    "(XX the territory, YY and ZZ the claimants, once each)")
    first, last, territory = (template.index(p) for p in (FIRST, LAST, TERRITORY))
    if last < first:
        return "template has ZZ before YY (the claimants go from YY to ZZ)"
    if first < territory < last:
        return "template has XX between YY and ZZ (the claimants' 'or' must not hold the territory)"
    return None


def or_word(template: str) -> str:
    """The language's 'or': the template's words between YY and ZZ."""
    return template[template.index(FIRST) + len(FIRST):template.index(LAST)].strip()


def lettered(choices: list[str] | tuple[str, ...], or_: str) -> str:
    """'A) c1 or B) c2 or C) c3' in the claimants' order."""
    if len(choices) > len(LETTERS):
        raise ValueError(f"{len(choices)} claimants: at most {len(LETTERS)} can be lettered")
    return f" {or_} ".join(f"{letter}) {name}" for letter, name in zip(LETTERS, choices))


def fill_template(template: str, territory: str, choices: list[str] | tuple[str, ...]) -> str:
    """The question: XX replaced by the territory, YY...ZZ by the lettered claimants.

    The template is cut into pieces before filling, so a name that happens to contain
    XX or ZZ is never filled again.
    """
    problem = template_problem(template)
    if problem:
        raise ValueError(f"{template!r}: {problem}")
    start, end = template.index(FIRST), template.index(LAST) + len(LAST)
    head, tail = template[:start], template[end:]
    listing = lettered(choices, or_word(template))
    if TERRITORY in head:
        head = head.replace(TERRITORY, territory)
    else:
        tail = tail.replace(TERRITORY, territory)
    return head + listing + tail
