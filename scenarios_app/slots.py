"""The slot check of a translation: every bracketed slot of the source (`[Actor A]`,
`[Actor B]`) must appear in the translation as often as in the source, field by field,
and a scenario's translation must have exactly its source's options. A translation that
loses, adds or renames a slot is refused with the slot and the field.

A translation may ask for a grammatical form of an actor's name, `[Actor A:genitive]`
(the forms its language has: `language_codes.name_forms`). Such a slot counts as a use of
its base, `[Actor A]`; a form its language does not have is refused, and the source (the
source language) uses no forms. Pure: no Django."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from benchmarks_app.language_codes import SOURCE_LANGUAGE, form_problem, name_forms

SLOT = re.compile(r"\[[^\[\]\n]{1,40}\]")  # [Actor A], [Actor B]; any bracketed name counts as a slot

_FORMED = re.compile(r"^\[(?P<name>[^\[\]:\n]+):(?P<form>[a-z_]+)\]$")  # [Actor A:genitive]

OPTION_FIELDS = ("option_a", "option_b", "option_c")


@dataclass(frozen=True)
class SlotProblem:
    field: str
    slot: str  # the slot, or "" for a problem of the options' count
    message: str

    def __str__(self):
        return f"{self.field}: {self.message}"


def slots(text: str) -> Counter:
    return Counter(match.group(0) for match in SLOT.finditer(text or ""))


def parse_slot(slot: str) -> tuple[str, str]:
    """(base, form) of a slot: `[Actor A:genitive]` is ("[Actor A]", "genitive"), `[Actor A]`
    is ("[Actor A]", "")."""
    match = _FORMED.match(slot)
    return (f"[{match['name']}]", match["form"]) if match else (slot, "")


def base_slots(text: str) -> Counter:
    """The slots of `text` counted by base: `[Actor A]` and `[Actor A:dative]` are both `[Actor A]`."""
    return Counter(parse_slot(match.group(0))[0] for match in SLOT.finditer(text or ""))


def slot_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, slot) of every slot, in order: where an XLIFF export puts its placeholders."""
    return [(m.start(), m.end(), m.group(0)) for m in SLOT.finditer(text or "")]


def check_field(field: str, source: str, translation: str, language: str = "") -> list[SlotProblem]:
    """The slots `translation` (in `language`) loses or adds against `source`, one problem
    per slot, counted by base; then each form the language does not have, and each form in
    the source."""
    wanted, found = base_slots(source), base_slots(translation)
    problems = []
    for slot in sorted(wanted | found):
        if found[slot] < wanted[slot]:
            problems.append(SlotProblem(field, slot, (
                f"{slot} is missing ({wanted[slot]} in the source, {found[slot]} in the translation); "
                f"keep {slot} exactly as written")))
        elif found[slot] > wanted[slot]:
            problems.append(SlotProblem(field, slot, (
                f"{slot} is not in the source as often ({wanted[slot]} in the source, {found[slot]} in the "
                f"translation); " + ("remove it" if wanted[slot] == 0 else f"use it {wanted[slot]} time(s)"))))
    for slot in sorted(slots(translation)):
        base, form = parse_slot(slot)
        problem = form and form_problem(language, form)
        if problem:
            problems.append(SlotProblem(field, slot, f"{slot}: {problem}"
                                        + ("" if name_forms(language) else f"; write {base}")))
    for slot in sorted(slots(source)):
        base, form = parse_slot(slot)
        if form:
            problems.append(SlotProblem(field, slot, f"{slot} is in the source: the source ({SOURCE_LANGUAGE}) "
                                                     f"names actors in one form; write {base} there"))
    return problems


def check_translation(source: dict[str, str], translation: dict[str, str], language: str = "") -> list[SlotProblem]:
    """Every problem of a whole translation into `language`: `source` and `translation` map
    a field (template, option_a, …) to its text. Options must match the source's one for
    one. Without a language no form (`[Actor A:genitive]`) is allowed."""
    problems = []
    source_options = [f for f in OPTION_FIELDS if f in source]
    given_options = [f for f in translation if f in OPTION_FIELDS]
    for field in translation:
        if field not in source:
            what = "option" if field in OPTION_FIELDS else "field"
            problems.append(SlotProblem(field, "", f"the source has no {what} {field!r} "
                                                   f"(it has {len(source_options)} options)"))
    for field in source:
        if field not in translation or not (translation[field] or "").strip():
            problems.append(SlotProblem(field, "", "the translation is missing; translate every field"))
    if len(given_options) != len(source_options) and not problems:
        problems.append(SlotProblem("options", "", f"{len(given_options)} options for a source of "
                                                   f"{len(source_options)}"))
    for field, text in translation.items():
        if field in source and (text or "").strip():
            problems.extend(check_field(field, source[field], text, language))
    return problems
