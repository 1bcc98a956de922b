"""The panel's design, pure: blocks dealt so every question gets about as many respondents,
the Latin square's turn of each showing, attention checks spread, the completion link."""

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from panels_app import design


def test_blocks_deal_the_questions_out_in_turn():
    # 5 questions, 2 each: places 0-1, 2-3, 4-0, 1-2, 3-4 (mod 5) for respondents 0..4
    order = design.question_order([10, 20, 30, 40, 50], seed=1)
    dealt = [[qid for qid, _ in design.block([10, 20, 30, 40, 50], 2, 1, n)] for n in range(5)]
    assert dealt == [[order[0], order[1]], [order[2], order[3]], [order[4], order[0]],
                     [order[1], order[2]], [order[3], order[4]]]
    # showings: respondent 2's second question is order[0]'s second showing (place 5 // 5 = 1)
    assert design.block([10, 20, 30, 40, 50], 2, 1, 2) == [(order[4], 0), (order[0], 1)]


def test_a_respondent_never_gets_a_question_twice_when_asked_for_more_than_there_are():
    assert sorted(qid for qid, _ in design.block([1, 2, 3], 10, 0, 4)) == [1, 2, 3]


def test_the_order_is_the_seeds():
    assert design.question_order([3, 1, 2], 5) == design.question_order([1, 2, 3], 5)


@given(st.lists(st.integers(0, 10_000), min_size=1, max_size=30, unique=True), st.integers(1, 40),
       st.integers(0, 80), st.integers(0, 2**31))
def test_every_question_gets_about_as_many_respondents(ids, per_respondent, respondents, seed):
    counts = Counter(qid for n in range(respondents) for qid, _ in design.block(ids, per_respondent, seed, n))
    shown = [counts.get(qid, 0) for qid in ids]
    assert max(shown) - min(shown) <= 1


@given(st.lists(st.integers(0, 10_000), min_size=1, max_size=12, unique=True), st.integers(1, 12),
       st.integers(1, 40))
def test_each_showing_of_a_question_is_counted_once(ids, per_respondent, respondents):
    showings = Counter((qid, shown) for n in range(respondents) for qid, shown in design.block(ids, per_respondent, 0, n))
    assert set(showings.values()) <= {1}
    by_question: dict[int, list[int]] = {}
    for qid, shown in showings:
        by_question.setdefault(qid, []).append(shown)
    assert all(sorted(s) == list(range(len(s))) for s in by_question.values())  # 0, 1, 2, … with no gap


def test_checks_split_the_items_into_nearly_equal_runs():
    # 10 items, 2 checks: after item ⌊1·10/3⌋ = 3 and ⌊2·10/3⌋ = 6
    pages = design.with_checks(10, 2)
    assert len(pages) == 12
    assert [i for i, page in enumerate(pages) if page[0] == "check"] == [3, 7]
    assert [index for kind, index in pages if kind == "item"] == list(range(10))
    assert design.with_checks(0, 1) == [("check", 0)]
    assert design.with_checks(3, 0) == [("item", 0), ("item", 1), ("item", 2)]


def test_the_completion_link_carries_the_code():
    assert design.completion_link("https://app.prolific.com/submissions/complete", "C1X2") == \
        "https://app.prolific.com/submissions/complete?cc=C1X2"
    assert design.completion_link("https://example.org/done?x=1", "AB") == "https://example.org/done?x=1&cc=AB"
    assert design.completion_link("https://example.org/done?cc=AB", "AB") == "https://example.org/done?cc=AB"
    assert design.completion_link("", "AB") == ""
