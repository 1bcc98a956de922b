"""Where a raw answer names an option: segments of the text marked as an option letter or
as a fragment of an option's wording, so a reviewer's eye lands on them. Pure: no Django.

The page renders each segment with `textContent`: the answer is never parsed as HTML.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from benchmarks_app.lettering import LETTERS

FRAGMENT_WORDS = 4  # this many consecutive words of an option's text count as quoting it
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class Segment:
    text: str
    mark: str = ""  # "", "letter" or "option"
    letter: str = ""  # which option the mark points at

    def as_dict(self):
        return asdict(self)


def _letter_spans(answer: str, letters: str) -> list[tuple[int, int, str]]:
    # A capital letter standing alone (`B`, `**B**`, `(B)`, `B:`, `A or B`), but not the
    # article opening a sentence (`A good option…`).
    if not letters:
        return []
    pattern = re.compile(rf"(?<![\w])([{letters}])(?![\w])")
    spans = []
    for match in pattern.finditer(answer):
        sentence_start = not answer[:match.start()].strip() or answer[:match.start()].rstrip()[-1] in ".!?:\n"
        if match.group(1) == "A" and sentence_start and re.match(r"A\s+[a-z]", answer[match.start():]):
            continue
        spans.append((match.start(1), match.end(1), match.group(1)))
    return spans


def _fragment_spans(answer: str, options: list[str], letters: str) -> list[tuple[int, int, str]]:
    words = [(m.start(), m.end(), m.group().lower()) for m in _WORD.finditer(answer)]
    spans = []
    for letter, option in zip(letters, options):
        option_words = [w.lower() for w in _WORD.findall(option)]
        grams = {tuple(option_words[i:i + FRAGMENT_WORDS]) for i in range(len(option_words) - FRAGMENT_WORDS + 1)}
        if not grams:
            continue
        for i in range(len(words) - FRAGMENT_WORDS + 1):
            if tuple(w for _, _, w in words[i:i + FRAGMENT_WORDS]) in grams:
                spans.append((words[i][0], words[i + FRAGMENT_WORDS - 1][1], letter))
    return _merge(spans)


def _merge(spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    merged: list[tuple[int, int, str]] = []
    for start, end, letter in sorted(spans):
        if merged and start <= merged[-1][1] and merged[-1][2] == letter:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]), letter)
        elif merged and start < merged[-1][1]:
            continue  # overlaps a fragment of another option: keep the first
        else:
            merged.append((start, end, letter))
    return merged


def highlight(answer: str, options: list[str], letters: str | None = None) -> list[Segment]:
    """Split `answer` into segments; `options` in the order they were presented, lettered
    `letters` (default A, B, C…)."""
    letters = letters or LETTERS[: len(options)]
    marks = [(s, e, "option", letter) for s, e, letter in _fragment_spans(answer, options, letters)]
    for start, end, letter in _letter_spans(answer, letters):
        if not any(s <= start < e for s, e, _, _ in marks):
            marks.append((start, end, "letter", letter))
    segments, position = [], 0
    for start, end, mark, letter in sorted(marks):
        if start > position:
            segments.append(Segment(answer[position:start]))
        segments.append(Segment(answer[start:end], mark, letter))
        position = end
    if position < len(answer):
        segments.append(Segment(answer[position:]))
    return segments
