"""Authored validation items (`crisis_app.validation.parse_items`): the shape, and every
bad item named with its number and key."""

import pytest

from crisis_app.validation import ValidationFileError, parse_items

ITEM = {"reference": "r", "lexical": "l", "syntactic": "s", "irrelevance": "i", "semantic": "m"}


def test_items_come_back_in_order_with_their_labels_and_without_extras():
    assert parse_items({"items": [{**ITEM, "id": "a", "note": "n"}, ITEM]}) == [
        {**ITEM, "id": "a", "note": "n"}, ITEM]
    assert parse_items([ITEM]) == [ITEM]


def test_every_problem_is_listed_with_its_item():
    with pytest.raises(ValidationFileError) as caught:
        parse_items([{**ITEM, "lexical": 3}, {"reference": "r"}, {**ITEM, "id": ["x"]}])
    assert caught.value.problems == [
        "item 1: 'lexical' must be a non-empty text",
        "item 2: no 'lexical' text; add it", "item 2: no 'syntactic' text; add it",
        "item 2: no 'irrelevance' text; add it", "item 2: no 'semantic' text; add it",
        "item 3: 'id' must be a text"]


@pytest.mark.parametrize("payload", [{}, {"items": []}, "text", None, {"items": {"a": ITEM}}])
def test_a_payload_without_items_shows_the_shape(payload):
    with pytest.raises(ValidationFileError, match=r'write \{"items": \[\{"reference"'):
        parse_items(payload)
