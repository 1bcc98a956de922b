"""Which units travel together (runs_app.batching): exact cases and the rules for all inputs."""

from hypothesis import given
from hypothesis import strategies as st

from runs_app.batching import asked_alone, batch_size, batches, stream_batches, units_per_message


def test_a_batch_is_half_the_models_concurrency_within_bounds():
    assert batch_size(8, 32) == 4  # 8 / 2
    assert batch_size(32, 32) == 16  # 32 / 2
    assert batch_size(128, 32) == 32  # 64, capped at 32
    assert batch_size(3, 32) == 2  # (3 + 1) // 2
    assert batch_size(1, 32) == 1 and batch_size(2, 32) == 1


def test_units_of_two_models_interleaved_go_in_batches_of_their_own_model():
    units = [(1, "a", 2), (2, "b", 2), (3, "a", 2), (4, "b", 2), (5, "a", 2)]
    assert batches(units) == [[1, 3], [2, 4], [5]]


def test_a_unit_of_size_one_goes_alone():
    assert batches([(1, "a", 1), (2, "a", 1)]) == [[1], [2]]


def test_bundled_rank_and_budgeted_units_are_asked_alone():
    assert asked_alone(True, "choice", None, None)
    assert asked_alone(False, "rank", None, None)
    assert asked_alone(False, "generate", 1, None) and asked_alone(False, "generate", None, 5)
    assert not asked_alone(False, "choice", None, None) and not asked_alone(False, "generate", None, None)


def test_units_per_message_is_one_for_units_asked_alone_else_the_batch_size():
    assert units_per_message(False, "choice", None, None, 8, 32) == 4  # (8 + 1) // 2
    assert units_per_message(True, "choice", None, None, 8, 32) == 1  # bundled
    assert units_per_message(False, "choice", 10, None, 128, 32) == 1  # a budget


units = st.lists(st.tuples(st.integers(0, 3), st.integers(1, 5)), max_size=60).map(
    lambda pairs: [(index, group, size_by_group) for index, (group, size_by_group) in enumerate(pairs)])


@given(units)
def test_every_unit_is_in_exactly_one_batch_of_one_group_within_its_size(items):
    # A group's size is the first one seen for it (a model has one concurrency).
    size_of = {}
    items = [(i, g, size_of.setdefault(g, s)) for i, g, s in items]
    found = batches(items)
    assert sorted(pk for batch in found for pk in batch) == [i for i, _, _ in items]
    group_of = {i: g for i, g, _ in items}
    for batch in found:
        assert batch and len({group_of[pk] for pk in batch}) == 1
        assert len(batch) <= size_of[group_of[batch[0]]]
        assert batch == sorted(batch)  # in the order the units came


def test_streamed_batches_are_given_when_full_and_the_rest_at_the_end():
    units = [(1, "a", 2), (2, "b", 2), (3, "a", 2), (4, "b", 2), (5, "a", 2)]
    # a fills at unit 3, b at unit 4; a's [5] is left open until the end
    assert list(stream_batches(units)) == [[1, 3], [2, 4], [5]]
    units = [(1, "a", 3), (2, "b", 1), (3, "a", 3)]
    assert list(stream_batches(units)) == [[2], [1, 3]]  # b's batch is full at once; a's never fills


@given(st.lists(st.tuples(st.sampled_from("abc"), st.integers(1, 4)), max_size=60))
def test_streamed_batches_hold_the_same_units_in_the_same_batches(spec):
    # One size per group, as a model's units all have its size.
    sizes = {}
    units = [(i, group, sizes.setdefault(group, size)) for i, (group, size) in enumerate(spec)]
    assert sorted(stream_batches(units)) == sorted(batches(units))
