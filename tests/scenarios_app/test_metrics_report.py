import numpy as np
import pandas as pd
import pytest

from scenarios_app.analysis.metrics.report import COLUMNS, preference_table
from scenarios_app.analysis.metrics.tidy import empty_table, from_records

UOF, NOF, COOP, NONCOOP = "Use of force", "No use of force", "Cooperative", "Non-cooperative"
BASE = dict(model="m1", run=1, question_key="q", scenario="s1", domain="Escalation", choice_count=2, action="",
            qualified_actor="US", opposing_actor="CN", repeat=0, outcome="answer", category=None)


def rows(scenario, *chosen, **fields):
    return [dict(fields, scenario=scenario, **({"outcome": c} if c in ("refusal", "missing") else {"category": c}))
            for c in chosen]


TABLE = from_records(
    rows("s1", UOF, UOF, UOF, NOF, "refusal") + rows("s2", UOF, NOF, "missing")
    + rows("c1", COOP, COOP, domain="Cooperation") + rows("c2", COOP, NONCOOP, "refusal", domain="Cooperation"),
    **BASE,
)


def only(frame, **keys):
    for column, value in keys.items():
        frame = frame[frame[column] == value]
    assert len(frame) == 1, frame
    return frame.iloc[0]


def test_the_preference_table_has_rates_intervals_and_refusal_rates():
    table = preference_table(TABLE, iterations=500, seed=0)
    assert list(table.columns) == COLUMNS
    uof = only(table, domain="Escalation", category=UOF)
    # s1: 3 of 4 answers = 0.75; s2: 1 of 2 = 0.5; mean 0.625
    assert uof["rate"] == pytest.approx(0.625)
    # resample means of {0.75, 0.5} are 0.5, 0.625 or 0.75 (chances 1/4, 1/2, 1/4): CI 0.5 to 0.75
    assert (uof["ci_low"], uof["ci_high"]) == (pytest.approx(0.5), pytest.approx(0.75))
    # 1 refusal of 6 answers + 1 refusal = 1/7; the missing row is outside the ratio
    assert uof["refusal_rate"] == pytest.approx(1 / 7)
    assert (uof["n_scenarios"], uof["iterations"]) == (2, 500)
    coop = only(table, domain="Cooperation", category=COOP)
    # c1: 2/2 = 1; c2: 1/2 = 0.5; mean 0.75; refusals 1 of 4 answers + 1 = 0.2
    assert (coop["rate"], coop["refusal_rate"]) == (pytest.approx(0.75), pytest.approx(0.2))
    assert len(table) == 4


def test_two_calls_with_the_same_seed_agree_exactly():
    generator = np.random.default_rng(1)
    records = [{"model": f"m{m}", "scenario": f"s{s}", "category": UOF if generator.random() < 0.3 else NOF}
               for m in range(3) for s in range(40) for _ in range(5)]
    table = from_records(records, **BASE)
    pd.testing.assert_frame_equal(preference_table(table, seed=3), preference_table(table, seed=3))
    assert not preference_table(table, seed=3).equals(preference_table(table, seed=4))


def test_an_empty_table_gives_an_empty_report():
    result = preference_table(empty_table())
    assert result.empty and list(result.columns) == COLUMNS


def test_the_preference_table_counts_weighted_rows():
    weighted = from_records([
        {"scenario": "s1", "category": UOF, "n": 3}, {"scenario": "s1", "category": NOF, "n": 1},
        {"scenario": "s1", "outcome": "refusal", "n": 1},
        {"scenario": "s2", "category": UOF, "n": 1}, {"scenario": "s2", "category": NOF, "n": 1},
        {"scenario": "s2", "outcome": "missing", "n": 1}, {"scenario": "s2", "outcome": "refusal", "n": 0},
    ], **BASE)
    uof = only(preference_table(weighted, iterations=500, seed=0), category=UOF)
    # the Escalation rows of TABLE with counts in n: s1 3/4 = 0.75, s2 1/2 = 0.5 -> 0.625;
    # refusals 1 of 6 answers + 1 = 1/7
    assert (uof["rate"], uof["refusal_rate"], uof["n_scenarios"]) == (pytest.approx(0.625), pytest.approx(1 / 7), 2)
    assert (uof["ci_low"], uof["ci_high"]) == (pytest.approx(0.5), pytest.approx(0.75))
