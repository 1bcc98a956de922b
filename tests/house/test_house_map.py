"""The house's map in docs/architecture.md is the code's (tests/house/house_map.py): the block
between its markers equals what `scripts/house-map` makes now, and the map's circle finder
and arrows are right on small hand-made graphs."""

from tests.house import house_map


def test_the_architecture_documents_map_is_the_one_the_code_makes_now():
    doc = (house_map.ROOT / "docs" / "architecture.md").read_text()
    block = house_map.block_in(doc)
    assert block is not None, "docs/architecture.md lost its house-map markers"
    assert block == house_map.house_map(), "the map is stale: run scripts/house-map --write"


def test_no_two_rooms_import_each_other_even_through_others():
    rooms, _ = house_map.contracts()
    assert house_map.circles(house_map.arrows(rooms)) == []


def test_circles_are_found_through_other_rooms_and_only_between_rooms_that_reach_each_other():
    # a -> b -> c -> a is one circle of three rooms: each pair reaches the other (3 pairs);
    # d -> a is one way only.
    edges = {"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}
    assert house_map.circles(edges) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert house_map.circles({"a": ["b"], "b": []}) == []


def test_the_map_counts_arrows_and_lists_importers():
    text = house_map.render(["a", "b", "c"], [("x", "forbidden", "a imports no c")], {"a": ["b"], "b": ["c"], "c": []})
    assert "2 arrows between 3 rooms; circles between rooms: none." in text
    assert "| `c` | — | b |" in text  # c imports nothing and is imported by b
    assert "| `x` | forbidden | a imports no c |" in text
