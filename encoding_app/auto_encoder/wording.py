"""Option wording: spans of an answer that quote an option, and a letter followed by another
option's wording. Pure: no Django."""

from __future__ import annotations

import re
import unicodedata
from difflib import SequenceMatcher
from functools import lru_cache


MISMATCH_RATIO = 0.6
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
_ARABIC = re.compile(r"[\u0600-\u06ff]")  # how close to another option's wording the text after a letter must be


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", unicodedata.normalize("NFKC", text).lower())


def _option_spans(text: str, options: list[str]) -> list[tuple[int, int, int]]:
    """(option index, start, end) of each option's full wording in the answer, any
    punctuation between words and its first word in any form; an option quoted inside a
    longer one's wording is not counted."""
    spans = []
    for index, pattern in _option_patterns(tuple(options)):
        spans += [(index, m.start(), m.end()) for m in pattern.finditer(text)]
    return [s for s in spans if not any(o != s and o[1] <= s[1] and s[2] <= o[2] for o in spans)]


@lru_cache(maxsize=4096)
def _option_patterns(options: tuple[str, ...]) -> list[tuple[int, re.Pattern]]:
    """(option index, pattern of its wording) of each option long enough to be quoted:
    built once per question's options, not once per answer (an import codes a million)."""
    patterns = []
    for index, option in enumerate(options):
        words = _words(option)
        if _CJK.search(option):
            # Chinese and Japanese write no spaces: an option is quoted wherever its characters
            # stand in order (punctuation between them aside); four are already distinctive.
            chars = [c for c in "".join(words)]
            if len(chars) >= 4:
                patterns.append((index, re.compile(r"\W*".join(map(re.escape, chars)), re.I)))
            continue
        if len(" ".join(words)) < 12:
            continue
        # The opening verb in any form: "launching a full-scale offensive…" quotes "Launch a …".
        head = re.escape(words[0][:-1] if words[0].endswith("e") and len(words[0]) > 3 else words[0]) + r"\w{0,4}"
        # Arabic joins its proclitics to the next word: "بسحب القوات" ("by withdrawing the
        # troops") quotes "سحب القوات"; and, so, by, to, like, before the opening word.
        clitic = r"(?:[وفبلك]{1,2})?" if _ARABIC.match(words[0]) else ""
        patterns.append((index, re.compile(r"(?<!\w)" + clitic + r"\W+".join([head, *map(re.escape, words[1:])])
                                           + r"(?!\w)", re.I)))
    return patterns


def _normalise(text: str) -> str:
    return " ".join(_words(text))


@lru_cache(maxsize=4096)
def _normalised(options: tuple[str, ...]) -> list[str]:
    return [_normalise(o) for o in options]


def _echoes_another_option(rest: str, options: list[str], chosen: int) -> int | None:
    """The option whose wording the first line after a letter clearly is, if not the chosen one."""
    line = _normalise(rest.strip().split("\n", 1)[0])
    if len(line) < 12 or not options:
        return None
    ratios = [SequenceMatcher(None, line[: len(o) + 20], o).ratio() for o in _normalised(tuple(options))]
    best = max(range(len(options)), key=ratios.__getitem__)
    if best != chosen and ratios[best] >= MISMATCH_RATIO and ratios[best] - ratios[chosen] >= 0.15:
        return best
    return None
