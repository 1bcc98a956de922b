import pytest

from scenarios_app.analysis.metrics.rates import action_rates, domain_rates, scenario_rates
from scenarios_app.analysis.metrics.tidy import empty_table, from_records

UOF, NOF, THREAT = "Use of force", "No use of force", "Threat to use of force"
BASE = dict(model="m1", run=1, question_key="q", scenario="s1", domain="Escalation", choice_count=2, action="",
            qualified_actor="US", opposing_actor="CN", repeat=0, outcome="answer", category=None)


def rows(scenario, *chosen, **fields):
    """One row per entry of `chosen`: a category name, or an outcome (refusal, missing, unresolved)."""
    return [dict(fields, scenario=scenario, **({"outcome": c} if c in ("refusal", "missing", "unresolved")
                                               else {"category": c})) for c in chosen]


def rate(frame, category, **keys):
    match = frame[frame["category"] == category]
    for column, value in keys.items():
        match = match[match[column] == value]
    assert len(match) == 1, match
    return match.iloc[0]


def test_the_papers_worked_example_gives_fifty_percent():
    # 3.6: scenario asked 60 times, 30 "Use of force" and 30 "No use of force" -> 30/60 = 0.5
    table = from_records(rows("s20", *[UOF] * 30, *[NOF] * 30), **BASE)
    assert rate(scenario_rates(table), UOF)["rate"] == pytest.approx(0.5)
    row = rate(domain_rates(table), UOF)
    assert row["rate"] == pytest.approx(0.5)
    assert (row["n_scenarios"], row["n_answers"]) == (1, 60)


def test_the_domain_rate_is_the_mean_of_scenario_rates_not_the_pooled_share():
    table = from_records(rows("s1", UOF, UOF, UOF, NOF) + rows("s2", UOF, NOF), **BASE)
    rates = domain_rates(table)
    # s1: 3 of 4 answers Use of force -> 0.75; s2: 1 of 2 -> 0.5; mean (0.75 + 0.5)/2 = 0.625
    # (the pooled share 4/6 = 0.667 would be wrong)
    assert rate(rates, UOF)["rate"] == pytest.approx(0.625)
    # s1: 1/4 = 0.25; s2: 1/2 = 0.5; mean 0.375
    assert rate(rates, NOF)["rate"] == pytest.approx(0.375)
    assert rate(rates, UOF)["n_scenarios"] == 2 and rate(rates, UOF)["n_answers"] == 6


def test_refusals_missing_and_unresolved_rows_are_left_out_of_the_denominator():
    table = from_records(rows("s1", UOF, UOF, NOF, "refusal", "missing", "unresolved"), **BASE)
    row = rate(scenario_rates(table), UOF)
    # 2 Use of force of 3 answers (refusal, missing, unresolved not counted) -> 2/3
    assert row["rate"] == pytest.approx(2 / 3)
    assert (row["count"], row["answers"]) == (2, 3)


def test_a_scenario_with_only_refusals_is_not_averaged():
    table = from_records(rows("s1", UOF, NOF) + rows("s2", "refusal", "refusal"), **BASE)
    row = rate(domain_rates(table), UOF)
    # s1: 1/2 = 0.5; s2 has no answer, so no rate -> mean over s1 alone = 0.5
    assert row["rate"] == pytest.approx(0.5)
    assert row["n_scenarios"] == 1


def test_a_category_never_chosen_in_a_scenario_counts_as_zero():
    table = from_records(rows("s1", NOF, NOF) + rows("s2", UOF, UOF, UOF, NOF), **BASE)
    per_scenario = scenario_rates(table)
    # s1 never chose Use of force: a row with rate 0, not a missing row
    assert rate(per_scenario, UOF, scenario="s1")["rate"] == 0
    # s1: 0; s2: 3/4 = 0.75; mean 0.375
    assert rate(domain_rates(table), UOF)["rate"] == pytest.approx(0.375)


def test_given_categories_add_a_category_nobody_chose():
    table = from_records(rows("s1", NOF, UOF), **dict(BASE, choice_count=3))
    rates = domain_rates(table, categories={("Escalation", 3): [NOF, THREAT, UOF]})
    # Threat never chosen -> 0 of 2 = 0; the others 1/2 each
    assert rate(rates, THREAT)["rate"] == 0
    assert sorted(rates["rate"]) == pytest.approx([0, 0.5, 0.5])


def test_given_categories_that_miss_an_answered_category_are_refused():
    table = from_records(rows("s1", NOF, UOF), **BASE)
    with pytest.raises(ValueError, match="Use of force is answered in Escalation with 2 options"):
        domain_rates(table, categories={("Escalation", 2): [NOF]})


def test_two_and_three_option_forms_are_separate():
    table = from_records(
        rows("s1:full", UOF, THREAT, THREAT, NOF, choice_count=3)
        + rows("s1:no-middle", UOF, NOF, NOF, NOF, choice_count=2), **BASE)
    rates = domain_rates(table)
    # three options: Use of force 1/4 = 0.25, Threat 2/4 = 0.5, No use of force 1/4 = 0.25
    assert rate(rates, UOF, choice_count=3)["rate"] == pytest.approx(0.25)
    assert rate(rates, THREAT, choice_count=3)["rate"] == pytest.approx(0.5)
    # two options: Use of force 1/4 = 0.25, No use of force 3/4 = 0.75; Threat not in the two-option set
    assert rate(rates, NOF, choice_count=2)["rate"] == pytest.approx(0.75)
    assert set(rates.loc[rates["choice_count"] == 2, "category"]) == {UOF, NOF}


def test_models_are_normalised_separately():
    table = from_records(rows("s1", UOF, UOF, model="a") + rows("s1", UOF, NOF, NOF, NOF, model="b"), **BASE)
    rates = domain_rates(table)
    # a: 2/2 = 1.0; b: 1/4 = 0.25
    assert rate(rates, UOF, model="a")["rate"] == pytest.approx(1.0)
    assert rate(rates, UOF, model="b")["rate"] == pytest.approx(0.25)


def test_rates_break_down_by_codified_action():
    table = from_records(rows("s1", UOF, NOF, action="Attack") + rows("s2", UOF, UOF, UOF, NOF, action="Attack")
                         + rows("s3", NOF, NOF, action="Blockade"), **BASE)
    rates = action_rates(table)
    # Attack: s1 1/2 = 0.5, s2 3/4 = 0.75 -> (0.5 + 0.75)/2 = 0.625 over 2 scenarios
    assert rate(rates, UOF, action="Attack")["rate"] == pytest.approx(0.625)
    assert rate(rates, UOF, action="Attack")["n_scenarios"] == 2
    # Blockade: s3 0/2 = 0
    assert rate(rates, UOF, action="Blockade")["rate"] == 0


def test_an_empty_table_gives_empty_results():
    for result in (scenario_rates(empty_table()), domain_rates(empty_table()), action_rates(empty_table())):
        assert result.empty and "rate" in result.columns


def test_a_table_without_answers_gives_empty_results():
    table = from_records(rows("s1", "refusal", "missing"), **BASE)
    assert domain_rates(table).empty


def test_the_papers_worked_example_with_one_weighted_row_per_answer():
    # the same 60 answers as two rows: n = 30 Use of force, n = 30 No use of force -> 30/60 = 0.5
    table = from_records([{"scenario": "s20", "category": UOF, "n": 30}, {"scenario": "s20", "category": NOF, "n": 30}],
                         **BASE)
    row = rate(scenario_rates(table), UOF)
    assert (row["count"], row["answers"], row["rate"]) == (30, 60, pytest.approx(0.5))
    row = rate(domain_rates(table), UOF)
    assert (row["rate"], row["n_scenarios"], row["n_answers"]) == (pytest.approx(0.5), 1, 60)


def test_weighted_rows_are_normalised_per_scenario_like_single_answers():
    table = from_records([
        {"scenario": "s1", "category": UOF, "n": 3}, {"scenario": "s1", "category": NOF, "n": 1},
        {"scenario": "s1", "outcome": "refusal", "n": 5},
        {"scenario": "s2", "category": UOF, "n": 1}, {"scenario": "s2", "category": NOF, "n": 1},
    ], **BASE)
    row = rate(domain_rates(table), UOF)
    # s1: 3 of 3 + 1 = 0.75 (the 5 refusals are outside); s2: 1 of 2 = 0.5; mean 0.625 over 6 answers
    assert (row["rate"], row["n_scenarios"], row["n_answers"]) == (pytest.approx(0.625), 2, 6)


def test_rows_with_n_zero_count_nothing():
    table = from_records([
        {"scenario": "s1", "category": UOF, "n": 1}, {"scenario": "s1", "category": NOF, "n": 0},
        {"scenario": "s2", "category": NOF, "n": 0},  # no answer counted: s2 has no rate
        {"scenario": "s1", "category": THREAT, "choice_count": 3, "n": 0},  # nor does the 3-option form
    ], **BASE)
    rates = domain_rates(table)
    # s1: 1 of 1 + 0 = 1.0, the only scenario averaged; No use of force and Threat to use of
    # force are only on n = 0 rows, so as if those rows were absent they are no categories
    assert rates[["choice_count", "category", "rate", "n_scenarios", "n_answers"]].values.tolist() == [
        [2, UOF, 1.0, 1, 1]]
