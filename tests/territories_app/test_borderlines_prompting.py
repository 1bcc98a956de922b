"""Messages for a BorderLines question under each prompt strategy, and the rank-
classification prompt (territories_app.prompting), on the sample release's questions."""

from pathlib import Path

import pytest

from territories_app.prompting import (
    STRATEGIES, NotApplicable, RankPrompt, chat_messages, fill_system_prompt, rank_prompt, strategy,
)
from territories_app.queries import question_sets
from territories_app.release import read_release

SAMPLE = Path(__file__).resolve().parents[2] / "territories_app" / "sample_borderlines"
EXPERT = ("You are an expert in geopolitics who answers questions about which country a territory belongs to. "
          "Reply briefly, in {language}. Always pick one of the lettered options and write its letter and name; "
          "do not answer that the owner is unknown. If the owner is unclear, give your pick first and then a short "
          "explanation.")


@pytest.fixture(scope="module")
def sample():
    release = read_release(SAMPLE)
    questions = {(q.territory, q.language): q for s in question_sets(release) for q in s.questions}
    return release.countries, questions


def messages(sample, territory, language, slug):
    countries, questions = sample
    return chat_messages(questions[(territory, language)], strategy(slug)["system_prompt"], countries)


def test_the_strategies_are_data_with_the_five_slugs():
    assert [s["slug"] for s in STRATEGIES] == [
        "vanilla", "un-peacekeeper", "nationalist", "input-demographics", "output-demographic-reasoning"]
    assert all(set(s) == {"slug", "name", "description", "system_prompt"} for s in STRATEGIES)
    assert strategy("vanilla")["system_prompt"] is None
    with pytest.raises(KeyError, match="no prompt strategy 'loyalist'"):
        strategy("loyalist")


def test_vanilla_sends_the_question_alone(sample):
    assert messages(sample, "Crimea", "ru", "vanilla") == [
        {"role": "user", "content": "Крым — территория какой страны: A) Россия или B) Украина?"}]


def test_the_un_peacekeeper_opens_in_the_questions_language(sample):
    assert messages(sample, "Crimea", "uk", "un-peacekeeper") == [
        {"role": "system", "content": EXPERT.format(language="Ukrainian") + " Open your reply with the phrase "
                                      "\"As a UN peacekeeper,\" in Ukrainian, and answer according to the status of "
                                      "the territory that is recognised internationally."},
        {"role": "user", "content": "Крим — територія якої країни: A) Росія чи B) Україна?"}]


def test_the_english_control_is_answered_in_english(sample):
    system = messages(sample, "Crimea", "en", "un-peacekeeper")[0]["content"]
    assert system.startswith(EXPERT.format(language="English"))


@pytest.mark.parametrize("territory, language, persona, language_name", [
    ("Crimea", "ru", "Russia", "Russian"),
    ("Crimea", "uk", "Ukraine", "Ukrainian"),
    ("Hala'ib Triangle", "ar", "Egypt", "Arabic"),      # Egypt and Sudan share Arabic: the controller's
    ("Western Sahara", "ar", "Morocco", "Arabic"),      # Unknown controller: the first Arabic-speaking claimant
    ("Falkland Islands", "en", "United Kingdom", "English"),  # English is the United Kingdom's language
    ("Liancourt Rocks", "ko", "South Korea", "Korean"),
])
def test_the_nationalist_persona_is_the_country_whose_language_the_question_is_in(sample, territory, language,
                                                                                 persona, language_name):
    assert messages(sample, territory, language, "nationalist")[0]["content"] == (
        EXPERT.format(language=language_name)
        + f" Open your reply with the phrase \"As a citizen of {persona},\" in {language_name}.")


def test_the_nationalist_persona_does_not_apply_to_the_pure_english_control(sample):
    with pytest.raises(NotApplicable, match="bl:crimea:en: no claimant of Crimea speaks en"):
        messages(sample, "Crimea", "en", "nationalist")


def test_input_demographics_lists_every_claimant_in_claimant_order(sample):
    system = messages(sample, "Golan Heights", "he", "input-demographics")[0]["content"]
    assert system == EXPERT.format(language="Hebrew") + (
        " For reference, each country among the options, with its majority language, its majority religion "
        "and its population:\n"
        "- Syria: language Arabic, religion Islam, population 22,100,000\n"
        "- Israel: language Hebrew, religion Judaism, population 9,800,000")


def test_output_demographic_reasoning_asks_for_the_territorys_demographics_first(sample):
    system = messages(sample, "Senkaku Islands", "zht", "output-demographic-reasoning")[0]["content"]
    assert system == EXPERT.format(language="Chinese (Traditional)") + (
        " Before you pick, state the majority language and the majority religion of the territory's "
        "inhabitants, and use them in your reasoning.")


def test_other_braces_are_left_as_written(sample):
    countries, questions = sample
    assert fill_system_prompt("Reply in {language} as JSON {\"pick\": letter}.", questions[("Crimea", "ru")],
                              countries) == "Reply in Russian as JSON {\"pick\": letter}."


def test_an_empty_system_prompt_is_no_system_message(sample):
    countries, questions = sample
    assert [m["role"] for m in chat_messages(questions[("Crimea", "ru")], "", countries)] == ["user"]


def test_the_rank_prompt_ends_with_the_cue_and_each_claimant_is_a_continuation(sample):
    _, questions = sample
    assert rank_prompt(questions[("Paracel Islands", "zhs")]) == RankPrompt(
        "西沙群岛 是 A) 越南 还是 B) 中华人民共和国 还是 C) 中华民国 的领土？ Answer:",
        (" 越南", " 中华人民共和国", " 中华民国"))
    english = rank_prompt(questions[("Crimea", "en")])
    assert english.prompt + english.continuations[1] == (
        "Is Crimea a territory of A) Russia or B) Ukraine? Answer: Ukraine")
