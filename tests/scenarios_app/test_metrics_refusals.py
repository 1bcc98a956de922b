import math

import pytest

from scenarios_app.analysis.metrics.refusals import refusals_by_actor, refusals_by_domain, refusals_by_model
from scenarios_app.analysis.metrics.tidy import empty_table, from_records

BASE = dict(model="m1", run=1, question_key="q", scenario="s1", domain="Escalation", choice_count=2, action="",
            qualified_actor="US", opposing_actor="CN", repeat=0, outcome="answer", category="Use of force")


def outcomes(*names, **fields):
    return [dict(fields, outcome=name, category="Use of force" if name == "answer" else None) for name in names]


TABLE = from_records(
    outcomes("answer", "answer", "answer", "refusal", "missing", "unresolved")
    + outcomes("answer", "answer", "answer", "refusal", qualified_actor="RU", domain="Cooperation")
    + outcomes("answer", "missing", model="m2"),
    **BASE,
)


def only(frame, **keys):
    for column, value in keys.items():
        frame = frame[frame[column] == value]
    assert len(frame) == 1, frame
    return frame.iloc[0]


def test_the_refusal_rate_is_refusals_over_answers_and_refusals():
    m1 = only(refusals_by_model(TABLE), model="m1")
    # m1: 6 answers, 2 refusals, 1 missing, 1 unresolved; 2/(6 + 2) = 0.25
    assert (m1["answer"], m1["refusal"], m1["missing"], m1["unresolved"], m1["rows"]) == (6, 2, 1, 1, 10)
    assert m1["refusal_rate"] == pytest.approx(0.25)


def test_missing_and_unresolved_rows_get_shares_of_all_rows():
    m1 = only(refusals_by_model(TABLE), model="m1")
    # of 10 rows: 6 answers 0.6, 2 refusals 0.2, 1 missing 0.1, 1 unresolved 0.1
    assert (m1["answer_share"], m1["refusal_share"], m1["missing_share"], m1["unresolved_share"]) == (
        pytest.approx(0.6), pytest.approx(0.2), pytest.approx(0.1), pytest.approx(0.1))


def test_a_model_that_never_refused_has_rate_zero():
    m2 = only(refusals_by_model(TABLE), model="m2")
    # 1 answer, 0 refusals -> 0/1 = 0; the missing row is outside the ratio but half the rows
    assert m2["refusal_rate"] == 0 and m2["missing_share"] == pytest.approx(0.5)


def test_only_missing_rows_give_no_refusal_rate():
    table = from_records(outcomes("missing", "unresolved"), **BASE)
    assert math.isnan(only(refusals_by_model(table), model="m1")["refusal_rate"])


def test_refusal_rates_per_domain_and_per_qualified_actor():
    by_domain = refusals_by_domain(TABLE)
    # Escalation: 1 refusal of 3 + 1 = 0.25; Cooperation: 1 of 3 + 1 = 0.25; both with 4 decided rows
    assert only(by_domain, model="m1", domain="Escalation")["refusal_rate"] == pytest.approx(1 / 4)
    assert only(by_domain, model="m1", domain="Cooperation")["rows"] == 4
    by_actor = refusals_by_actor(TABLE)
    # US: 3 answers, 1 refusal -> 1/4; RU: 3 answers, 1 refusal -> 1/4
    assert only(by_actor, model="m1", qualified_actor="RU")["refusal_rate"] == pytest.approx(0.25)
    assert only(by_actor, model="m1", qualified_actor="US")["missing"] == 1


def test_an_empty_table_gives_an_empty_summary():
    result = refusals_by_model(empty_table())
    assert result.empty and "refusal_rate" in result.columns


def test_weighted_rows_count_n_times():
    table = from_records([{"outcome": "answer", "n": 6}, {"outcome": "refusal", "category": None, "n": 2},
                          {"outcome": "missing", "category": None, "n": 1},
                          {"outcome": "unresolved", "category": None, "n": 1},
                          {"model": "m2", "outcome": "refusal", "category": None, "n": 0}], **BASE)
    result = refusals_by_model(table)
    m1 = only(result, model="m1")
    # the same counts as the ten rows of TABLE's m1: 2/(6 + 2) = 0.25; missing 1 of 10 rows = 0.1
    assert (m1["answer"], m1["refusal"], m1["missing"], m1["unresolved"], m1["rows"]) == (6, 2, 1, 1, 10)
    assert (m1["refusal_rate"], m1["missing_share"]) == (pytest.approx(0.25), pytest.approx(0.1))
    # m2's one row stands for no answer at all, so m2 has no counts to report
    assert result["model"].tolist() == ["m1"]
