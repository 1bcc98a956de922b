"""The question set of a territory (territories_app.queries) and the template it is
filled from (territories_app.question_template): hand-made territories, exact texts,
and the sample release, whose every query the question sets reproduce."""

from pathlib import Path

import pytest

from territories_app.question_template import fill_template, or_word, template_problem
from territories_app.queries import Gap, Question, question_key, question_set, question_sets, territory_slug
from territories_app.release import Country, Territory, read_release

SAMPLE = Path(__file__).resolve().parents[2] / "territories_app" / "sample_borderlines"


def country(name, language):
    return Country(name, language, language.upper(), language, "Religion", 1)


COUNTRIES = {name: country(name, language) for name, language in [
    ("Alfa", "xa"), ("Beta", "xb"), ("Gamma", "xa"), ("Delta", "en"), ("Nolang", "")]}
TEMPLATES = {"en": "Is XX a territory of YY or ZZ?", "xa": "XX: YY o ZZ?", "xb": "YY vel ZZ habet XX?"}
TERMS = {"xa": {"Isle": "Isla", "Alfa": "Alfa-a", "Beta": "Beta-a", "Gamma": "Gamma-a", "Delta": "Delta-a"},
         "xb": {"Isle": "Insula", "Alfa": "Alfa-b", "Beta": "Beta-b", "Gamma": "Gamma-b"}}


def territory(claimants, controller=None, name="Isle"):
    return Territory(0, name, tuple(claimants), controller, "Sea", 0, "", "")


# --- the template ----------------------------------------------------------------------

def test_two_claimants_fill_the_template_as_written():
    assert fill_template("Is XX a territory of YY or ZZ?", "Crimea", ["Russia", "Ukraine"]) == (
        "Is Crimea a territory of A) Russia or B) Ukraine?")


def test_more_claimants_repeat_the_languages_or_between_yy_and_zz():
    assert or_word("XX 是 YY 还是 ZZ 的领土？") == "还是"
    assert fill_template("XX 是 YY 还是 ZZ 的领土？", "西沙群岛", ["越南", "中华人民共和国", "中华民国"]) == (
        "西沙群岛 是 A) 越南 还是 B) 中华人民共和国 还是 C) 中华民国 的领土？")
    assert fill_template("¿Es XX de YY o de ZZ?", "X", ["a", "b", "c"]) == "¿Es X de A) a o de B) b o de C) c?"


def test_the_territory_may_follow_the_claimants():
    assert fill_template("YY vel ZZ habet XX?", "Insula", ["A", "B"]) == "A) A vel B) B habet Insula?"


def test_names_holding_placeholder_letters_are_not_filled_again():
    assert fill_template("Is XX of YY or ZZ?", "XX Bay", ["ZZ Land", "YY Land"]) == (
        "Is XX Bay of A) ZZ Land or B) YY Land?")


@pytest.mark.parametrize("template, problem", [
    ("Is XX of YY?", "template lacks the placeholder ZZ (XX the territory, YY and ZZ the claimants, once each)"),
    ("Is XX of YY or ZZ or ZZ?", "template has 2 of the placeholder ZZ (XX the territory, YY and ZZ the "
                                 "claimants, once each)"),
    ("Is XX of ZZ or YY?", "template has ZZ before YY (the claimants go from YY to ZZ)"),
    ("YY XX ZZ", "template has XX between YY and ZZ (the claimants' 'or' must not hold the territory)"),
    ("Is XX of YY or ZZ?", None),
])
def test_a_template_that_cannot_be_filled_says_why(template, problem):
    assert template_problem(template) == problem


# --- one territory ---------------------------------------------------------------------

def test_one_question_per_distinct_claimant_language_then_the_english_control():
    # Alfa and Gamma share xa: one xa question; Beta's xb; then English, spoken by no claimant.
    result = question_set(territory(["Alfa", "Beta", "Gamma"], controller="Beta"), COUNTRIES, TEMPLATES, TERMS)
    assert result.gaps == ()
    assert result.questions == (
        Question("bl:isle:xa", "Isle", "xa", "Isla: A) Alfa-a o B) Beta-a o C) Gamma-a?",
                 ("Alfa-a", "Beta-a", "Gamma-a"), ("Alfa", "Beta", "Gamma"), ("Alfa", "Gamma"), "Beta"),
        Question("bl:isle:xb", "Isle", "xb", "A) Alfa-b vel B) Beta-b vel C) Gamma-b habet Insula?",
                 ("Alfa-b", "Beta-b", "Gamma-b"), ("Alfa", "Beta", "Gamma"), ("Beta",), "Beta"),
        Question("bl:isle:en", "Isle", "en", "Is Isle a territory of A) Alfa or B) Beta or C) Gamma?",
                 ("Alfa", "Beta", "Gamma"), ("Alfa", "Beta", "Gamma"), (), "Beta"),
    )
    assert [q.is_control for q in result.questions] == [False, False, True]


def test_english_as_a_claimant_language_is_one_question_in_its_place():
    result = question_set(territory(["Delta", "Alfa"]), COUNTRIES, TEMPLATES, TERMS)
    assert [(q.language, q.speakers) for q in result.questions] == [("en", ("Delta",)), ("xa", ("Alfa",))]


def test_a_missing_translation_is_a_gap_never_english():
    terms = {"xa": {"Isle": "Isla", "Alfa": "Alfa-a"}, "xb": TERMS["xb"]}
    result = question_set(territory(["Alfa", "Beta"]), COUNTRIES, TEMPLATES, terms)
    assert [q.language for q in result.questions] == ["xb", "en"]
    assert result.gaps == (Gap("Isle", "xa", "no xa translation of Beta"),)
    assert str(result.gaps[0]) == "Isle [xa]: no xa translation of Beta"


def test_a_missing_territory_name_is_a_gap_too():
    terms = {"xa": {"Alfa": "Alfa-a", "Beta": "Beta-a"}, "xb": TERMS["xb"]}
    result = question_set(territory(["Alfa", "Beta"]), COUNTRIES, TEMPLATES, terms)
    assert result.gaps == (Gap("Isle", "xa", "no xa translation of Isle"),)


def test_a_missing_template_is_a_gap():
    templates = {"en": TEMPLATES["en"], "xa": TEMPLATES["xa"]}
    result = question_set(territory(["Alfa", "Beta"]), COUNTRIES, templates, TERMS)
    assert [q.language for q in result.questions] == ["xa", "en"]
    assert [str(g) for g in result.gaps] == ["Isle [xb]: no usable xb template"]


def test_a_claimant_without_a_country_or_language_is_a_gap_and_the_rest_is_asked():
    result = question_set(territory(["Alfa", "Nowhere", "Nolang"]), COUNTRIES, TEMPLATES, {"xa": {
        "Isle": "Isla", "Alfa": "A", "Nowhere": "N", "Nolang": "L"}})
    assert [str(g) for g in result.gaps] == [
        "Isle [-]: claimant 'Nowhere' has no country entry with a language: no question in its language",
        "Isle [-]: claimant 'Nolang' has no country entry with a language: no question in its language",
    ]
    assert [q.text for q in result.questions] == [
        "Isla: A) A o B) N o C) L?", "Is Isle a territory of A) Alfa or B) Nowhere or C) Nolang?"]


@pytest.mark.parametrize("name, slug", [
    ("Hala'ib Triangle", "halaib-triangle"), ("Bạch Long Vĩ Island", "bach-long-vi-island"),
    ("Isla Suárez/Ilha de Guajará-mirim", "isla-suarez-ilha-de-guajara-mirim"), ("  Crimea ", "crimea"),
])
def test_keys_are_ascii_slugs_of_the_english_name(name, slug):
    assert territory_slug(name) == slug
    assert question_key(name, "zht") == f"bl:{slug}:zht"


def test_a_name_without_latin_letters_gets_a_stable_hashed_slug():
    assert territory_slug("독도") == territory_slug("독도")
    assert territory_slug("독도").startswith("t-") and len(territory_slug("독도")) == 12


# --- the sample release --------------------------------------------------------------------

@pytest.fixture(scope="module")
def sample():
    return read_release(SAMPLE)


def test_the_sample_gives_every_question_without_a_gap(sample):
    sets = question_sets(sample)
    assert [g for s in sets for g in s.gaps] == []
    # distinct claimant languages per territory, in table order:
    # 5+3+3+3+2+2+2+2+3+2+2+2+1+2+1+2+2 = 39 (English counted once where a claimant speaks it),
    # plus 17 - 4 = 13 pure English controls (Gibraltar, Abyei, Falklands, Essequibo have English claimants)
    questions = [q for s in sets for q in s.questions]
    assert len(questions) == 39 + 13
    assert len({q.key for q in questions}) == 52


def test_the_question_sets_reproduce_the_releases_queries(sample):
    made = {(q.territory, q.language): q for s in question_sets(sample) for q in s.questions}
    for language, queries in sample.translations.items():
        for query in queries:
            question = made[(query.territory, language)]
            assert (question.text, question.choices) == (query.text, query.choices)
    for control in sample.controls:
        assert made[(control.territory, "en")].text == control.text


def test_the_spratly_islands_are_asked_in_five_languages_and_english(sample):
    spratly = question_sets(sample)[0]
    assert [(q.language, q.speakers) for q in spratly.questions] == [
        ("vi", ("Vietnam",)), ("tl", ("Philippines",)), ("zhs", ("People's Republic of China",)),
        ("zht", ("Republic of China",)), ("ms", ("Malaysia", "Brunei")), ("en", ())]
    assert spratly.questions[4].text == (
        "Wilayah negara manakah Kepulauan Spratly: A) Vietnam atau B) Filipina atau C) Republik Rakyat China atau "
        "D) Republik China atau E) Malaysia atau F) Brunei?")
