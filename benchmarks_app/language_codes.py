"""Language codes of questions: BCP 47 tags (`en`, `zh`, `zh-Hant`, `pt-BR`), checked with
langcodes (a kept library that knows the IANA subtag registry; Python's own `locale` knows
POSIX locales, not BCP 47). Pure: no Django."""

from __future__ import annotations

import langcodes

SOURCE_LANGUAGE = "en"  # the language every question was written in before issue 41


def language_problem(code: str) -> str | None:
    """Why `code` is not a BCP 47 tag the registry knows, or None when it is."""
    if not isinstance(code, str) or not code.strip():
        return "a language code is required (BCP 47, e.g. en, zh, pt-BR)"
    if code != code.strip():
        return f"{code!r} has spaces around it"
    if not langcodes.tag_is_valid(code):
        return f"{code!r} is not a BCP 47 language tag (e.g. en, zh, zh-Hant, pt-BR)"
    return None


def primary_language(code: str) -> str:
    """The language subtag of a tag: `zh` for `zh-Hant`, `pt` for `pt-BR`."""
    return langcodes.Language.get(code).language or code.split("-")[0].lower()


def reads(listed: list[str], code: str) -> bool:
    """Whether someone who lists `listed` reads `code`: the same language subtag
    (listing `zh` reads `zh-Hant`; listing `zh-Hant` reads `zh`, since the script is
    not what an approval checks)."""
    wanted = primary_language(code)
    return any(primary_language(tag) == wanted for tag in listed if language_problem(tag) is None)


# Scripts written right to left (ISO 15924): Arabic, Hebrew, Syriac, Thaana, N'Ko, Adlam,
# Hanifi Rohingya, Mandaic, Samaritan, Old South Arabian, Imperial Aramaic.
RTL_SCRIPTS = frozenset({"Arab", "Hebr", "Syrc", "Thaa", "Nkoo", "Adlm", "Rohg", "Mand", "Samr", "Sarb", "Armi"})


def direction(code: str) -> str:
    """"rtl" for a language written right to left (its script, given or the likely one:
    `ar` is Arab, `az-Arab` too, `az` is Latn), else "ltr"; an unreadable code is "ltr"."""
    if language_problem(code) is not None:
        return "ltr"
    script = langcodes.Language.get(code).maximize().script
    return "rtl" if script in RTL_SCRIPTS else "ltr"


def reader_first(listed: list[str]) -> list[str]:
    """The language subtags of `listed` (what `reads` compares), in order, once each."""
    return list(dict.fromkeys(primary_language(tag) for tag in listed if language_problem(tag) is None))
