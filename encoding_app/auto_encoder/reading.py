"""The encoder: `encode` reads one answer against its options and returns an `Encoding`. Pure:
no Django."""

from __future__ import annotations

import re
import string
from dataclasses import dataclass

from .choices import _LABEL_LETTER, _LABEL_WORDS as LABEL_WORDS, _choices, _sentence_start
from .clauses import _Mention, _clause_end, _clause_start, _mentions, _negated
from .conflicts import _ALSO_OPEN, _CORRECTION, _DISCLAIMER, _REFUSAL, _hedges
from .letters import _LETTER, _OBJECT, _OPT, _is_option_letter
from .markup import _clean
from .wording import _echoes_another_option, _option_spans


@dataclass(frozen=True)
class Encoding:
    code: str | None  # an option letter, "R", or None (unresolved)
    rule: str
    confidence: float
    reason: str = ""  # for unresolved answers: a sentence for the reviewer

    @property
    def resolved(self) -> bool:
        return self.code is not None


CONFIDENCE = {"bare-letter": 1.0, "leading-letter": 0.95, "explicit-choice": 0.9, "final-answer": 0.9,
              "refusal-then-choice": 0.8, "option-text": 0.85, "refusal": 0.9}


def _unresolved(rule: str, reason: str) -> Encoding:
    return Encoding(None, rule, 0.0, reason)


def _coded(code: str, rule: str) -> Encoding:
    return Encoding(code, rule, CONFIDENCE[rule])


def _join(letters) -> str:
    letters = sorted(set(letters))
    return ", ".join(letters[:-1]) + " and " + letters[-1] if len(letters) > 1 else "".join(letters)


def _quote(text: str, pos: int) -> str:
    start, end = _sentence_start(text, pos), re.compile(r"[.!?。！？\n]|$").search(text, pos + 1).end()
    snippet = text[start:end].strip()
    return snippet if len(snippet) <= 90 else snippet[:87] + "…"


def encode(answer: str | None, options: list[str]) -> Encoding:
    """Code one raw answer against the question's options, lettered A, B, C … in order."""
    valid = string.ascii_uppercase[: len(options)]
    if not (answer or "").strip():
        return _unresolved("empty", "The answer is empty.")
    text = _clean(answer)
    if not text:
        return _unresolved("unresolved", "Nothing is left once the markup is taken out.")
    result = _read(text, options, valid)
    if result.code is not None and result.code != "R" and result.code not in valid:  # never a letter past the options
        return _unresolved("letter-not-an-option", f"{result.code} is not one of the options.")
    return result


def _read(text: str, options: list[str], valid: str) -> Encoding:
    bare = re.fullmatch(r"[\s\"'“”‘’«»\[\](){}.,:;!-]*([A-Z])[\s\"'“”‘’«»\[\](){}.,:;!-]*", text)
    if bare:
        letter = bare.group(1)
        if letter in valid:
            return _coded(letter, "bare-letter")
        return _unresolved("letter-not-an-option", f"{letter} is not one of the options ({_join(valid)}).")

    mentions = _mentions(text)
    negated_at = {m.start for m in mentions if m.negated}
    negated_letters = {m.letter for m in mentions if m.negated and m.letter in valid}
    choices = [c for c in _choices(text) if c.start not in negated_at]

    labels = {a or b for a, b in _LABEL_LETTER.findall(text)}
    listing = len(labels) >= 2
    if listing:
        # A letter alone on its line is an answer, not an item of the list ("A\nB: …\nAnswer: B"
        # holds two answers, A and B: seen in Gemma 3's free text in the demo).
        # An empty label ("A:" with nothing after it) opens another item, though: a base model
        # continuing the prompt writes one (seen in the demo: "C: …\nD: …\n\nWhich of…\n\nA:").
        choices = [c for c in choices if not c.label_line
                   or (_alone_on_line(text, c.start) and not _empty_label(text, c.start))]
    first_line = text.split("\n", 1)[0]
    opening = re.match(r"\s*((?:[A-Z][\s,.;:/)|-]*){2,})$", first_line)
    # "ANSWER: B" (Inspect AI's multiple-choice template) is a label in capitals, not letters.
    if opening and re.match(rf"\s*{LABEL_WORDS}\s*[:：]", first_line, re.I):
        opening = None
    if opening and len(set(re.findall(r"[A-Z]", opening.group(1)))) >= 2 and \
            re.fullmatch(r"(?:[A-Z][\s,.;:/)|-]*)+", opening.group(1).strip()):
        return _unresolved("lists-options", f"The answer opens with the letters {opening.group(1).strip()} "
                                            f"rather than one choice.")

    # An invented option opening the answer (A.3: "E: … I would choose B") is dropped when
    # something else decides; alone, it is a letter that is not an option.
    invalid = [c for c in choices if c.letter not in valid]
    choices = [c for c in choices if c.letter in valid]
    refusals = [m for m in _REFUSAL.finditer(text) if not re.match(_OBJECT, text[m.end():], re.I)
                or not _is_option_letter(text, m.end() + re.match(_OBJECT, text[m.end():], re.I).start("letter"))]
    # A labelled answer naming a letter past the options ("Answer: B … Answer: C" of two) is
    # a second answer all the same (seen in Gemma 3's free text in the demo).
    if any(c.kind != "line" or not c.label_line for c in invalid) and choices:
        return _unresolved("several-answers",
                           f"The answer chooses {_join(c.letter for c in invalid + choices)}, "
                           f"and {_join(c.letter for c in invalid)} is not an option.")

    span_negated, quoted = _quoted_options(text, options, mentions)

    chosen = {c.letter for c in choices}
    corrected = _self_correction(text, valid, mentions, negated_at, choices, quoted, refusals)
    if corrected is not None:
        return corrected

    hedges = _hedges(text, mentions, valid, chosen)
    # "I cannot choose between A and B" with A and B the only options is a refusal, not a hedge.
    for refusal in refusals:
        start, end = _clause_start(text, refusal.start()), _clause_end(text, refusal.end())
        if {m.letter for m in mentions if start <= m.start < end} >= set(valid):
            hedges = [pair for pair in hedges if not start <= pair[0].start < end]
    finals = [c for c in choices if c.final]
    if finals:
        return _final_answer(text, mentions, negated_letters, choices, finals, hedges, refusals)

    if len(chosen) > 1:
        return _unresolved("several-answers", f"The answer chooses more than one option: {_join(chosen)}.")
    if hedges:
        return _hedge(text, hedges[0])
    if len(chosen) == 1:
        return _single_choice(text, options, valid, mentions, negated_letters, negated_at, choices, chosen.pop(),
                              refusals)
    return _without_a_choice(text, valid, mentions, negated_letters, listing, labels, invalid, refusals, quoted,
                             span_negated)


def _self_correction(text: str, valid: str, mentions, negated_at: set, choices, quoted,
                     refusals) -> Encoding | None:
    """A self-correction: a choice (or an option's wording, or a refusal), then "wait",
    "actually", "on reflection"… and another letter; None when the answer has none."""
    evidence = [(c.start, c.letter) for c in choices] + [(s, valid[i]) for i, s in quoted] + \
               [(m.start(), "R") for m in refusals]
    for cue in _CORRECTION.finditer(text):
        before = {code for pos, code in evidence if pos < cue.start()}
        after = [m for m in mentions if cue.end() <= m.start <= cue.end() + 120 and m.letter in valid and not m.negated]
        direct = re.match(rf"\s*[,:-]?\s*(?:{_OPT}\s*)?{_LETTER}", text[cue.end():], re.I)
        if direct and direct.group("letter") in valid and cue.end() + direct.start("letter") not in negated_at and \
                _is_option_letter(text, cue.end() + direct.start("letter"), chosen_context=True):
            after.insert(0, _Mention(direct.group("letter"), cue.end() + direct.start("letter")))
        if before and after and (before - {after[0].letter}):
            changed_from = _join(before - {after[0].letter}).replace("R", "a refusal")
            return _unresolved("self-correction",
                               f"The answer changes its choice from {changed_from} to {after[0].letter}: "
                               f"“{_quote(text, cue.start())}”")
    return None


def _quoted_options(text: str, options: list[str], mentions) -> tuple[dict, list]:
    """The options' wording found in the answer: whether each place is negated, keyed by
    (option index, start), and the (option index, start) of those that are not."""
    spans = _option_spans(text, options)
    span_negated = {}
    for index, start, end in spans:
        previous_end = max([m.start + 1 for m in mentions if m.start < start] + [0])
        next_start = min([m.start for m in mentions if m.start >= end] + [len(text)])
        span_negated[(index, start)] = _negated(text, start, end, previous_end, next_start)
    quoted = [(i, s) for i, s, _ in spans if not span_negated[(i, s)]]
    return span_negated, quoted


def _final_answer(text: str, mentions, negated_letters: set, choices, finals, hedges, refusals) -> Encoding:
    """The answer's last final answer ("Final answer: B"), unless it conflicts with another."""
    final = finals[-1].letter
    if len({c.letter for c in finals}) > 1:
        return _unresolved("several-answers", f"The answer gives two final answers: {_join(c.letter for c in finals)}.")
    earlier = {c.letter for c in choices if not c.final and c.letter != final}
    if final in negated_letters:
        return _negated_choice(text, mentions, final)
    if earlier:
        return _unresolved("final-answer-conflict",
                           f"The final answer {final} contradicts the earlier choice of {_join(earlier)}.")
    late_hedges = [pair for pair in hedges if pair[0].start >= finals[-1].start]
    if late_hedges:
        return _hedge(text, late_hedges[0])
    if any(m.start() > finals[-1].start and not _DISCLAIMER.search(m.group()) for m in refusals):
        return _unresolved("refusal-after-choice", f"The answer gives {final}, then declines to choose.")
    return _coded(final, "final-answer")


def _single_choice(text: str, options: list[str], valid: str, mentions, negated_letters: set, negated_at: set,
                   choices, letter: str, refusals) -> Encoding:
    """The one letter the answer chooses, unless something else it says contradicts it."""
    if letter in negated_letters:
        return _negated_choice(text, mentions, letter)
    for choice in choices:
        rest = text[choice.start + 1:]
        if re.match(r"[\"'”’)\]]*[ \t]*(?:[:：.)\-,]|[ \t](?=[A-Z]))", rest):
            other = _echoes_another_option(re.sub(r"^[\"'”’)\]]*[ \t]*[:：.)\-,]?", "", rest), options,
                                           valid.index(letter))
            if other is not None:
                return _unresolved("letter-text-mismatch",
                                   f"The letter {letter} is followed by the wording of option {valid[other]}.")
    first = min(c.start for c in choices)
    for also in _ALSO_OPEN.finditer(text):
        other = also.group("letter")
        if other in valid and other != letter and also.start("letter") not in negated_at:
            return _unresolved("hedge", f"The answer chooses {letter} but would also consider {other}: "
                                        f"“{_quote(text, also.start())}”")
    if any(m.start() > first and not _DISCLAIMER.search(m.group()) for m in refusals):
        return _unresolved("refusal-after-choice", f"The answer gives {letter}, then declines to choose.")
    if any(m.start() < first for m in refusals):
        return _coded(letter, "refusal-then-choice")
    opening = min(choices, key=lambda c: c.start)
    if opening.kind == "line":
        return _coded(letter, "leading-letter")
    return _coded(letter, "explicit-choice")


def _without_a_choice(text: str, valid: str, mentions, negated_letters: set, listing: bool, labels: set, invalid,
                      refusals, quoted, span_negated: dict) -> Encoding:
    """An answer that chooses no letter: the options listed, a letter not an option, an
    option's wording quoted or rejected, a refusal, or nothing recognised."""
    if listing:
        return _unresolved("lists-options", f"The answer writes out the options {_join(labels)} rather than choosing one.")
    if invalid and not refusals:
        return _unresolved("letter-not-an-option",
                           f"{_join(c.letter for c in invalid)} is not one of the options ({_join(valid)}).")
    quoted_letters = {valid[i] for i, _ in quoted}
    if len(quoted_letters) > 1:
        return _unresolved("several-answers", f"The answer quotes the wording of options {_join(quoted_letters)}.")
    if quoted_letters:
        letter = quoted_letters.pop()
        if letter in negated_letters:
            return _negated_choice(text, mentions, letter)
        if refusals:
            return _unresolved("refusal-and-option",
                               f"The answer declines to choose but quotes the wording of option {letter}.")
        return _coded(letter, "option-text")
    rejected_wording = {valid[i] for (i, _), negated in span_negated.items() if negated}
    if rejected_wording:
        return _unresolved("negated-choice",
                           f"The answer rejects the wording of option {_join(rejected_wording)} rather than choosing it.")
    for refusal in refusals:
        # "I cannot choose between A and B" (of three): a hedge, not a refusal of all options.
        start, end = _clause_start(text, refusal.start()), _clause_end(text, refusal.end())
        named = {m.letter for m in mentions if start <= m.start < end and m.letter in valid}
        if 2 <= len(named) < len(valid):
            return _unresolved("hedge", f"The answer cannot choose between {_join(named)} only: “{_quote(text, start)}”")
    if refusals:
        # "I can't choose for a government, but since you ask, B would…": a letter named after
        # the refusal is for a reviewer to read.
        after = [m for m in mentions if m.letter in valid and not m.negated
                 and m.start >= _clause_end(text, refusals[-1].end())]
        if after:
            return _unresolved("refusal-then-letter", f"The answer declines to choose, then names {after[0].letter}: "
                                                      f"“{_quote(text, after[0].start)}”")
        return _coded("R", "refusal")
    if negated_letters:
        return _negated_choice(text, mentions, sorted(negated_letters)[0])
    return _unresolved("unresolved", "No choice, option wording or refusal was recognised.")


def _empty_label(text: str, pos: int) -> bool:
    end = text.find("\n", pos)
    return re.fullmatch(r"[A-Z]\s*:\s*", text[pos:end if end != -1 else len(text)]) is not None


def _alone_on_line(text: str, pos: int) -> bool:
    start, end = text.rfind("\n", 0, pos) + 1, text.find("\n", pos)
    line = text[start:end if end != -1 else len(text)]
    return re.fullmatch(r"[\s\"'“”‘’«»\[\](){}.,:;!*_-]*[A-Z][\s\"'“”‘’«»\[\](){}.,:;!*_-]*", line) is not None


def _negated_choice(text: str, mentions: list[_Mention], letter: str) -> Encoding:
    where = next(m.start for m in mentions if m.letter == letter and m.negated)
    return _unresolved("negated-choice", f"The answer rejects {letter}: “{_quote(text, where)}”")


def _hedge(text: str, pair: tuple[_Mention, _Mention]) -> Encoding:
    first, second = pair
    return _unresolved("hedge", f"The answer hedges between {first.letter} and {second.letter}: "
                                f"“{_quote(text, first.start)}”")
