"""The slot check of translations (scenarios_app.slots): exact cases and properties."""

from hypothesis import given, strategies as st

from scenarios_app.slots import check_field, check_translation, slots

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
