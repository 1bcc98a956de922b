import pytest

from scenarios_app.analysis.metrics.robustness import focus_complete, focus_complete_scenarios, robustness_rates
from scenarios_app.analysis.metrics.tidy import empty_table, from_records

UOF, NOF = "Use of force", "No use of force"
FIVE = ["US", "GB", "CN", "RU", "IN"]
BASE = dict(model="m1", run=1, question_key="q", scenario="s1", domain="Escalation", choice_count=2, action="",
            qualified_actor="US", opposing_actor="MX", repeat=0, outcome="answer", category=None)


def asked(scenario, actors, category, **fields):
    return [dict(fields, scenario=scenario, qualified_actor=actor, category=category) for actor in actors]


TABLE = from_records(
    asked("s1", FIVE + ["DE"], NOF)                      # all five (and DE): complete
    + asked("s2", ["US", "GB", "CN", "RU"], UOF)         # no IN: incomplete
    + asked("s3", ["US", "GB", "CN", "RU"], UOF)
    + [{"scenario": "s3", "qualified_actor": "IN", "outcome": "missing"}],  # IN asked, call failed: complete
    **BASE,
)


def test_a_scenario_is_focus_complete_when_all_five_were_asked_whatever_the_outcome():
    assert focus_complete_scenarios(TABLE) == ["s1", "s3"]
    assert focus_complete_scenarios(TABLE, actors=["US", "GB"]) == ["s1", "s2", "s3"]


def test_the_restricted_table_keeps_every_row_of_those_scenarios():
    subset = focus_complete(TABLE)
    assert sorted(subset["scenario"].unique()) == ["s1", "s3"]
    assert "DE" in set(subset["qualified_actor"])  # other actors stay
    assert len(subset) == 6 + 5  # s1: 6 rows; s3: 4 answers + 1 missing


def test_robustness_rates_put_all_and_focus_complete_side_by_side():
    result = robustness_rates(TABLE)
    uof = result[result["category"] == UOF].set_index("subset")
    # all: s1 0/6 = 0, s2 4/4 = 1, s3 4/4 = 1 -> (0 + 1 + 1)/3 = 0.667 over 3 scenarios
    assert uof.loc["all", "rate"] == pytest.approx(2 / 3)
    assert uof.loc["all", "n_scenarios"] == 3
    # focus-complete: s1 0, s3 1 -> 0.5 over 2 scenarios
    assert uof.loc["focus-complete", "rate"] == pytest.approx(0.5)
    assert uof.loc["focus-complete", "n_scenarios"] == 2
    assert list(result.columns[:1]) == ["subset"]


def test_category_sets_come_from_the_full_table():
    table = from_records(asked("s1", FIVE, NOF) + asked("s2", ["US"], UOF), **BASE)
    restricted = robustness_rates(table).query("subset == 'focus-complete'")
    # Use of force is only ever chosen in s2, which is dropped; it still shows as 0 (s1: 0 of 5)
    assert restricted.set_index("category").loc[UOF, "rate"] == 0


def test_per_country_rates_on_both_subsets():
    result = robustness_rates(TABLE, per_country=True)
    us = result[(result["qualified_actor"] == "US") & (result["category"] == UOF)].set_index("subset")
    # US: all s1 0, s2 1, s3 1 -> 2/3; focus-complete s1 0, s3 1 -> 0.5
    assert us.loc["all", "rate"] == pytest.approx(2 / 3)
    assert us.loc["focus-complete", "rate"] == pytest.approx(0.5)
    assert "DE" not in set(result["qualified_actor"])


def test_an_empty_table_gives_empty_results():
    assert focus_complete_scenarios(empty_table()) == []
    assert focus_complete(empty_table()).empty
    assert robustness_rates(empty_table()).empty


def test_a_row_with_n_zero_still_marks_the_actor_as_asked():
    table = from_records(asked("s1", FIVE, NOF, n=2) + asked("s2", ["US", "GB", "CN", "RU"], UOF, n=2)
                         + asked("s2", ["IN"], UOF, n=0), **BASE)
    # s2 was asked for IN, with nothing counted back: still focus-complete
    assert focus_complete_scenarios(table) == ["s1", "s2"]
    rates = robustness_rates(table).query("subset == 'focus-complete'").set_index("category")
    # s1: 0 of 10; s2: 8 of 8 (IN's n = 0 row adds no answer) -> (0 + 1)/2 = 0.5 over 18 answers
    assert (rates.loc[UOF, "rate"], rates.loc[UOF, "n_answers"]) == (pytest.approx(0.5), 18)
