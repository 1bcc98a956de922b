"""Reading a generated answer to a BorderLines question (paper 003, 5.1: "search for the
string of claimant, then for a letter, then manual extraction").

read_answer(answer, choices, claimants_en) -> Reading(claimant, rule, reason):

1. Claimant name. Every claimant's name as the question showed it and in English is
   looked for, case-insensitively (after NFKC, so full-width letters count). Where a
   script separates words (Latin, Cyrillic, Arabic, Devanagari...) a name counts only as
   whole words; where it does not (Chinese, Japanese, Thai, Lao, Khmer, Burmese) any
   occurrence counts; Korean Hangul too, since particles attach to the noun ("일본의").
   Arabic and Hebrew names may carry a one- or two-letter proclitic ("والمغرب", "לישראל").
   An occurrence inside a longer occurrence of another claimant's name does not count
   ("Sudan" inside "South Sudan", "Republic of China" inside "People's Republic of
   China"). Exactly one claimant named: that claimant. Two or more: unresolved, whatever
   letters the answer also gives (a model that names both sides has not chosen).
2. Option letter, when no claimant is named: exactly one distinct letter written "X)"
   ("B)", "(B)", "**B)**"), or the whole answer a single letter once markdown and
   punctuation are stripped ("B", "**b.**"). A letter past the choices, or two letters,
   is unresolved. Cyrillic and Greek capitals that look like A, B, C, E are read as
   those letters (a Russian answer's "В)" is often Cyrillic).
3. Otherwise unresolved, with a reason a reviewer can act on; manual coding takes over.

Names that are inflected in the answer ("России" for "Россия") are not found by rule 1;
the letter usually is.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from .question_template import LETTERS

NAME, LETTER, UNRESOLVED = "claimant name", "option letter", "unresolved"
COUNT_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}
# Scripts written without spaces between words (or, for Hangul, with particles glued on).
SUBSTRING_SCRIPTS = ("CJK", "HIRAGANA", "KATAKANA", "HANGUL", "THAI", "LAO", "KHMER", "MYANMAR")
PROCLITICS = {"ARABIC": set("وفبلك"), "HEBREW": set("והבלמשכ")}
LOOKALIKES = str.maketrans("АВСЕΑΒΕ", "ABCEABE")  # Cyrillic А В С Е, Greek Α Β Ε


@dataclass(frozen=True)
class Reading:
    claimant: int | None  # index in the claimant order; None when unresolved
    rule: str  # NAME, LETTER or UNRESOLVED
    reason: str

    @property
    def resolved(self) -> bool:
        return self.claimant is not None


def _normal(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def _is_word_char(char: str) -> bool:
    # Letters, digits and combining marks: a Devanagari vowel sign continues its word.
    return unicodedata.category(char)[0] in "LNM"


def _script(char: str) -> str:
    return unicodedata.name(char, "").split(" ")[0]


def _occurrences(text: str, name: str) -> list[tuple[int, int]]:
    """(start, end) of each counted occurrence of a normalised name in a normalised text."""
    words = name.split()
    if not words:
        return []
    pattern = r"\s+".join(re.escape(word) for word in words)
    scripts = {_script(char) for char in name if _is_word_char(char)}
    if any(script in SUBSTRING_SCRIPTS for script in scripts):
        return [m.span() for m in re.finditer(pattern, text)]
    proclitics = PROCLITICS.get(_script(name[0]), set())
    spans = []
    for match in re.finditer(pattern, text):
        start, end = match.span()
        if end < len(text) and _is_word_char(text[end]):
            continue
        before = start
        while before > 0 and _is_word_char(text[before - 1]):
            before -= 1
        prefix = text[before:start]
        if prefix and not (len(prefix) <= 2 and set(prefix) <= proclitics):
            continue
        spans.append((start, end))
    return spans


def named_claimants(answer: str, choices: Sequence[str], claimants_en: Sequence[str]) -> list[int]:
    """Indexes of the claimants the answer names (rule 1), in claimant order."""
    text = _normal(answer)
    found = []  # (start, end, claimant)
    for index, names in enumerate(zip(choices, claimants_en)):
        for name in {_normal(n).strip() for n in names if n and n.strip()}:
            found += [(start, end, index) for start, end in _occurrences(text, name)]
    counted = {index for start, end, index in found
               if not any(s <= start and end <= e and (e - s) > (end - start) and other != index
                          for s, e, other in found)}
    return sorted(counted)


def _letters(answer: str) -> list[str]:
    text = unicodedata.normalize("NFKC", answer).translate(LOOKALIKES)
    letters = []
    for match in re.finditer(r"([A-Z])\)", text):
        start = match.start()
        if start > 0 and _is_word_char(text[start - 1]):
            continue
        if match.group(1) not in letters:
            letters.append(match.group(1))
    if letters:
        return letters
    bare = "".join(char for char in text if _is_word_char(char))
    return [bare.upper()] if len(bare) == 1 and bare.upper() in LETTERS else []


def _count(n: int) -> str:
    return COUNT_WORDS.get(n, str(n))


def read_answer(answer: str, choices: Sequence[str], claimants_en: Sequence[str]) -> Reading:
    """The claimant a generated answer chooses, by rule 1 then rule 2, or unresolved."""
    if len(choices) != len(claimants_en):
        raise ValueError(f"{len(choices)} choices but {len(claimants_en)} English names; give both in claimant order")
    if not answer or not answer.strip():
        return Reading(None, UNRESOLVED, "empty answer")
    named = named_claimants(answer, choices, claimants_en)
    if len(named) == 1:
        return Reading(named[0], NAME, f"names {claimants_en[named[0]]}")
    if named:
        return Reading(None, UNRESOLVED, f"names {_count(len(named))} claimants: "
                                         f"{', '.join(claimants_en[i] for i in named)}")
    letters = _letters(answer)
    offered = f"{LETTERS[0]}) to {LETTERS[len(choices) - 1]})"
    if len(letters) > 1:
        return Reading(None, UNRESOLVED, f"no claimant named; gives {_count(len(letters))} letters: "
                                         f"{', '.join(letter + ')' for letter in letters)}")
    if letters:
        index = LETTERS.index(letters[0])
        if index >= len(choices):
            return Reading(None, UNRESOLVED, f"no claimant named; letter {letters[0]}) is not among "
                                             f"the choices {offered}")
        return Reading(index, LETTER, f"letter {letters[0]}) = {claimants_en[index]}")
    return Reading(None, UNRESOLVED, "no claimant named, no option letter")
