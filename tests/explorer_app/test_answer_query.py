"""explorer_app.answer_query: the answers list's keyset cursor, its seek directions and the
option log-probabilities read into chart points. Pure: no database."""

import base64
import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from explorer_app.answer_query import (AFTER, BEFORE, SORTS, BadCursor, Sort, decode_cursor, encode_cursor,
                                       option_points, seek)

BY_KEY = Sort("key", "question__key", False, "text", "by key")  # an order on a text value


def test_a_cursor_is_url_safe_base64_of_direction_value_and_id():
    cursor = encode_cursor(AFTER, 1234, 1234)
    # '["a",1234,1234]' is 15 bytes: base64 makes 20 characters, no padding needed (15 = 5 × 3).
    assert cursor == base64.urlsafe_b64encode(b'["a",1234,1234]').decode()
    assert len(cursor) == 20 and "=" not in cursor
    assert decode_cursor(cursor, SORTS["newest"]) == (AFTER, 1234, 1234)


def test_a_text_cursor_keeps_a_question_key_with_any_characters():
    key = "cfpd/esc-CN-RU ü?&=#"
    cursor = encode_cursor(BEFORE, key, 7)
    assert set(cursor) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    assert decode_cursor(cursor, BY_KEY) == (BEFORE, key, 7)


@pytest.mark.parametrize("text", ["", "!!!", "bm90IGpzb24", base64.urlsafe_b64encode(b'["a",1]').decode(),
                                  base64.urlsafe_b64encode(b'["z",1,2]').decode(),
                                  base64.urlsafe_b64encode(b'["a",1,0]').decode(),
                                  base64.urlsafe_b64encode(b'["a",1,true]').decode(),
                                  base64.urlsafe_b64encode(b'["a",1,9223372036854775808]').decode(),
                                  base64.urlsafe_b64encode(b'\xff\xfe').decode(), "A" * 401])
def test_a_cursor_the_list_did_not_make_is_refused(text):
    with pytest.raises(BadCursor):
        decode_cursor(text, SORTS["newest"])


def test_a_cursor_of_another_order_is_refused_by_its_value_type():
    text_cursor = encode_cursor(AFTER, "q-1", 5)  # made for an order on text
    with pytest.raises(BadCursor, match="another order"):
        decode_cursor(text_cursor, SORTS["newest"])
    with pytest.raises(BadCursor, match="another order"):
        decode_cursor(encode_cursor(AFTER, 5, 5), BY_KEY)


@given(direction=st.sampled_from([AFTER, BEFORE]), value=st.integers(-2**63, 2**63 - 1),
       row_id=st.integers(1, 2**63 - 1))
def test_every_int_cursor_reads_back(direction, value, row_id):
    assert decode_cursor(encode_cursor(direction, value, row_id), SORTS["slowest"]) == (direction, value, row_id)


@given(value=st.text(max_size=60), row_id=st.integers(1, 10**12))
def test_every_text_cursor_reads_back(value, row_id):
    assert decode_cursor(encode_cursor(AFTER, value, row_id), BY_KEY) == (AFTER, value, row_id)


@given(st.text(max_size=80))
def test_no_text_makes_decoding_fail_otherwise_than_bad_cursor(text):
    try:
        decode_cursor(text, SORTS["newest"])
    except BadCursor:
        pass


def test_seek_reads_forward_past_the_cursor_and_backward_before_it():
    # newest first (id descending): the next page holds smaller ids, read in the same order;
    # the previous page larger ids, read ascending (nearest first) and put back.
    assert seek(SORTS["newest"], AFTER) == ("lt", False)
    assert seek(SORTS["newest"], BEFORE) == ("gt", True)
    # question order (ascending): the next page holds greater keys.
    assert seek(SORTS["question"], AFTER) == ("gt", False)
    assert seek(SORTS["question"], BEFORE) == ("lt", True)


def test_every_sort_ends_on_the_id_or_is_the_id():
    # ids and whole numbers only: each served by an index of the answers (see SORTS)
    assert {s.kind for s in SORTS.values()} == {"int"}
    assert SORTS["newest"].field == SORTS["oldest"].field == "id"
    assert (SORTS["question"].field, SORTS["model"].field) == ("question_id", "model_id")


def test_option_points_follow_the_order_the_model_saw():
    # The model saw B's wording first: letters "AB"; stored by presented letter.
    points = option_points({"B": -2.0, "A": -0.1353}, "AB")
    assert [p[0] for p in points] == ["A", "B"]
    assert points[0][1] == -0.1353
    assert points[0][2] == pytest.approx(0.8734, abs=1e-4)  # e^-0.1353 = 0.8734
    assert points[1][2] == pytest.approx(0.1353, abs=1e-4)  # e^-2 = 0.1353


def test_option_points_leave_out_what_is_no_number():
    stored = {"A": -1.0, "B": None, "C": "x", "D": float("nan"), "E": True, "F": float("-inf"), "G": 0.5}
    points = option_points(stored, "ABCDEFGH")
    assert [(letter, value) for letter, value, _ in points] == [("A", -1.0), ("G", 0.5)]
    assert points[0][2] == pytest.approx(math.exp(-1))  # 0.3679
    assert points[1][2] is None  # a log-probability above 0 is no probability


def test_no_stored_values_no_points():
    assert option_points(None, "AB") == [] and option_points({}, "AB") == []


def test_cursor_json_is_compact():
    raw = base64.urlsafe_b64decode(encode_cursor(AFTER, "k", 3) + "==")
    assert json.loads(raw) == ["a", "k", 3] and b" " not in raw
