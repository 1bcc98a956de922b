import pytest

from scenarios_app.notation import NotationError, SetExpression, format_pairs, parse_actor_set


def test_it_reads_the_papers_notation_in_order_and_upper_cases_codes():
    parsed = parse_actor_set("(CN,RU), (ru, cn),(DE , FR)")
    assert parsed.pairs == [("CN", "RU"), ("RU", "CN"), ("DE", "FR")]
    assert parsed.sets == []


def test_it_reads_non_state_codes():
    assert parse_actor_set("(NATO,RU), (EU,CN)").pairs == [("NATO", "RU"), ("EU", "CN")]


def test_it_reads_a_named_set_with_filters():
    parsed = parse_actor_set("{Universal Generic | A: US,gb | B: CN}")
    assert parsed.sets == [SetExpression("Universal Generic", ("US", "GB"), ("CN",))]


def test_a_set_expands_to_all_ordered_pairs_of_distinct_members():
    # 3 members -> 3 x 2 = 6 ordered pairs, in member order.
    assert SetExpression("S").pairs(["US", "CN", "RU"]) == [
        ("US", "CN"), ("US", "RU"), ("CN", "US"), ("CN", "RU"), ("RU", "US"), ("RU", "CN")]


def test_a_set_filter_keeps_only_the_named_actors_in_that_slot():
    assert SetExpression("S", only_a=("US",)).pairs(["US", "CN", "RU"]) == [("US", "CN"), ("US", "RU")]
    assert SetExpression("S", only_b=("US",)).pairs(["US", "CN", "RU"]) == [("CN", "US"), ("RU", "US")]


@pytest.mark.parametrize("text, fragment", [
    ("(CN RU)", "cannot read '(CN RU)'"),
    ("(CN,RU) and more", "cannot read 'and more'"),
    ("(C-N,RU)", "'C-N' is not an actor code"),
    ("{ | A: US}", "needs a set name"),
    ("{Universal Generic | C: US}", "must read 'A: CODES' or 'B: CODES'"),
])
def test_it_rejects_text_it_cannot_read_and_says_where(text, fragment):
    with pytest.raises(NotationError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        parse_actor_set(text)


def test_format_and_parse_round_trip():
    pairs = [("CN", "RU"), ("NATO", "RU")]
    assert parse_actor_set(format_pairs(pairs)).pairs == pairs
    assert format_pairs(pairs) == "(CN,RU), (NATO,RU)"
