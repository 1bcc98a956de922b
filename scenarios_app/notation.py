"""The paper's actor-set notation: `(CN,RU), (RU,CN), (DE,FR)`.

An actor set may also name a stored set, which expands to all its ordered pairs,
optionally filtered by which actors may stand as A or as B:
`{Universal Generic}` or `{Universal Generic | A: US,GB | B: CN,RU}`.
Pure: parsing returns plain values and reports problems with their position.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

ACTOR_CODE = re.compile(r"^[A-Z][A-Z0-9_]{1,11}$")


class NotationError(ValueError):
    """An actor-set text that cannot be read; the message says where and how to fix it."""


@dataclass(frozen=True)
class SetExpression:
    name: str
    only_a: tuple[str, ...] = ()
    only_b: tuple[str, ...] = ()

    def pairs(self, members: list[str]) -> list[tuple[str, str]]:
        """All ordered pairs of distinct members, in member order, filtered."""
        return [
            (a, b)
            for a in members
            if not self.only_a or a in self.only_a
            for b in members
            if a != b and (not self.only_b or b in self.only_b)
        ]

    def text(self) -> str:
        parts = [self.name]
        if self.only_a:
            parts.append("A: " + ",".join(self.only_a))
        if self.only_b:
            parts.append("B: " + ",".join(self.only_b))
        return "{" + " | ".join(parts) + "}"


@dataclass
class ActorSetText:
    pairs: list[tuple[str, str]] = field(default_factory=list)
    sets: list[SetExpression] = field(default_factory=list)


_PAIR = re.compile(r"\(\s*([^,()\s]+)\s*,\s*([^,()\s]+)\s*\)")
_SET = re.compile(r"\{([^{}]*)\}")


def _codes(text: str, where: str) -> tuple[str, ...]:
    codes = tuple(code.strip().upper() for code in text.split(",") if code.strip())
    for code in codes:
        if not ACTOR_CODE.match(code):
            raise NotationError(f"{where}: {code!r} is not an actor code (2-12 letters, digits or _)")
    return codes


def _parse_set(body: str) -> SetExpression:
    name, *filters = [part.strip() for part in body.split("|")]
    if not name:
        raise NotationError("an actor-set expression {…} needs a set name, e.g. {Universal Generic}")
    only = {"A": (), "B": ()}
    for part in filters:
        which, sep, codes = part.partition(":")
        which = which.strip().upper()
        if not sep or which not in only:
            raise NotationError(f"in {{{body}}}: filter {part!r} must read 'A: CODES' or 'B: CODES'")
        only[which] = _codes(codes, f"in {{{body}}}")
    return SetExpression(name, only["A"], only["B"])


def parse_actor_set(text: str) -> ActorSetText:
    """Read `(CN,RU), (RU,CN)` and `{Set | A: ..}` items; codes are upper-cased.

    Raises NotationError naming the text that could not be read. Duplicate pairs
    and self-pairs are left for validation to report, with the scenario they belong to.
    """
    result = ActorSetText()
    rest = text
    for match in _SET.finditer(text):
        result.sets.append(_parse_set(match.group(1)))
    rest = _SET.sub(" ", rest)
    for match in _PAIR.finditer(rest):
        a, b = match.group(1).upper(), match.group(2).upper()
        for code in (a, b):
            if not ACTOR_CODE.match(code):
                raise NotationError(f"{match.group(0)!r}: {code!r} is not an actor code (2-12 letters, digits or _)")
        result.pairs.append((a, b))
    leftover = _PAIR.sub(" ", rest).strip(" ,;\t\r\n")
    if re.sub(r"[\s,;]", "", leftover):
        raise NotationError(
            f"cannot read {leftover[:40]!r}: write dyads as (A,B) pairs separated by commas, e.g. (CN,RU), (RU,CN)"
        )
    return result


def format_pairs(pairs: list[tuple[str, str]]) -> str:
    return ", ".join(f"({a},{b})" for a, b in pairs)
