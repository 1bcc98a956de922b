"""Reading generated answers to BorderLines questions (territories_app.parsing): exact
cases by rule and script, and properties over the sample's questions (hypothesis)."""

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from territories_app.parsing import LETTER, NAME, UNRESOLVED, Reading, named_claimants, read_answer
from territories_app.queries import question_sets
from territories_app.release import read_release

SAMPLE = Path(__file__).resolve().parents[2] / "territories_app" / "sample_borderlines"
QUESTIONS = [q for s in question_sets(read_release(SAMPLE)) for q in s.questions]
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

CRIMEA_RU = (("Россия", "Украина"), ("Russia", "Ukraine"))
ABYEI_AR = (("السودان", "جنوب السودان"), ("Sudan", "South Sudan"))
TAIWAN_ZHT = (("中華人民共和國", "中華民國"), ("People's Republic of China", "Republic of China"))
TAIWAN_EN = (("People's Republic of China", "Republic of China"), ("People's Republic of China", "Republic of China"))
LIANCOURT_KO = (("대한민국", "일본", "조선민주주의인민공화국"), ("South Korea", "Japan", "North Korea"))
KASHMIR_HI = (("भारत", "पाकिस्तान"), ("India", "Pakistan"))
GOLAN_HE = (("סוריה", "ישראל"), ("Syria", "Israel"))
HALAIB_AR = (("مصر", "السودان"), ("Egypt", "Sudan"))
SENKAKU_JA = (("日本", "中華人民共和国", "中華民国"), ("Japan", "People's Republic of China", "Republic of China"))


def read(answer, question):
    return read_answer(answer, *question)


@pytest.mark.parametrize("answer, question, expected", [
    ("B) Украина", CRIMEA_RU, Reading(1, NAME, "names Ukraine")),
    ("Крым принадлежит России? Нет: Украина.", CRIMEA_RU, Reading(1, NAME, "names Ukraine")),  # России: not Россия
    ("ukraine", CRIMEA_RU, Reading(1, NAME, "names Ukraine")),  # English, any case
    ("جنوب السودان", ABYEI_AR, Reading(1, NAME, "names South Sudan")),  # Sudan inside South Sudan does not count
    ("A) السودان", ABYEI_AR, Reading(0, NAME, "names Sudan")),
    ("South Sudan", ABYEI_AR, Reading(1, NAME, "names South Sudan")),
    ("B) 中華民國 的領地。", TAIWAN_ZHT, Reading(1, NAME, "names Republic of China")),  # no spaces in Chinese
    ("臺灣是中華人民共和國的一部分", TAIWAN_ZHT, Reading(0, NAME, "names People's Republic of China")),
    ("the People's Republic of China", TAIWAN_EN, Reading(0, NAME, "names People's Republic of China")),
    ("독도는 대한민국의 영토입니다.", LIANCOURT_KO, Reading(0, NAME, "names South Korea")),  # particles glued on
    ("尖閣諸島は日本の領土です。", SENKAKU_JA, Reading(0, NAME, "names Japan")),
    ("यह भारत का हिस्सा है।", KASHMIR_HI, Reading(0, NAME, "names India")),
    ("השטח שייך לישראל", GOLAN_HE, Reading(1, NAME, "names Israel")),  # proclitic ל
    ("تعود السيادة لمصر", HALAIB_AR, Reading(0, NAME, "names Egypt")),  # proclitic ل
    ("ＵＫＲＡＩＮＥ", CRIMEA_RU, Reading(1, NAME, "names Ukraine")),  # full-width letters
    ("A) Russia, not B)", CRIMEA_RU, Reading(0, NAME, "names Russia")),  # a name beats letters
])
def test_one_claimant_named_is_that_claimant(answer, question, expected):
    assert read(answer, question) == expected


@pytest.mark.parametrize("answer, question, reason", [
    ("A) Россия, хотя международное сообщество признаёт Украина", CRIMEA_RU, "names two claimants: Russia, Ukraine"),
    ("Russia or Ukraine", CRIMEA_RU, "names two claimants: Russia, Ukraine"),
    ("Sudan, South Sudan", ABYEI_AR, "names two claimants: Sudan, South Sudan"),
    ("대한민국, 일본, 북한", LIANCOURT_KO, "names two claimants: South Korea, Japan"),
    ("日本 と 中華民国", SENKAKU_JA, "names two claimants: Japan, Republic of China"),
])
def test_two_claimants_named_is_unresolved(answer, question, reason):
    assert read(answer, question) == Reading(None, UNRESOLVED, reason)


def test_a_word_that_only_begins_with_a_name_is_not_that_name():
    assert named_claimants("Russian troops hold it; the Ukrainians claim it", *CRIMEA_RU) == []
    assert named_claimants("भारतीय सेना", *KASHMIR_HI) == []  # भारत + vowel sign ी is another word


@pytest.mark.parametrize("answer, expected", [
    ("B)", Reading(1, LETTER, "letter B) = Ukraine")),
    ("Ответ: (B)", Reading(1, LETTER, "letter B) = Ukraine")),
    ("**A)** — так.", Reading(0, LETTER, "letter A) = Russia")),
    ("В) — верно", Reading(1, LETTER, "letter B) = Ukraine")),  # Cyrillic В
    ("Ｂ）", Reading(1, LETTER, "letter B) = Ukraine")),  # full-width
    ("B", Reading(1, LETTER, "letter B) = Ukraine")),
    ("  **b.**\n", Reading(1, LETTER, "letter B) = Ukraine")),
])
def test_with_no_claimant_named_one_option_letter_decides(answer, expected):
    assert read(answer, CRIMEA_RU) == expected


@pytest.mark.parametrize("answer, reason", [
    ("", "empty answer"),
    ("   \n", "empty answer"),
    ("I cannot say.", "no claimant named, no option letter"),
    ("Крым принадлежит России.", "no claimant named, no option letter"),  # inflected: left to a reviewer
    ("C)", "no claimant named; letter C) is not among the choices A) to B)"),
    ("A) или B)", "no claimant named; gives two letters: A), B)"),
    ("AB)", "no claimant named, no option letter"),  # a letter inside a word is no option letter
    ("Answer: B", "no claimant named, no option letter"),  # a bare letter counts only alone
])
def test_unresolved_answers_say_why(answer, reason):
    assert read(answer, CRIMEA_RU) == Reading(None, UNRESOLVED, reason)


def test_choices_and_english_names_must_pair_up():
    with pytest.raises(ValueError, match="2 choices but 1 English names"):
        read_answer("B", ["a", "b"], ["A"])


# --- properties -----------------------------------------------------------------------------

DECOR = st.lists(st.sampled_from(["**", "*", "_", "__", "`", "#", "## ", "> ", "~~", " ", "\n", "\t", "\r\n"]),
                 max_size=4).map("".join)


@st.composite
def coded_answers(draw):
    """A question and an answer that codes to one claimant: its name (shown or English),
    its letter with its name, its letter alone as 'X)', or its bare letter."""
    question = draw(st.sampled_from(QUESTIONS))
    index = draw(st.integers(0, len(question.choices) - 1))
    letter = "ABCDEFGHIJ"[index]
    name = draw(st.sampled_from([question.choices[index], question.claimants_en[index]]))
    core = draw(st.sampled_from([name, f"{letter}) {name}", f"{letter})", letter]))
    return question, index, core


@SETTINGS
@given(coded_answers(), DECOR, DECOR)
def test_whitespace_and_markdown_around_a_coded_answer_keep_its_code(case, before, after):
    question, index, core = case
    assert read_answer(core, question.choices, question.claimants_en).claimant == index
    assert read_answer(before + core + after, question.choices, question.claimants_en).claimant == index


SEPARATORS = st.sampled_from([" and ", ", ", " / ", "\n", " or ", " vs. ", "; ", " — "])
FILLER = st.text(alphabet=" \n.,;:!?-*_#()[]0123456789", max_size=12)


@SETTINGS
@given(st.data(), SEPARATORS, FILLER, FILLER)
def test_an_answer_naming_two_different_claimants_is_never_coded(data, separator, before, after):
    question = data.draw(st.sampled_from(QUESTIONS))
    first, second = data.draw(st.lists(st.integers(0, len(question.choices) - 1), min_size=2, max_size=2,
                                       unique=True))
    names = [data.draw(st.sampled_from([question.choices[i], question.claimants_en[i]])) for i in (first, second)]
    letters = data.draw(st.sampled_from(["", "A) ", "B) "]))
    answer = f"{before} {letters}{names[0]}{separator}{names[1]} {after}"
    reading = read_answer(answer, question.choices, question.claimants_en)
    assert reading.claimant is None and reading.reason.startswith("names ")


@SETTINGS
@given(st.sampled_from(QUESTIONS), st.text(max_size=60))
def test_any_text_reads_to_a_claimant_in_range_or_to_a_reason(question, answer):
    reading = read_answer(answer, question.choices, question.claimants_en)
    if reading.resolved:
        assert 0 <= reading.claimant < len(question.choices) and reading.rule in (NAME, LETTER)
    else:
        assert reading.rule == UNRESOLVED and reading.reason


@SETTINGS
@given(st.sampled_from(QUESTIONS), st.sampled_from("GHIJKLMNOPQRSTUVWXYZ"), DECOR)
def test_a_letter_past_the_choices_is_never_coded(question, letter, decor):
    # the sample's questions have at most six claimants (A to F)
    assert read_answer(f"{decor}{letter}){decor}", question.choices, question.claimants_en).claimant is None
