"""The balanced option-order design (runs_app/option_design.py): exact counts on small
groups, and the balance for every count of units (hypothesis)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from runs_app.option_design import balanced_orders, position_counts, rotation


def _keys(n, model="m"):
    return [f"q{i}/{model}/r" for i in range(n)]


def test_a_rotation_shifts_the_base_order():
    # base (2, 0, 1) shifted by 1: positions show base[1], base[2], base[0]
    assert rotation([2, 0, 1], 0) == [2, 0, 1]
    assert rotation([2, 0, 1], 1) == [0, 1, 2]
    assert rotation([2, 0, 1], 2) == [1, 2, 0]


def test_six_units_of_three_options_show_each_option_twice_at_each_position():
    (orders,) = balanced_orders(3, [_keys(6)], seed=0, group="s1")
    # 6 = 2 x 3 units: the three rotations twice each
    assert position_counts(orders, 3) == [[2, 2, 2], [2, 2, 2], [2, 2, 2]]
    assert all(sorted(order) == [0, 1, 2] for order in orders)
    assert len({tuple(o) for o in orders}) == 3  # only the three rotations of one base order


def test_five_units_of_two_options_differ_by_one_at_most():
    (orders,) = balanced_orders(2, [_keys(5)], seed=3, group="s2")
    counts = position_counts(orders, 2)
    # 5 = 2 x 2 + 1: rotation 0 three times and rotation 1 twice, so each option is at one
    # position three times and at the other twice
    assert sorted(counts[0]) == [2, 3] and sorted(counts[1]) == [2, 3]
    assert counts[0][0] == counts[1][1] and counts[0][1] == counts[1][0]


def test_the_count_runs_on_across_models_so_the_scenario_is_balanced_too():
    # two models asking a 2-option scenario 3 times each: per model 2 and 1, together 3 and 3
    hawk, dove = balanced_orders(2, [_keys(3, "hawk"), _keys(3, "dove")], seed=1, group="s")
    assert sorted(position_counts(hawk, 2)[0]) == [1, 2]
    assert position_counts(hawk + dove, 2) == [[3, 3], [3, 3]]


def test_the_same_seed_gives_the_same_orders_and_another_seed_may_not():
    blocks = [_keys(7), _keys(7, "other")]
    assert balanced_orders(3, blocks, 5, "g") == balanced_orders(3, blocks, 5, "g")
    different = {str(balanced_orders(3, blocks, seed, "g")) for seed in range(10)}
    assert len(different) > 1


def test_one_option_and_no_units():
    assert balanced_orders(1, [_keys(3)], 0, "g") == [[[0], [0], [0]]]
    assert balanced_orders(3, [[]], 0, "g") == [[]]


@settings(max_examples=200, deadline=None)
@given(count=st.integers(2, 6), sizes=st.lists(st.integers(0, 40), min_size=1, max_size=4),
       seed=st.integers(0, 2**31 - 1), group=st.text(max_size=8))
def test_every_option_sits_at_every_position_equally_often_give_or_take_one(count, sizes, seed, group):
    blocks = [_keys(size, f"model{i}") for i, size in enumerate(sizes)]
    result = balanced_orders(count, blocks, seed, group)
    assert [len(orders) for orders in result] == sizes
    everything = []
    for orders in result:
        assert all(sorted(order) == list(range(count)) for order in orders)
        cells = [c for row in position_counts(orders, count) for c in row]
        assert max(cells) - min(cells) <= 1  # per model
        if len(orders) % count == 0:
            assert set(cells) == {len(orders) // count}  # exactly k when asked k x n times
        everything += orders
    cells = [c for row in position_counts(everything, count) for c in row]
    assert max(cells) - min(cells) <= 1  # per scenario, over every model
    if len(everything) % count == 0:
        assert set(cells) == {len(everything) // count}
