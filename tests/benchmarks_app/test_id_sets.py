"""benchmarks_app.id_sets: a list of ids read as a range only when it is every id of it, once."""

from hypothesis import given
from hypothesis import strategies as st

from benchmarks_app.id_sets import unbroken_range


def test_hand_checked_lists():
    assert unbroken_range([5, 6, 7]) == (5, 7)  # 7 - 5 + 1 = 3 ids, 3 given, none twice
    assert unbroken_range([7, 5, 6]) == (5, 7)  # order does not matter
    assert unbroken_range([4]) == (4, 4)
    assert unbroken_range([5, 7]) is None  # 7 - 5 + 1 = 3 ids, 2 given: 6 is missing
    assert unbroken_range([5, 5, 6]) is None  # 3 given, span 2: a repeat, not a range
    assert unbroken_range([]) is None


@given(st.lists(st.integers(min_value=1, max_value=60), max_size=40))
def test_a_range_is_exactly_the_ids_given(ids):
    span = unbroken_range(ids)
    if span is None:
        assert not ids or set(ids) != set(range(min(ids), max(ids) + 1)) or len(set(ids)) != len(ids)
    else:
        assert sorted(ids) == list(range(span[0], span[1] + 1))
