"""The reviewer's queue counts in words (issue 38): each number says what it counts and
whose it is, and the empty card says why it is empty."""

from encoding_app import queue_words


def counts(mine=0, others=0, available=0, skipped=0, own=None, held=0):
    own = own or {}
    return {"mine": mine, "others": others, "available": available, "skipped": skipped, "own": own, "held": held,
            "left": available + skipped + sum(own.values()) + held}


# The issue's queue: "7 done / 3 left" while the card said nothing was left; the 3 were
# her own skipped item and two blind second codes of answers she had coded.
ISSUE = counts(mine=7, skipped=1, own={"second": 2})


def test_the_issues_queue_names_each_number():
    assert queue_words.line(ISSUE) == ("7 coded by you · 0 left for you · 1 you skipped · "
                                       "2 second codes of answers you coded waiting for another reviewer")


def test_the_issues_empty_card_says_why_it_is_empty():
    reason = queue_words.empty_reason(ISSUE)
    assert "1 item you skipped" in reason and "2 second codes of answers you coded" in reason
    assert "nobody codes an answer twice" in reason and "held" not in reason


def test_others_work_and_holds_are_named_only_when_they_occur():
    assert [p["key"] for p in queue_words.parts(counts(mine=1, available=3))] == ["mine", "available"]
    line = queue_words.line(counts(mine=1, others=4, available=2, held=1, own={"second": 1, "audit": 2}))
    assert line == ("1 coded by you · 4 by other reviewers · 2 left for you · 1 second code of an answer you coded "
                    "waiting for another reviewer · 2 audits of answers you coded waiting for another reviewer · "
                    "1 held by another reviewer")


def test_the_adjudication_queue_speaks_of_adjudicators():
    line = queue_words.line(counts(mine=2, others=1, own={"adjudication": 1}), "adjudication")
    assert line == ("2 adjudicated by you · 1 by other adjudicators · 0 left for you · 1 disagreement over your code "
                    "waiting for another adjudicator")
    assert "nobody adjudicates their own disagreement" in queue_words.empty_reason(
        counts(own={"adjudication": 1}), "adjudication")


def test_a_done_queue_and_an_empty_one_say_which_they_are():
    assert queue_words.empty_reason(counts(mine=3)).startswith("Every item in this filter is done.")
    assert queue_words.empty_reason(counts()).startswith("This filter has no items for people yet.")


def test_a_second_code_added_by_a_code_is_said():
    assert "blind second code" in queue_words.follow_up("second")
    assert "adjudication queue" in queue_words.follow_up("adjudication")
