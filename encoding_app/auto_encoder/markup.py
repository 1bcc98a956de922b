"""Cleaning an answer's markup before it is read: HTML, code fences, markdown, dashes, Cyrillic
look-alike letters, Arabic option letters. Pure: no Django."""

from __future__ import annotations

import html
import re
import unicodedata


_DROPPED_ELEMENTS = re.compile(r"<(script|style)\b[^>]*>.*?(?:</\1\s*>|$)", re.I | re.S)
_BLOCK_TAG = re.compile(r"</?(?:p|div|br|li|ul|ol|tr|td|th|table|h[1-6]|pre|blockquote|section|article|hr)\b[^<>]*>",
                        re.I)
_ANY_TAG = re.compile(r"</?[A-Za-z][\w:-]*(?:\s[^<>]*)?/?>")
_FENCE = re.compile(r"```[\w+-]*(?=[ \t]*\n)|```|~~~")
_UNDERSCORE_EMPHASIS = re.compile(r"(?<![A-Za-z0-9])_+|_+(?![A-Za-z0-9])")
_LINE_MARKERS = re.compile(r"^[ \t]*(?:#{1,6}[ \t]*|>[ \t]*|[-+•·][ \t]+|\d{1,2}[.)][ \t]+)+", re.M)
_HYPHENS = re.compile("[\u2010\u2011\u2212\ufe63\uff0d]")
_DASHES = re.compile("[ \t]*[\u2012-\u2015\ufe58][ \t]*")
# Russian answers sometimes write the option letter in Cyrillic (В for B); only where it
# stands as a letter: after "вариант"/"ответ", or alone before punctuation.
_CYRILLIC_LOOKALIKES = {"А": "A", "В": "B", "С": "C", "Е": "E", "Н": "H"}
_CYRILLIC_LETTER = re.compile(r"(?i:((?:вариант|ответ|выбор|пункт)\w*\s*[:：-]?\s*[\"'«(]?))([АВСЕН])(?!\w)"
                              r"|(?<!\w)([АВСЕН])(?=[ \t]*(?:[.):\]]|$))", re.M)

# Arabic answers may letter the options in the Arabic (abjad) order: أ A, ب B, ج C, د D.
# Read so only where it stands as an option letter: after "الخيار"/"الإجابة"/"الجواب"/
# "الاختيار", or alone on its line (a bare answer). ب is also a proclitic ("بسحب": "by
# withdrawing"): joined to a word it is never taken for B (the letter must end there).
_ARABIC_LETTERS = {"أ": "A", "ا": "A", "ب": "B", "ج": "C", "د": "D"}
_ARABIC_LETTER = re.compile(
    r"((?:ال)?(?:خيار|اختيار|إجابة|جواب|بديل)(?:\s+(?:هو|هي|رقم))?\s*[:：-]?\s*[\"'«(]?)([أابجد])(?![\w\u064b-\u0652])"
    r"|^[ \t]*([أابجد])[ \t]*[.)]?[ \t]*$", re.M)


def _arabic_letter(match: re.Match) -> str:
    if match.group(2):
        return match.group(1) + _ARABIC_LETTERS[match.group(2)]
    return _ARABIC_LETTERS[match.group(3)]


def _clean(answer: str) -> str:
    text = html.unescape(answer)
    text = unicodedata.normalize("NFKC", text)
    text = _DROPPED_ELEMENTS.sub(" ", text)
    text = _BLOCK_TAG.sub("\n", text)
    text = _ANY_TAG.sub("", text)
    text = _FENCE.sub("\n", text)
    text = text.replace("*", "").replace("`", "").replace("~~", "")
    text = _UNDERSCORE_EMPHASIS.sub("", text)
    text = _HYPHENS.sub("-", text)
    text = _DASHES.sub(" - ", text)
    text = _CYRILLIC_LETTER.sub(
        lambda m: (m.group(1) + _CYRILLIC_LOOKALIKES[m.group(2)]) if m.group(2) else _CYRILLIC_LOOKALIKES[m.group(3)],
        text)
    text = _ARABIC_LETTER.sub(_arabic_letter, text)
    text = re.sub(r"[ \t\u00a0\u3000]+", " ", text)
    text = _LINE_MARKERS.sub("", text)
    lines = [line.strip() for line in text.split("\n")]
    return "\n".join(lines).strip()
