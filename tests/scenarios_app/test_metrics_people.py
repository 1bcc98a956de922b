"""A panel of people's rates (metrics.people): normalised over scenarios as a model's, the
interval clustered by respondent and scenario; hand-checked, and properties for any input."""

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scenarios_app.analysis.metrics.people import COLUMNS, people_rates

F, N = "Use of force", "No use of force"
SETS = {("Escalation", 2): [N, F]}
Z = 1.959963984540054


def _answers(rows):
    return pd.DataFrame([{"people": "People: P (n)", "respondent": r, "domain": "Escalation", "choice_count": 2,
                          "scenario": s, "category": c} for r, s, c in rows])


def test_rates_normalise_over_scenarios_and_the_interval_is_clustered_by_respondent():
    # s1: r1 F, r2 F, r3 N (2/3); s2: r1 F (1/1) -> rate of F = (2/3 + 1) / 2 = 5/6, not 3/4 (pooled)
    table = people_rates(_answers([("r1", "s1", F), ("r2", "s1", F), ("r3", "s1", N), ("r1", "s2", F)]), SETS)
    force = table[table["category"] == F].iloc[0]
    assert force["rate"] == pytest.approx(5 / 6)
    assert (force["n_scenarios"], force["n_respondents"], force["n_answers"]) == (2, 3, 4)
    assert table[table["category"] == N].iloc[0]["rate"] == pytest.approx(1 / 6)


def test_people_who_answer_alike_across_scenarios_widen_the_interval():
    # r1, r2 F and r3 N in each of s1-s3: rate 2/3, two-way SE 2/9 (tests/analysis_app/test_stats_two_way.py);
    # answers taken as independent the SE would be sqrt(2/81) = 0.157 and ci_low 0.359, not 0.231
    rows = [(r, s, F if r != "r3" else N) for s in ("s1", "s2", "s3") for r in ("r1", "r2", "r3")]
    force = people_rates(_answers(rows), SETS).set_index("category").loc[F]
    assert force["se_clustered"] == pytest.approx(2 / 9)
    assert (force["ci_low"], force["ci_high"]) == (pytest.approx(2 / 3 - Z * 2 / 9), 1.0)


def test_a_category_nobody_chose_is_zero_and_no_answers_is_an_empty_table():
    table = people_rates(_answers([("r1", "s1", F)]), SETS)
    assert table.set_index("category").loc[N, "rate"] == 0.0
    assert list(people_rates(pd.DataFrame(), SETS).columns) == COLUMNS


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 3), st.booleans()), min_size=1, max_size=40))
def test_rates_sum_to_one_and_lie_inside_their_interval(rows):
    table = people_rates(_answers([(f"r{r}", f"s{s}", F if c else N) for r, s, c in rows]), SETS)
    assert table["rate"].sum() == pytest.approx(1.0)
    assert ((table["ci_low"] <= table["rate"] + 1e-12) & (table["rate"] <= table["ci_high"] + 1e-12)).all()
    assert ((table["ci_low"] >= 0) & (table["ci_high"] <= 1)).all()
