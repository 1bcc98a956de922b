"""BCP 47 codes of questions (benchmarks_app.language_codes)."""

from benchmarks_app.language_codes import (
    form_problem, language_problem, name_forms, name_is_form, primary_language, reads, stored_forms,
)


def test_it_accepts_bcp47_tags():
    assert [language_problem(code) for code in ["en", "zh", "zh-Hant", "pt-BR", "sr-Latn-RS"]] == [None] * 5


def test_it_names_what_is_wrong_with_a_code():
    assert language_problem("") == "a language code is required (BCP 47, e.g. en, zh, pt-BR)"
    assert language_problem(" zh") == "' zh' has spaces around it"
    assert language_problem("chinese") == "'chinese' is not a BCP 47 language tag (e.g. en, zh, zh-Hant, pt-BR)"
    assert language_problem("zz") is not None  # well formed but not in the registry


def test_a_reader_of_a_language_reads_its_scripts_and_regions():
    assert primary_language("zh-Hant") == "zh"
    assert reads(["en", "zh"], "zh-Hant") and reads(["zh-Hans"], "zh")
    assert not reads(["en", "ru"], "zh") and not reads(["not a code"], "zh")


def test_each_language_has_its_forms_of_names():
    assert name_forms("ru") == ("nominative", "genitive", "dative", "accusative", "instrumental", "prepositional")
    assert name_forms("ru-RU") == name_forms("ru")  # by the language subtag
    assert name_forms("pl")[5:] == ("locative", "vocative") and len(name_forms("uk")) == len(name_forms("cs")) == 7
    assert name_forms("ar") == ("definite", "nisba")
    assert name_forms("zh") == name_forms("fr") == name_forms("not a code") == ()
    # The translated name itself is the nominative, so it is not stored beside the name.
    assert (name_is_form("ru"), name_is_form("ar"), name_is_form("zh")) == ("nominative", None, None)
    assert stored_forms("ru") == ("genitive", "dative", "accusative", "instrumental", "prepositional")
    assert stored_forms("ar") == ("definite", "nisba") and stored_forms("zh") == ()


def test_an_unknown_form_is_refused_naming_the_forms_the_language_has():
    assert form_problem("ru", "genitive") is None
    assert form_problem("ru", "locative") == (
        "ru has no form 'locative' of names; its forms are nominative, genitive, dative, accusative, instrumental, "
        "prepositional")
    assert form_problem("zh", "genitive") == "zh names actors in one form only (no 'genitive')"
    assert form_problem("", "genitive") == "this language names actors in one form only (no 'genitive')"
