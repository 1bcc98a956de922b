"""The resume API's budget as its schema states it (runs_app.api.POSITIVE_BUDGET_PATTERN):
every string the pattern admits is a budget the field accepts, and the bounds are the
field's own, so a client that follows the schema is never refused."""

import re
from decimal import Decimal

import pytest
from hypothesis import given, strategies as st

from runs_app.api import POSITIVE_BUDGET_PATTERN, ResumeSerializer

PATTERN = re.compile(POSITIVE_BUDGET_PATTERN)


@given(st.from_regex(POSITIVE_BUDGET_PATTERN, fullmatch=True))
def test_every_budget_the_schema_admits_is_accepted(text):
    serializer = ResumeSerializer(data={"budget_usd": text})
    assert serializer.is_valid(), (text, serializer.errors)
    assert Decimal("0.0001") <= serializer.validated_data["budget_usd"] < Decimal("100000000")


@pytest.mark.parametrize("text, admitted", [
    ("0.0001", True), (".5", True), ("12", True), ("99999999.9999", True), ("5.", True),
    ("0", False), ("0.0000", False), ("-.03", False), ("", False), ("100000000", False),
    ("0.00001", False), ("1e3", False),
])
def test_the_pattern_on_hand_picked_budgets(text, admitted):
    assert bool(PATTERN.fullmatch(text)) is admitted


def test_an_empty_budget_is_refused_and_null_removes_it():
    assert not ResumeSerializer(data={"budget_usd": ""}).is_valid()
    serializer = ResumeSerializer(data={"budget_usd": None})
    assert serializer.is_valid() and serializer.validated_data["budget_usd"] is None
