import math

import pytest

from scenarios_app.analysis.metrics.entropy import domain_entropy, pass_entropy, scenario_entropy, shannon_entropy
from scenarios_app.analysis.metrics.tidy import empty_table, from_records

A, B, C = "No use of force", "Use of force", "Threat to use of force"
BASE = dict(model="m1", run=1, question_key="q", scenario="s1", domain="Escalation", choice_count=2, action="",
            qualified_actor="US", opposing_actor="CN", repeat=0, outcome="answer", category=None)


def rows(scenario, repeat, *chosen, **fields):
    return [dict(fields, scenario=scenario, repeat=repeat,
                 **({"outcome": "refusal"} if c == "R" else {"category": c})) for c in chosen]


def only(frame, **keys):
    for column, value in keys.items():
        frame = frame[frame[column] == value]
    assert len(frame) == 1, frame
    return frame.iloc[0]


@pytest.mark.parametrize("counts, bits", [
    ([2, 2], 1.0),              # [A,A,B,B]: -2 * 0.5 log2 0.5 = 1
    ([4], 0.0),                 # [A,A,A,A]: -1 log2 1 = 0
    ([1, 1, 1], math.log2(3)),  # three equal: log2 3 = 1.585
    ([2, 2, 0], 1.0),           # an option never chosen adds nothing
    ([3, 1], 0.8112781244591328),  # -(0.75 log2 0.75 + 0.25 log2 0.25) = 0.311 + 0.5
])
def test_shannon_entropy_in_bits(counts, bits):
    assert shannon_entropy(counts) == pytest.approx(bits)


def test_entropy_is_taken_per_scenario_per_repeat_and_averaged_over_repeats():
    table = from_records(rows("s1", 0, A, A, B, B) + rows("s1", 1, A, A, A, A), **BASE)
    per_pass = pass_entropy(table).sort_values("repeat")
    assert per_pass["entropy"].tolist() == pytest.approx([1.0, 0.0])  # [A,A,B,B] -> 1, [A,A,A,A] -> 0
    row = only(scenario_entropy(table), scenario="s1")
    assert (row["entropy"], row["n_repeats"]) == (pytest.approx(0.5), 2)  # (1 + 0)/2


def test_refusals_are_removed_before_the_shares_are_taken():
    table = from_records(rows("s1", 0, A, A, B, B, "R", "R", "R"), **BASE)
    # without R: [A,A,B,B] -> 1 bit (with R counted it would be 1.557)
    assert only(scenario_entropy(table), scenario="s1")["entropy"] == pytest.approx(1.0)


def test_the_domain_entropy_is_the_mean_over_scenarios_per_form():
    table = from_records(
        rows("s1", 0, A, A, B, B) + rows("s2", 0, A, A, A, A)                # two options: 1 and 0
        + rows("t1", 0, A, B, C, choice_count=3) + rows("t1", 1, A, A, A, choice_count=3),  # log2 3 and 0
        **BASE)
    result = domain_entropy(table)
    two = only(result, choice_count=2)
    assert (two["entropy"], two["n_scenarios"]) == (pytest.approx(0.5), 2)  # (1 + 0)/2
    # t1: (log2 3 + 0)/2 = 0.792, the only three-option scenario
    assert only(result, choice_count=3)["entropy"] == pytest.approx(math.log2(3) / 2)


def test_models_are_kept_apart():
    table = from_records(rows("s1", 0, A, B, model="a") + rows("s1", 0, A, A, model="b"), **BASE)
    result = domain_entropy(table)
    assert only(result, model="a")["entropy"] == pytest.approx(1.0)  # [A,B] -> 1
    assert only(result, model="b")["entropy"] == 0.0                 # [A,A] -> 0


def test_an_empty_table_gives_no_entropy():
    assert pass_entropy(empty_table()).empty
    assert scenario_entropy(empty_table()).empty
    assert domain_entropy(empty_table()).empty


def test_weighted_rows_give_the_entropy_of_the_answers_they_stand_for():
    table = from_records([{"category": A, "n": 3}, {"category": B, "n": 1}, {"category": C, "n": 0},
                          {"outcome": "refusal", "n": 4}], **BASE)
    # [A,A,A,B]: -(0.75 log2 0.75 + 0.25 log2 0.25) = 0.311 + 0.5 = 0.811; C (n = 0) and R add nothing
    assert only(scenario_entropy(table), scenario="s1")["entropy"] == pytest.approx(0.8112781244591328)
