"""The automatic encoder: a raw answer and the question's options in, a code out.

Codes are the paper's (appendix A.3): the option letter `A`/`B`/`C`, or `R` for a
refusal. Anything ambiguous is left unresolved (code None) for a reviewer: a wrong
automatic code is worse than a question to a person. Pure: no Django.

Rules, in order:
1. empty — nothing to code (the caller counts it as missing, never as R);
2. bare-letter — the whole answer is one letter (`B`, `**B**`, `(B).`);
3. leading-letter — the answer opens with a letter (`B: Quickly surge…`, `Answer: B`,
   `Réponse : B`), no other letter is chosen later, the answer does not write out two or
   more lettered options (`B: …\nA: …` lists options: `lists-options`), and the wording
   after the letter is not another option's (`letter-text-mismatch`);
4. explicit-choice — one letter named as chosen (`I would choose B`), even after an
   invented option (`D: … I would choose B` → B);
5. option-text — the text of exactly one option, quoted without its letter (and not inside
   a list of lettered options);
6. refusal — an explicit refusal or a declared inability to choose among the options;
and unresolved when letters conflict, the chosen letter is not an option, or nothing fires.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from difflib import SequenceMatcher

from scenarios_app.prompting import LETTERS


@dataclass(frozen=True)
class Encoding:
    code: str | None  # "A", "B", "C", "R" or None (unresolved)
    rule: str
    confidence: float

    @property
    def resolved(self) -> bool:
        return self.code is not None


_WRAP = r"[\s*_`\"'“”‘’\[\]()<>.,:;!-]*"
_BARE = re.compile(rf"^{_WRAP}([A-H]){_WRAP}$")
_LABEL = (r"(?i:final\s+answer|answer|choice|option|selection|recommendation|my\s+recommendation|réponse|respuesta|"
          r"resposta|antwort|risposta|答案|回答|选择)")
# A letter opening the answer, then punctuation, the end, a line break, or a new sentence
# (`B The rationale…`): "A good option would be…" opens with the article, not option A.
_LEADING = re.compile(
    rf"^\W*(?:{_LABEL}[*_]*\s*(?i:is\s*)?[:：\-–]?[*_]*\s*)?[*_`\"'(\[]*(?i:option\s+)?([A-H])(?![A-Za-z0-9])[*_`\"')\]]*"
    r"(?:[.:：)\-–,]|\s*$|\s*\n|\s+(?=[A-Z*_(\[]))")
_CHOICE_VERBS = (r"(?:would\s+(?:choose|select|pick|go\s+with|recommend|opt\s+for)|i\s+(?:choose|select|pick|recommend)|"
                 r"(?:choose|select|pick|recommend|go\s+with)(?:ing)?|answer\s+is|choice\s+is|answer\s+would\s+be|"
                 r"best\s+(?:option|choice|answer)\s+is|correct\s+(?:option|choice|answer)\s+is|"
                 r"je\s+choisis|elijo|escojo|ich\s+wähle|选择|选)")
_EXPLICIT = re.compile(
    rf"{_CHOICE_VERBS}\s*[:：]?\s*(?:the\s+)?(?:option\s+|choice\s+|letter\s+)?[*_`\"'(\[]*([A-H])(?![A-Za-z0-9])",
    re.IGNORECASE)
_REFUSAL = re.compile(
    r"(?:\bI\s*(?:cannot|can ?not|can['’]t|won['’]t|will\s+not|am\s+unable\s+to|am\s+not\s+able\s+to|"
    r"['’]m\s+unable\s+to|['’]m\s+not\s+able\s+to|must\s+decline|decline|refuse)\b[^.]*\b(?:choose|select|pick|answer|provide|recommend|"
    r"endorse|make|give|comply|help|assist)|"
    r"\bnone\s+of\s+(?:these|the|those)\s+(?:options|choices|answers)\b|"
    r"\bas\s+an\s+ai\b[^.]*\b(?:not|cannot|can't|don't)\b|"
    r"\bnot\s+(?:comfortable|appropriate\s+for\s+me)\b|"
    r"\bje\s+ne\s+peux\s+pas\b|\bno\s+puedo\b|\bich\s+kann\s+(?:keine|nicht)\b|无法|不能选择|我不能)",
    re.IGNORECASE)
# A letter written as an option's label: "A: …", "(B) …", "**C.** …" at a line start or
# after a space.
_LABEL_LETTER = re.compile(r"(?:^|(?<=[\s>*_(]))\(?([A-H])[*_`]*(?:[:：)]|\.(?=\s))")
MISMATCH_RATIO = 0.6  # how close to another option's wording the text after a letter must be
# After a chosen letter, another one offered as an alternative: "A or B", "A, or perhaps C".
_ALTERNATIVE = re.compile(r"[^.\n]{0,25}?\b(?:or|and|/|oder|ou|o)\b[^.\n]{0,15}?(?<![A-Za-z])([A-H])(?![A-Za-z0-9])")


def _letters_in_play(options: list[str]) -> str:
    return LETTERS[: len(options)]


def _normalise(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).lower()
    text = re.sub(r"[^\w\s]", " ", text)
    return re.sub(r"\s+", " ", text).strip()


def _option_matches(answer: str, options: list[str]) -> list[int]:
    said = _normalise(answer)
    found = []
    for index, option in enumerate(options):
        wanted = _normalise(option)
        if wanted and len(wanted) >= 12 and wanted in said:
            found.append(index)
    return found


def _echoes_another_option(rest: str, options: list[str], chosen: int) -> bool:
    """Whether the first line after a leading letter is clearly another option's wording."""
    line = _normalise(rest.strip().split("\n", 1)[0])
    if len(line) < 12:
        return False
    ratios = [SequenceMatcher(None, line[: len(_normalise(o)) + 20], _normalise(o)).ratio() for o in options]
    best = max(range(len(options)), key=ratios.__getitem__)
    return best != chosen and ratios[best] >= MISMATCH_RATIO and ratios[best] - ratios[chosen] >= 0.15


def _offers_alternative(text: str, end: int, valid: str) -> bool:
    match = _ALTERNATIVE.match(text, end)
    return bool(match) and match.group(1) in valid


def encode(answer: str | None, options: list[str]) -> Encoding:
    """Code one raw answer against the question's options, lettered A, B, C in order."""
    valid = _letters_in_play(options)
    text = (answer or "").strip()
    if not text:
        return Encoding(None, "empty", 0.0)

    bare = _BARE.match(text)
    if bare:
        letter = bare.group(1)
        return Encoding(letter, "bare-letter", 1.0) if letter in valid else Encoding(None, "letter-not-an-option", 0.0)

    explicit_matches = list(_EXPLICIT.finditer(text))
    explicit = [m.group(1).upper() for m in explicit_matches]
    explicit_valid = {letter for letter in explicit if letter in valid}
    leading = _LEADING.match(text)
    leading_letter = leading.group(1).upper() if leading else None
    # A choice hedged with another letter ("A or B", "choose A, or perhaps C") is never coded.
    hedged = any(_offers_alternative(text, match.end(1), valid) for match in explicit_matches + ([leading] if leading else []))

    # Two or more lettered options written out ("A: … B: …", "C: …\nD: …"): the answer
    # lists options, as a base model continuing the prompt does, rather than choosing one.
    listing = len(set(_LABEL_LETTER.findall(text))) >= 2

    if leading_letter is not None and leading_letter in valid:
        others = explicit_valid - {leading_letter}
        if others or (hedged and not explicit_valid):
            return Encoding(None, "conflicting-letters", 0.0)
        if listing:
            return Encoding(None, "lists-options", 0.0)
        # "B: <the wording of option A>": the letter and the text disagree.
        if _echoes_another_option(text[leading.end():], options, valid.index(leading_letter)):
            return Encoding(None, "letter-text-mismatch", 0.0)
        return Encoding(leading_letter, "leading-letter", 0.95)

    if len(explicit_valid) == 1 and not hedged:
        return Encoding(explicit_valid.pop(), "explicit-choice", 0.9)
    if len(explicit_valid) > 1 or hedged:
        return Encoding(None, "conflicting-letters", 0.0)
    if explicit and not explicit_valid:
        return Encoding(None, "letter-not-an-option", 0.0)

    matches = _option_matches(text, options)
    refusal = _REFUSAL.search(text)
    if listing and matches:
        return Encoding(None, "lists-options", 0.0)
    if len(matches) == 1 and not refusal:
        return Encoding(valid[matches[0]], "option-text", 0.85)
    if refusal and not matches:
        return Encoding("R", "refusal", 0.9)
    if leading_letter is not None and leading_letter not in valid:
        return Encoding(None, "letter-not-an-option", 0.0)
    return Encoding(None, "unresolved", 0.0)
