"""BCP 47 codes of questions (benchmarks_app.language_codes)."""

from benchmarks_app.language_codes import language_problem, primary_language, reads


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
