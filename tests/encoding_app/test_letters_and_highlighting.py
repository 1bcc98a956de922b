"""Presented letters vs canonical codes, the reproducible pick, and answer highlighting."""

import pytest

from encoding_app.highlighting import highlight
from encoding_app.letters import canonical_code, picked, presented_letter
from scenarios_app.prompting import option_letters, question_prompt


def test_a_presented_letter_maps_to_the_authors_option():
    # Shown as B, C, A: the model's "A" is the author's option 2 (B).
    order = [1, 2, 0]
    assert canonical_code("A", order) == "B"
    assert canonical_code("C", order) == "A"
    assert presented_letter("A", order) == "C"
    assert all(presented_letter(canonical_code(x, order), order) == x for x in "ABC")


def test_refusal_and_unpermuted_orders_pass_through():
    assert canonical_code("R", [2, 0, 1]) == "R"
    assert canonical_code("B", []) == "B" and canonical_code("B", [0, 1]) == "B"


def test_ten_options_are_lettered_a_to_j_and_map_both_ways():
    assert option_letters(10) == list("ABCDEFGHIJ")
    order = [9, 3, 0, 1, 2, 4, 5, 6, 7, 8]  # J's option shown first, D's second
    assert canonical_code("A", order) == "J" and canonical_code("B", order) == "D"
    assert presented_letter("J", order) == "A"
    assert all(presented_letter(canonical_code(x, order), order) == x for x in "ABCDEFGHIJ")
    prompt = question_prompt("Q?", [f"option {i}" for i in range(10)], order)
    assert "A: option 9" in prompt and "J: option 8" in prompt


def test_more_than_ten_options_are_refused_not_cut_short():
    with pytest.raises(ValueError, match="at most 10"):
        question_prompt("Q?", [f"option {i}" for i in range(11)])


def test_five_options_are_highlighted_by_their_letters():
    options = ["Protest", "Sanction", "Blockade", "Strike", "Negotiate"]
    marked = [s.letter for s in highlight("I choose E, not D.", options) if s.mark == "letter"]
    assert marked == ["E", "D"]


def test_a_letter_past_the_options_is_refused():
    with pytest.raises(ValueError):
        canonical_code("C", [1, 0])


def test_the_pick_is_reproducible_and_close_to_its_share():
    picks = [picked(i, 0.2, seed=3, purpose="second") for i in range(5000)]
    assert picks == [picked(i, 0.2, seed=3, purpose="second") for i in range(5000)]
    assert 0.18 < sum(picks) / 5000 < 0.22
    assert picks != [picked(i, 0.2, seed=3, purpose="audit") for i in range(5000)]  # independent per purpose
    assert not any(picked(i, 0, purpose="x") for i in range(100))
    assert all(picked(i, 1, purpose="x") for i in range(100))


OPTIONS = ["Withdraw and reopen talks with Chile", "Strike Chile's border posts at dawn"]


def test_letters_and_option_wording_are_marked():
    answer = "**B**. I would strike chile's border posts at dawn, not withdraw."
    segments = highlight(answer, OPTIONS)
    assert "".join(s.text for s in segments) == answer  # nothing lost or added
    marked = [(s.text, s.mark, s.letter) for s in segments if s.mark]
    assert marked == [("B", "letter", "B"), ("strike chile's border posts at dawn", "option", "B")]


def test_an_article_is_not_a_letter_and_markup_stays_text():
    answer = "A good option: <script>alert(1)</script> A"
    segments = highlight(answer, OPTIONS)
    assert [(s.text, s.mark) for s in segments if s.mark] == [("A", "letter")]
    assert segments[-1].text == "A" and segments[-1].mark == "letter"
    assert "<script>" in segments[0].text and segments[0].mark == ""


def test_letters_not_among_the_options_are_not_marked():
    assert all(not s.mark for s in highlight("D: a new idea entirely", OPTIONS))
    assert highlight("", OPTIONS) == []


def test_a_letter_in_the_middle_of_a_sentence_is_a_letter():
    marked = [s.text for s in highlight("Option A or B. A good case for C, though. Then A.", OPTIONS + ["x"]) if s.mark]
    assert marked == ["A", "B", "C", "A"]  # the sentence-opening article is skipped
