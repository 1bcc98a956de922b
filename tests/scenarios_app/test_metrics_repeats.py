import math

import pytest

from scenarios_app.analysis.metrics.repeats import repeat_rates, repeat_summary
from scenarios_app.analysis.metrics.tidy import empty_table, from_records

UOF, NOF = "Use of force", "No use of force"
BASE = dict(model="m1", run=1, question_key="q", scenario="s1", domain="Escalation", choice_count=2, action="",
            qualified_actor="US", opposing_actor="CN", repeat=0, outcome="answer", category=None)


def rows(scenario, repeat, *chosen, **fields):
    return [dict(fields, scenario=scenario, repeat=repeat, category=c) for c in chosen]


THREE_REPEATS = (
    rows("s1", 0, UOF, UOF) + rows("s2", 0, UOF, NOF)      # s1 1.0, s2 0.5 -> 0.75
    + rows("s1", 1, UOF, NOF) + rows("s2", 1, NOF, NOF)    # s1 0.5, s2 0.0 -> 0.25
    + rows("s1", 2, UOF, UOF) + rows("s2", 2, NOF, NOF)    # s1 1.0, s2 0.0 -> 0.5
)


def only(frame, **keys):
    for column, value in keys.items():
        frame = frame[frame[column] == value]
    assert len(frame) == 1, frame
    return frame.iloc[0]


def test_each_repeat_gets_its_own_normalised_rate():
    rates = repeat_rates(from_records(THREE_REPEATS, **BASE))
    uof = rates[rates["category"] == UOF].sort_values("repeat")
    # repeat 0: (1 + 0.5)/2 = 0.75; repeat 1: (0.5 + 0)/2 = 0.25; repeat 2: (1 + 0)/2 = 0.5
    assert uof["rate"].tolist() == pytest.approx([0.75, 0.25, 0.5])


def test_the_summary_is_mean_and_sample_sd_across_repeats():
    summary = repeat_summary(from_records(THREE_REPEATS, **BASE))
    row = only(summary, category=UOF)
    # mean (0.75 + 0.25 + 0.5)/3 = 0.5
    assert row["mean"] == pytest.approx(0.5)
    # deviations 0.25, -0.25, 0; sd = sqrt((0.0625 + 0.0625 + 0)/(3 - 1)) = sqrt(0.0625) = 0.25
    assert row["sd"] == pytest.approx(0.25)
    assert row["n_repeats"] == 3
    # No use of force mirrors it: mean 1 - 0.5 = 0.5, same sd 0.25
    assert only(summary, category=NOF)["sd"] == pytest.approx(0.25)


def test_one_repeat_has_no_standard_deviation():
    summary = repeat_summary(from_records(rows("s1", 0, UOF, NOF), **BASE))
    row = only(summary, category=UOF)
    assert row["mean"] == pytest.approx(0.5)  # 1 of 2
    assert math.isnan(row["sd"]) and row["n_repeats"] == 1


def test_repeat_zero_of_two_runs_are_two_passes():
    table = from_records(rows("s1", 0, UOF, UOF, run=1) + rows("s1", 0, NOF, NOF, run=2), **BASE)
    row = only(repeat_summary(table), category=UOF)
    # run 1: 2/2 = 1; run 2: 0/2 = 0; mean 0.5; sd = sqrt((0.25 + 0.25)/1) = sqrt(0.5)
    assert (row["mean"], row["sd"], row["n_repeats"]) == (pytest.approx(0.5), pytest.approx(math.sqrt(0.5)), 2)


def test_an_empty_table_gives_an_empty_summary():
    assert repeat_summary(empty_table()).empty
    assert repeat_rates(empty_table()).empty


def test_weighted_rows_give_each_pass_its_rate():
    table = from_records([{"repeat": 0, "category": UOF, "n": 3}, {"repeat": 0, "category": NOF, "n": 1},
                          {"repeat": 1, "category": UOF, "n": 1}, {"repeat": 1, "category": NOF, "n": 3}], **BASE)
    row = only(repeat_summary(table), category=UOF)
    # repeat 0: 3/4 = 0.75; repeat 1: 1/4 = 0.25; mean 0.5; sd = sqrt((0.0625 + 0.0625)/1) = 0.354
    assert (row["mean"], row["sd"]) == (pytest.approx(0.5), pytest.approx(math.sqrt(0.125)))
    assert row["n_repeats"] == 2  # passes, not answers
