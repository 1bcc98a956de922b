"""Option letters in a cleaned answer: when a capital is an option letter, not the article A or
the pronoun I. Pure: no Django."""

from __future__ import annotations

import re


# A capital standing alone: not inside a word, an abbreviation (U.S.) or a compound (B-52).
_AFTER_LETTER = r"(?![A-Za-z0-9]|['’](?:d|ll|m|ve|re|t)\b|-\w|\.[A-Za-z])"
_MENTION = re.compile(rf"(?<![A-Za-z0-9.])[A-Z]{_AFTER_LETTER}")
_OPT = (r"(?:(?:the\s+)?(?:option|choice|letter|alternative|answer)|l['’]\s*option|la\s+opci[oó]n|opci[oó]n|"
        r"op[cç][aã]o|(?:die\s+)?(?:antwort|variante|m[oö]glichkeit)|вариант\w*|пункт|(?:ال)?خيار|(?:ال)?إجابة|"
        r"选项|方案)")
_OPEN = r"[\"'“‘«(\[]*"
_CLOSE = r"[\"'”’»)\]]*"
_LETTER = rf"{_OPEN}(?P<letter>(?-i:[A-Z])){_AFTER_LETTER}"
_OBJECT = rf"\s*[:：]?\s*(?:(?:la|le|el|die|der|das)\s+)?(?:{_OPT}\s*[:：]?\s*)?{_LETTER}"  # what follows a choice verb
# Words after which a capital is an option letter (unless it is "I" the pronoun or "A" the
# article, which also need what follows them to fit).
_LETTER_CONTEXT = re.compile(
    rf"(?:{_OPT}\s*[:：]?|[(\[\"'“‘«]|(?<![A-Za-z])(?-i:[A-Z])\s*(?:,|/|\bor|\band|\bou|\bo|\boder|или|或|أو)|"
    r"\b(?:choose|chose|select|pick|recommend|prefer|favou?r|support|endorse|opt\s+for|go\s+with|not|never)|[:：])\s*$",
    re.I)
# What the letter A may be followed by (else it is the article: "A British response…").
_A_FOLLOWERS = frozenset("""is was would will could should might may must can cannot seems seemed appears remains
offers risks has had carries avoids provides gives leads means makes keeps looks sounds does balances protects
preserves signals escalates and or nor vs versus because since as over rather instead than but for with to if here
too also alone only best first then now still though while whereas
est serait es sería ist wäre porque pues car parce puisque weil denn da y et und o ou oder pero mais aber sino sondern
con avec mit sin sans ohne""".split())
_I_FOLLOWERS = frozenset("is seems remains because since over rather instead than as est es ist porque car weil".split())
_NEXT_WORD = re.compile(r"[ \t]+([^\W\d_]+)")


def _is_option_letter(text: str, start: int, chosen_context: bool = False) -> bool:
    """Whether the capital at `start` is an option letter, not the article A or the pronoun I.

    `chosen_context`: the letter stands where a choice puts its letter (after `I choose`,
    `Answer:`, at a line's start), so a bare "I" can be the ninth option."""
    letter = text[start]
    if letter not in "AI":
        return True
    strong = bool(_LETTER_CONTEXT.search(text[max(0, start - 30):start]))
    word = _NEXT_WORD.match(text, start + 1)
    if letter == "I":
        if strong and not re.match(r"\s*(?:would|will|think|believe|am|have|do|can|must|'|’)", text[start + 1:]):
            return True
        if not chosen_context:
            return False
        return word is None or word.group(1).lower() in _I_FOLLOWERS or not word.group(1).isascii()
    if word is None or strong and not word.group(1)[0].isupper():
        return True
    return word.group(1).lower() in _A_FOLLOWERS or not word.group(1).isascii()
