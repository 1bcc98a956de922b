"""The slot check of translations (scenarios_app.slots): exact cases and properties."""

import re

from hypothesis import given, strategies as st

from scenarios_app.slots import base_slots, check_field, check_translation, parse_slot, slots

SOURCE = {"template": "[Actor A] has massed troops on the border with [Actor B]. How should [Actor A] respond?",
          "option_a": "Withdraw and reopen talks with [Actor B]",
          "option_b": "Strike [Actor B]'s border posts"}
GOOD = {"template": "[Actor A]在与[Actor B]的边境集结了军队。[Actor A]应如何回应？",
        "option_a": "撤军并与[Actor B]重新谈判",
        "option_b": "打击[Actor B]的边境哨所"}


def messages(problems):
    return [str(p) for p in problems]


def test_a_faithful_translation_has_no_problems():
    assert check_translation(SOURCE, GOOD) == []


def test_it_names_a_missing_slot_and_its_field():
    bad = {**GOOD, "template": "[Actor A]在与邻国的边境集结了军队。[Actor A]应如何回应？"}
    problems = check_translation(SOURCE, bad)
    assert [(p.field, p.slot) for p in problems] == [("template", "[Actor B]")]
    assert messages(problems) == ["template: [Actor B] is missing (1 in the source, 0 in the translation); "
                                  "keep [Actor B] exactly as written"]


def test_it_names_an_extra_slot():
    bad = {**GOOD, "option_a": "撤军并与[Actor B]和[Actor A]重新谈判"}
    assert messages(check_translation(SOURCE, bad)) == [
        "option_a: [Actor A] is not in the source as often (0 in the source, 1 in the translation); remove it"]


def test_a_renamed_slot_is_one_missing_and_one_extra():
    bad = {**GOOD, "option_b": "打击[Akteur B]的边境哨所"}
    assert [(p.field, p.slot) for p in check_translation(SOURCE, bad)] == [
        ("option_b", "[Actor B]"), ("option_b", "[Akteur B]")]


def test_a_slot_used_fewer_times_is_refused():
    bad = {**GOOD, "template": "[Actor A]在与[Actor B]的边境集结了军队。它应如何回应？"}
    assert messages(check_translation(SOURCE, bad)) == [
        "template: [Actor A] is missing (2 in the source, 1 in the translation); keep [Actor A] exactly as written"]


def test_an_option_the_source_does_not_have_is_refused():
    bad = {**GOOD, "option_c": "什么也不做"}
    assert messages(check_translation(SOURCE, bad)) == [
        "option_c: the source has no option 'option_c' (it has 2 options)"]


def test_a_missing_option_is_refused():
    bad = {"template": GOOD["template"], "option_a": GOOD["option_a"]}
    assert messages(check_translation(SOURCE, bad)) == [
        "option_b: the translation is missing; translate every field"]


NAMES = st.sampled_from(["[Actor A]", "[Actor B]"])
WORDS = st.text(alphabet=st.characters(blacklist_characters="[]\n", blacklist_categories=("Cs",)), max_size=12)


@st.composite
def slotted(draw):
    """A text made of words and slots, and the slots it holds."""
    parts = draw(st.lists(st.one_of(WORDS, NAMES), max_size=8))
    return "".join(parts)


@given(slotted(), slotted())
def test_the_same_slots_in_any_order_and_words_pass(source, words):
    # A translation keeping every slot of the source (as often), whatever its words, passes.
    kept = "".join(slot + "词" for slot in sorted(slots(source).elements())) + words.replace("[", "").replace("]", "")
    assert check_field("template", source, kept) == []


@given(slotted(), NAMES)
def test_dropping_one_slot_is_always_named(source, name):
    source = source + name  # at least one of this slot
    translation = source[::-1].replace(name[::-1], "", 1)[::-1]  # the last occurrence removed
    problems = check_field("template", source, translation)
    assert [(p.slot, "missing" in p.message) for p in problems] == [(name, True)]


@given(slotted(), NAMES)
def test_adding_one_slot_is_always_named(source, name):
    problems = check_field("option_a", source, source + name)
    assert [(p.field, p.slot, "not in the source as often" in p.message) for p in problems] == [
        ("option_a", name, True)]


# --- grammatical forms of names: [Actor A:genitive] --------------------------------------

RU = {"template": "Армия [Actor A:genitive] стоит у границы с [Actor B:instrumental]. Как следует ответить "
                  "[Actor A:dative]?",
      "option_a": "Отвести войска и возобновить переговоры с [Actor B:instrumental]",
      "option_b": "Нанести удар по пограничным постам [Actor B:genitive]"}


def test_a_slot_is_read_as_its_base_and_its_form():
    assert parse_slot("[Actor A:genitive]") == ("[Actor A]", "genitive")
    assert parse_slot("[Actor A]") == ("[Actor A]", "")
    # Not a form: a capital, a space, an empty form. Such a slot is a slot of its own.
    assert [parse_slot(s) for s in ("[Actor A:Genitive]", "[Actor A: genitive]", "[Actor A:]")] == [
        ("[Actor A:Genitive]", ""), ("[Actor A: genitive]", ""), ("[Actor A:]", "")]
    assert base_slots("[Actor A] и [Actor A:dative], [Actor B:genitive]") == {"[Actor A]": 2, "[Actor B]": 1}


def test_forms_count_as_uses_of_their_base():
    # The source has [Actor A] twice and [Actor B] once in the template: the translation's
    # [Actor A:genitive] + [Actor A:dative] are the two uses of [Actor A].
    assert check_translation(SOURCE, RU, "ru") == []
    assert check_translation(SOURCE, RU, "ru-RU") == []


def test_a_form_the_language_does_not_have_is_named_with_its_field_and_slot():
    bad = {**RU, "option_b": "Нанести удар по пограничным постам [Actor B:locative]"}
    problems = check_translation(SOURCE, bad, "ru")
    assert [(p.field, p.slot) for p in problems] == [("option_b", "[Actor B:locative]")]
    assert messages(problems) == [
        "option_b: [Actor B:locative]: ru has no form 'locative' of names; its forms are nominative, genitive, "
        "dative, accusative, instrumental, prepositional"]


def test_a_language_without_forms_refuses_any():
    zh = {**GOOD, "option_b": "打击[Actor B:genitive]的边境哨所"}
    assert messages(check_translation(SOURCE, zh, "zh")) == [
        "option_b: [Actor B:genitive]: zh names actors in one form only (no 'genitive'); write [Actor B]"]


def test_a_form_still_counts_against_the_source():
    # One [Actor A] too many, although written with a form: named by its base.
    bad = {**RU, "option_a": RU["option_a"] + " и [Actor A:instrumental]"}
    assert [(p.field, p.slot) for p in check_translation(SOURCE, bad, "ru")] == [("option_a", "[Actor A]")]


def test_the_source_uses_no_forms():
    source = {**SOURCE, "option_a": "Withdraw and reopen talks with [Actor B:genitive]"}
    assert messages(check_translation(source, RU, "ru")) == [
        "option_a: [Actor B:genitive] is in the source: the source (en) names actors in one form; "
        "write [Actor B] there"]


RU_FORMS = st.sampled_from(["genitive", "dative", "accusative", "instrumental", "prepositional", "nominative"])


@given(slotted(), st.data())
def test_adding_or_removing_forms_never_changes_the_counts_by_base(text, data):
    # Give each slot of the text a form, or not, at random: the counts by base stay the same,
    # and the formed text passes the check against the bare one (in ru, whose forms these are).
    parts = text.split("]")
    formed = "]".join(part + (f":{data.draw(RU_FORMS)}" if part.endswith(("[Actor A", "[Actor B"))
                              and data.draw(st.booleans()) else "") for part in parts)
    assert base_slots(formed) == base_slots(text) == slots(text)
    assert check_field("template", text, formed, "ru") == []
    # Removing the forms again gives the bare text back.
    assert re.sub(r"\[(Actor [AB]):[a-z]+\]", r"[\1]", formed) == text
