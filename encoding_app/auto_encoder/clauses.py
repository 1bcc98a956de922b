"""Clauses and negation: how far a rejection reaches, and every letter mentioned with whether
it is rejected. Pure: no Django."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .letters import _MENTION, _OPEN, _OPT, _is_option_letter


SCOPE = 80  # how far back (characters) a negation can reach a letter in its clause
_BOUNDARY = re.compile(
    r"[.!?;。！？；\n]|,(?=\s*(?:I|we|my|our|so|but|yet|however|then|the|they|it|this|that|you)\b)|,(?=[\u4e00-\u9fff])|"
    r"\b(?:but|however|yet|whereas|although|though|while|so|therefore|thus|hence|mais|pero|sino|aber|sondern|"
    r"но|однако|поэтому)\b|ولكن|لكن|但是|但|不过|然而|所以|因此", re.I)
_POST_BOUNDARY = re.compile(rf"{_BOUNDARY.pattern}|[,，:：)\-]|\b(?:because|since|as|which|who|given|due|if|when|"
                            r"porque|parce|car|puisque|weil|denn|потому|так\s+как)\b|因为|لأن", re.I)
POST_SCOPE = 40  # a rejection right after a letter: "B must be avoided", "B is not…"
_PRE_NEGATION = re.compile(
    r"\b(?:not|never|no(?!\s*[,.!;:]|\s+wait\b)|neither|nor|nobody|none|cannot|avoid\w*|reject\w*|rule\s+out|ruling\s+out|against|"
    r"instead\s+of|rather\s+than|other\s+than|anything\s+but|refus\w*|declin\w*|oppos\w*|far\s+from|"
    r"abandon\w*|dismiss\w*|discard\w*|eliminat\w*|exclud\w*|"
    r"ne|pas|jamais|aucun\w*|plutôt\s+que|éviter|rejet\w*|rejette\w*|"
    r"nunca|jamás|ni|ningun\w*|evitar\w*|rechaz\w*|en\s+lugar\s+de|en\s+vez\s+de|"
    r"nicht|nie|niemals|kein\w*|vermeid\w*|ablehn\w*|statt|anstatt|"
    r"не|ни|никогда|нельзя|избега\w*|отверга\w*|вместо)\b|n['’]t\b|\bn['’]|"
    r"(?<!\w)(?:لا|لن|ليس|لست|لم|أبدا|أبداً|تجنب\w*|أرفض|بدلا\s+من|بدلاً\s+من)(?!\w)|"
    r"不(?!对|过|仅)|没|別|别|避免|拒绝|而非|而不是", re.I)
_POST_NEGATION = re.compile(
    r"\b(?:not|never|avoid\w*|reject\w*|mistake|unacceptable|unwise|inadvisable|ill-advised|reckless|dangerous|"
    r"wrong|out\s+of\s+the\s+question|off\s+the\s+table|ruled\s+out|non-starter|too\s+risky|"
    r"pas|jamais|à\s+éviter|exclu\w*|inacceptable|no|nunca|inaceptable|descartad\w*|a\s+evitar|"
    r"nicht|nie|niemals|kein\w*|auszuschließen|inakzeptabel|vermeiden|не|нельзя|неприемлем\w*|исключ\w*)\b|"
    r"n['’]t\b|(?<!\w)(?:لا|ليس|ليست|غير\s+مقبول|مرفوض|يجب\s+تجنب\w*)(?!\w)|不|没|应避免|要避免|排除", re.I)
_TRAILING_NEGATION = re.compile(r"(?:\b(?:not|never|rather\s+than|instead\s+of|over|nicht|не|pas|no)|不)\W*$", re.I)
_JOINED = re.compile(
    r"[\"'”’)\]]*\s*,?\s*(?P<conn>or|and/or|/|ou|o|oder|или|либо|或者|或|还是|أو|and|und|et|y|и|和|与|و)\s*"
    r"(?:(?:perhaps|maybe|possibly|even|alternatively|else|peut-être|quizás|tal\s+vez|vielleicht|может\s+быть|也许|"
    rf"ربما)\s*)?,?\s*(?:{_OPT}\s*)?{_OPEN}$", re.I)


def _clause_start(text: str, pos: int, floor: int = 0) -> int:
    start = max(floor, pos - SCOPE)
    for boundary in _BOUNDARY.finditer(text, start, pos):
        start = boundary.end()
    return start


def _clause_end(text: str, pos: int) -> int:
    boundary = _BOUNDARY.search(text, pos)
    return boundary.start() if boundary else len(text)


def _negated(text: str, start: int, end: int, previous_end: int, next_start: int) -> bool:
    """Whether the span text[start:end] (a letter or an option's wording) is rejected in its
    clause: a negation before it, or a rejection right after it."""
    before = text[_clause_start(text, start, previous_end):start]
    if _PRE_NEGATION.search(before):
        return True
    limit = min(next_start, end + POST_SCOPE)
    stop = _POST_BOUNDARY.search(text, end, limit)
    after = text[end:stop.start() if stop else limit]
    if not stop and next_start <= end + POST_SCOPE:
        after = _TRAILING_NEGATION.sub("", after)
    return bool(_POST_NEGATION.search(after))


def _in_question(text: str, pos: int) -> bool:
    end = re.compile(r"[.!?。！？\n]").search(text, pos)
    return bool(end) and end.group() in "?？"


@dataclass
class _Mention:
    letter: str
    start: int
    negated: bool = False


def _mentions(text: str) -> list[_Mention]:
    found = [_Mention(m.group(), m.start()) for m in _MENTION.finditer(text)
             if _is_option_letter(text, m.start()) and not re.search(
                 r"\b(?:plan|vitamin|type|class|grade|part|article|annex|appendix|section|schedule|tier|phase|"
                 r"stage|group|category|country|state|power|nation)\s*$", text[max(0, m.start() - 15):m.start()], re.I)]
    for i, mention in enumerate(found):
        previous_end = found[i - 1].start + 1 if i else 0
        next_start = found[i + 1].start if i + 1 < len(found) else len(text)
        mention.negated = _negated(text, mention.start, mention.start + 1, previous_end, next_start)
        if i and found[i - 1].negated and (_JOINED.match(text[previous_end:mention.start]) or re.fullmatch(
                rf"[\"'”’)\]]*\s*(?:,|nor|ni|noch|ни)\s*(?:{_OPT}\s*)?{_OPEN}", text[previous_end:mention.start], re.I)):
            mention.negated = True
    return found
