"""A panel of people's rates (metrics.people): normalised over scenarios as a model's, the
interval clustered by respondent and scenario; hand-checked, and properties for any input."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scenarios_app.analysis.metrics.people import COLUMNS, CONTRAST_COLUMNS, people_model_contrasts, people_rates

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


def test_rates_per_country_normalise_within_each_actor():
    # US: s1 r1 F, r2 N (1/2); s2 r1 F (1) -> (1/2 + 1) / 2 = 3/4.  RU: s1 r1 N -> 0.
    rows = [("r1", "s1", F, "US"), ("r2", "s1", N, "US"), ("r1", "s2", F, "US"), ("r1", "s1", N, "RU")]
    answers = pd.DataFrame([{"people": "People: P (2 respondents)", "respondent": r, "domain": "Escalation",
                             "choice_count": 2, "scenario": s, "category": c, "qualified_actor": a}
                            for r, s, c, a in rows])
    table = people_rates(answers, SETS, by=["qualified_actor"])
    assert list(table.columns[:5]) == ["people", "domain", "choice_count", "qualified_actor", "category"]
    table = table.set_index(["qualified_actor", "category"])
    assert table.loc[("US", F), "rate"] == pytest.approx(3 / 4)
    assert (table.loc[("US", F), "n_scenarios"], table.loc[("US", F), "n_respondents"]) == (2, 2)
    assert table.loc[("RU", F), "rate"] == 0.0 and table.loc[("RU", N), "rate"] == 1.0


def _model(rates):
    """A model's scenario rates (rates.scenario_rates' columns): {scenario: rate of F}."""
    return pd.DataFrame([{"model": "hawk", "domain": "Escalation", "choice_count": 2, "scenario": s,
                          "category": c, "rate": r if c == F else 1 - r}
                         for s, r in rates.items() for c in (N, F)])


def test_people_minus_a_model_on_the_scenarios_both_answered_by_hand():
    # People: s1 r1 F, r2 N; s2 r1 F, r2 F -> rate of F (1/2 + 1) / 2 = 3/4. hawk: s1 1, s2 0 -> 1/2;
    # s3 (hawk only) is not shared and left out. Difference 1/4 = 25 points; its SE clustered by respondent
    # and scenario sqrt(17)/8 (tests/analysis_app/test_stats_two_way.py, the same case) = 51.54 points,
    # interval 25 ± 1.96 · 51.54 = [-76.0, 126.0] cut at 100; p = 0.6276.
    answers = _answers([("r1", "s1", F), ("r2", "s1", N), ("r1", "s2", F), ("r2", "s2", F)])
    table = people_model_contrasts(answers, _model({"s1": 1.0, "s2": 0.0, "s3": 1.0}), SETS)
    assert list(table.columns) == CONTRAST_COLUMNS
    force = table.set_index("category").loc[F]
    assert (force["people"], force["model"]) == ("People: P (n)", "hawk")
    assert (force["people_rate"], force["model_rate"]) == (pytest.approx(3 / 4), pytest.approx(1 / 2))
    assert force["estimate"] == pytest.approx(25.0)
    assert force["se_clustered"] == pytest.approx(100 * np.sqrt(17) / 8)
    assert force["ci_low"] == pytest.approx(25 - Z * 100 * np.sqrt(17) / 8) and force["ci_high"] == 100.0
    assert force["p_value"] == pytest.approx(0.6276, abs=1e-4)
    assert (force["n_scenarios"], force["n_respondents"], force["n_answers"]) == (2, 2, 4)
    # In a two-option form the other category mirrors it: -25 points, the same SE and p.
    no_force = table.set_index("category").loc[N]
    assert no_force["estimate"] == pytest.approx(-25.0) and no_force["p_value"] == pytest.approx(force["p_value"])
    # Benjamini–Hochberg over the two equal p-values leaves them as they are.
    assert table["p_adjusted"].tolist() == pytest.approx([force["p_value"]] * 2)


def test_no_shared_scenario_no_contrast():
    answers = _answers([("r1", "s1", F)])
    assert people_model_contrasts(answers, _model({"s2": 1.0}), SETS).empty
    assert list(people_model_contrasts(pd.DataFrame(), _model({"s2": 1.0}), SETS).columns) == CONTRAST_COLUMNS


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.booleans()), min_size=1, max_size=25),
       st.dictionaries(st.integers(0, 4), st.sampled_from([0.0, 0.5, 1.0]), min_size=1, max_size=5))
def test_a_contrast_is_the_difference_of_the_two_rates_inside_its_interval(rows, model):
    answers = _answers([(f"r{r}", f"s{s}", F if c else N) for r, s, c in rows])
    table = people_model_contrasts(answers, _model({f"s{s}": rate for s, rate in model.items()}), SETS)
    shared = {f"s{s}" for _, s, _ in rows} & {f"s{s}" for s in model}
    assert len(table) == (2 if shared else 0)
    for row in table.itertuples():
        assert row.estimate == pytest.approx(100 * (row.people_rate - row.model_rate))
        assert row.ci_low - 1e-9 <= row.estimate <= row.ci_high + 1e-9
        assert -100 <= row.ci_low and row.ci_high <= 100 and row.n_scenarios == len(shared)
