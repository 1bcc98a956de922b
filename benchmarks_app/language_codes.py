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


# Grammatical forms of actor names a translation may ask for as `[Actor A:genitive]`
# (issue 41). A language not listed names actors in one form only (zh 中国, ja, es, fr…).
# In the Slavic languages the translated name itself is the nominative, so `nominative`
# is allowed in a slot but not stored beside the name. Arabic's forms are not cases: the
# definite form (with al-) and the nisba adjective (روسي, "Russian", as in "the Russian army").
_SLAVIC_SEVEN = ("nominative", "genitive", "dative", "accusative", "instrumental", "locative", "vocative")
NAME_FORMS: dict[str, tuple[str, ...]] = {
    "ru": ("nominative", "genitive", "dative", "accusative", "instrumental", "prepositional"),
    "uk": _SLAVIC_SEVEN,
    "pl": _SLAVIC_SEVEN,
    "cs": _SLAVIC_SEVEN,
    "ar": ("definite", "nisba"),
}
NAME_IS = {"ru": "nominative", "uk": "nominative", "pl": "nominative", "cs": "nominative"}


def name_forms(code: str) -> tuple[str, ...]:
    """Every form name a slot may ask for in `code` (by its language subtag: `ru-RU` is
    `ru`); () for a language with none or an unreadable code."""
    if language_problem(code) is not None:
        return ()
    return NAME_FORMS.get(primary_language(code), ())


def name_is_form(code: str) -> str | None:
    """The form an actor's translated name itself is in `code` (ru: nominative), or None."""
    return NAME_IS.get(primary_language(code)) if language_problem(code) is None else None


def stored_forms(code: str) -> tuple[str, ...]:
    """The forms an actor's name translation stores beside its name: all but the name's own."""
    return tuple(form for form in name_forms(code) if form != name_is_form(code))


def form_problem(code: str, form: str) -> str | None:
    """Why `form` is no form of names in `code` (the message names the forms it has), or None."""
    forms = name_forms(code)
    if form in forms:
        return None
    if not forms:
        return f"{code or 'this language'} names actors in one form only (no '{form}')"
    return f"{code} has no form '{form}' of names; its forms are {', '.join(forms)}"
