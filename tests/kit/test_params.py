"""kit.params: every bad query value is a BadParameter naming the field and why."""

import pytest
from django.http import QueryDict

from kit import params
from kit.params import BadParameter


def q(text):
    return QueryDict(text)


@pytest.mark.parametrize("text,reason", [
    ("iterations=", "must be a whole number, and it was empty"),
    ("iterations=abc", "must be a whole number, got 'abc'"),
    ("iterations=1.5", "must be a whole number"),
    ("iterations=1_000", "must be a whole number"),
    ("iterations=%D9%A1%D9%A2", "must be a whole number"),  # Arabic-Indic digits: int() would take them
    ("iterations=50", "must be between 100 and 10000, got '50'"),
    ("iterations=" + str(2**70), "must be between 100 and 10000"),
    ("iterations=" + "9" * 5000, "must be a whole number"),  # past int()'s digit limit too
])
def test_a_bad_whole_number_names_the_field_and_the_reason(text, reason):
    with pytest.raises(BadParameter) as caught:
        params.integer(q(text), "iterations", minimum=100, maximum=10_000)
    assert caught.value.field == "iterations" and reason in str(caught.value)
    assert str(caught.value).startswith("iterations ")


def test_whole_numbers_in_range_are_read_and_absent_ones_default():
    assert params.integer(q("seed=%2B7"), "seed", minimum=0) == 7  # "+7"
    assert params.integer(q("seed=%2012%20"), "seed") == 12  # spaces around are trimmed
    assert params.integer(q(""), "seed", default=0) == 0
    assert params.optional_integer(q("run="), "run") is None


def test_ids_must_fit_64_bits_and_be_positive():
    assert params.integers(q("run=3&run=1&run=3&run="), "run") == (1, 3)
    with pytest.raises(BadParameter, match="run must be between 1 and 9223372036854775807"):
        params.integers(q(f"run={2**63}"), "run")
    with pytest.raises(BadParameter, match="run must be between 1"):
        params.integers(q("run=-4"), "run")


def test_text_is_capped_and_refuses_nul():
    assert params.texts(q("model=b&model=a&model=+&model=a"), "model") == ("a", "b")
    assert params.text(q("category=%20Use%20of%20force%20"), "category") == "Use of force"
    with pytest.raises(BadParameter, match="model must not contain a NUL character"):
        params.texts(q("model=a%00b"), "model")
    with pytest.raises(BadParameter, match="category is 201 characters long, at most 200 allowed"):
        params.text(q("category=" + "x" * 201), "category")
    with pytest.raises(BadParameter, match="model given 201 times"):
        params.texts(q("&".join(["model=a"] * 201)), "model")


def test_a_checkbox_is_on_only_for_yes_words():
    assert params.flag(q("focus=on"), "focus") and params.flag(q("focus=1"), "focus")
    assert not params.flag(q("focus=0"), "focus") and not params.flag(q(""), "focus")
