import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scenarios_app.analysis.metrics.bootstrap import scenario_bootstrap
from scenarios_app.analysis.metrics.countries import country_rates, dyad_rates
from scenarios_app.analysis.metrics.differences import model_differences
from scenarios_app.analysis.metrics.entropy import domain_entropy, pass_entropy, scenario_entropy
from scenarios_app.analysis.metrics.rates import action_rates, domain_rates, scenario_rates
from scenarios_app.analysis.metrics.refusals import outcome_summary, refusals_by_actor, refusals_by_domain, refusals_by_model
from scenarios_app.analysis.metrics.repeats import repeat_rates, repeat_summary
from scenarios_app.analysis.metrics.report import preference_table
from scenarios_app.analysis.metrics.robustness import focus_complete_scenarios, robustness_rates
from scenarios_app.analysis.metrics.tidy import COLUMNS, category_sets, empty_table, from_records, pooled, validate, weights

BASE = dict(model="m1", run=1, question_key="q", scenario="s1", domain="Escalation", choice_count=2, action="",
            qualified_actor="US", opposing_actor="CN", repeat=0, outcome="answer", category="Use of force")


def test_an_empty_table_is_valid():
    assert list(validate(empty_table()).columns) == list(COLUMNS)


def test_it_names_the_missing_columns():
    table = from_records([{}], **BASE).drop(columns=["scenario", "repeat"])
    with pytest.raises(ValueError, match="missing column\\(s\\) scenario, repeat"):
        validate(table)


def test_it_names_a_bad_outcome_and_its_row():
    with pytest.raises(ValueError, match="outcome has value\\(s\\) 'refused' \\(first at row 1\\)"):
        from_records([{}, {"outcome": "refused", "category": None}], **BASE)


def test_an_answer_needs_a_category():
    with pytest.raises(ValueError, match="row 0 has outcome 'answer' but no category"):
        from_records([{"category": None}], **BASE)


def test_refusals_need_no_category():
    table = from_records([{"outcome": "refusal", "category": None}], **BASE)
    assert table["outcome"].tolist() == ["refusal"]


def test_category_sets_are_inferred_per_domain_and_choice_count():
    table = from_records([{}, {"category": "No use of force"},
                          {"choice_count": 3, "category": "Threat to use of force"},
                          {"domain": "Cooperation", "outcome": "refusal", "category": None}], **BASE)
    assert category_sets(table) == {
        ("Cooperation", 2): [],  # only a refusal: known, but no category to rate
        ("Escalation", 2): ["No use of force", "Use of force"],
        ("Escalation", 3): ["Threat to use of force"],
    }


def test_n_is_optional_and_a_row_with_n_zero_is_valid():
    table = from_records([{"n": 3}, {"n": 0}], **BASE)
    assert table["n"].tolist() == [3, 0]
    assert weights(from_records([{}, {}], **BASE)).tolist() == [1, 1]


def test_question_key_may_be_left_out():
    # no metric reads it, and a table collapsed with GROUP BY has no single question_key per row
    table = from_records([{"n": 2}], **BASE).drop(columns=["question_key"])
    assert validate(table) is table


@pytest.mark.parametrize("n, message", [
    ([1, -2], "row 1 has n = -2"),
    ([1.0, 2.5], "row 1 has n = 2.5"),
    ([1, None], "row 1 has n = nan"),
    (["1", "x"], "row 1 has n = 'x'"),
    ([1.0, 2.0], "column n has dtype float64"),
    ([True, False], "column n has dtype bool"),
])
def test_it_names_a_negative_or_fractional_n_and_its_row(n, message):
    table = pd.DataFrame([BASE, BASE]).assign(n=n)
    with pytest.raises(ValueError, match=re.escape(message) + ".*a whole number, 0 or more"):
        validate(table)


# The weight column n must be invisible in the results: a table with one row per answer
# and the same table collapsed to one row per distinct answer with its count in n must
# give identical frames from every public function.

UOF, NOF, THREAT = "Use of force", "No use of force", "Threat to use of force"
FIVE = ["US", "GB", "CN", "RU", "IN"]
SCENARIOS = {  # scenario: (domain, choice_count, action, categories, qualified actors asked)
    "s1": ("Escalation", 2, "Attack", [NOF, UOF], FIVE + ["DE"]),
    "s2": ("Escalation", 2, "Blockade", [NOF, UOF], ["US", "GB", "CN", "RU"]),  # no IN: not focus-complete
    "s3": ("Escalation", 3, "Attack", [NOF, THREAT, UOF], FIVE),
    "c1": ("Cooperation", 2, "", ["Cooperative", "Non-cooperative"], ["US", "CN", "DE"]),
    "a1": ("Alliance Dynamics", 2, "", ["Balancing", "Bandwagoning"], FIVE),
    "a2": ("Alliance Dynamics", 2, "", ["Balancing", "Buck passing"], ["US", "RU"]),
}
PASSES = {"m-a": [(1, 0), (1, 1)], "m-b": [(1, 0), (1, 1)], "m-c": [(1, 0), (2, 0), (2, 1)]}  # (run, repeat)


def expanded_table(seed, rows=500):
    """One row per answer: random models, passes, scenarios, actors, outcomes and choices."""
    generator = np.random.default_rng(seed)
    lean = {(model, scenario): generator.dirichlet(np.ones(len(SCENARIOS[scenario][3])))
            for model in PASSES for scenario in SCENARIOS}
    records = []
    for i in range(rows):
        model = str(generator.choice(list(PASSES)))
        run, repeat = PASSES[model][generator.integers(len(PASSES[model]))]
        scenario = str(generator.choice(list(SCENARIOS)))
        domain, choice_count, action, categories, actors = SCENARIOS[scenario]
        actor = str(generator.choice(actors))
        outcome = str(generator.choice(["answer", "refusal", "missing", "unresolved"], p=[0.8, 0.1, 0.05, 0.05]))
        category = str(generator.choice(categories, p=lean[model, scenario])) if outcome == "answer" else None
        records.append(dict(model=model, run=run, question_key=f"q{i}", scenario=scenario, domain=domain,
                            choice_count=choice_count, action=action, qualified_actor=actor,
                            opposing_actor="MX" if actor in ("US", "CN") else "PK", repeat=repeat,
                            outcome=outcome, category=category))
    return from_records(records)


def collapsed_table(expanded, seed):
    """The GROUP BY form: one row per distinct answer with its count in n, without question_key.

    Nothing promises the Django side a unique or ordered collapse, so some counts are
    split over two rows and the rows are shuffled. Rows with n = 0 are added that would
    change results if they counted: a model and a category that only have n = 0 rows.
    (They repeat a scenario and qualified actor of a real row, so the focus-complete
    scenarios, where any row counts as asked, stay the same.)
    """
    generator = np.random.default_rng(seed)
    keys = [column for column in COLUMNS if column != "question_key"]
    collapsed = expanded.groupby(keys, dropna=False).size().rename("n").reset_index()
    split = collapsed[collapsed["n"] >= 2].sample(frac=0.3, random_state=seed)
    first = generator.integers(1, split["n"])
    collapsed.loc[split.index, "n"] = first
    ghost_model = collapsed.sample(n=10, random_state=seed).assign(n=0, model="m-ghost")
    answered = collapsed[collapsed["outcome"] == "answer"]
    ghost_category = answered.sample(n=5, random_state=seed).assign(n=0, category="Ghost category")
    extra = pd.concat([split.assign(n=split["n"] - first), ghost_model, ghost_category])
    return validate(pd.concat([collapsed, extra]).sample(frac=1, random_state=seed, ignore_index=True))


PUBLIC_FUNCTIONS = {
    "scenario_rates": scenario_rates,
    "scenario_rates by actor": lambda df: scenario_rates(df, by=["qualified_actor"]),
    "domain_rates": domain_rates,
    "action_rates": action_rates,
    "scenario_bootstrap": lambda df: scenario_bootstrap(scenario_rates(df), iterations=200, seed=1),
    "preference_table": lambda df: preference_table(df, iterations=200, seed=1),
    "repeat_rates": repeat_rates,
    "repeat_summary": repeat_summary,
    "outcome_summary": lambda df: outcome_summary(df, ["model", "scenario", "outcome"]),
    "refusals_by_model": refusals_by_model,
    "refusals_by_domain": refusals_by_domain,
    "refusals_by_actor": refusals_by_actor,
    "pass_entropy": pass_entropy,
    "scenario_entropy": scenario_entropy,
    "domain_entropy": domain_entropy,
    "country_rates": country_rates,
    "country_rates all actors": lambda df: country_rates(df, actors=None),
    "dyad_rates": lambda df: dyad_rates(df, UOF),
    "model_differences": lambda df: model_differences(df, iterations=200, seed=1),
    "robustness_rates": robustness_rates,
    "robustness_rates per country": lambda df: robustness_rates(df, per_country=True),
    "focus_complete_scenarios": lambda df: pd.DataFrame({"scenario": focus_complete_scenarios(df)}),
}


def canonical(frame):
    """Rows in one order whatever order the function returned them in."""
    return frame.sort_values(list(frame.columns), ignore_index=True)


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_every_function_gives_the_same_result_on_a_table_and_its_collapsed_form(seed):
    expanded = expanded_table(seed)
    collapsed = collapsed_table(expanded, seed)
    assert len(collapsed) < len(expanded) and (collapsed["n"] >= 2).sum() > 50  # the collapse really merges rows
    assert focus_complete_scenarios(expanded) == ["a1", "s1", "s3"]  # the robustness subset is not trivial
    for name, function in PUBLIC_FUNCTIONS.items():
        expected, result = canonical(function(expanded)), canonical(function(collapsed))
        assert not expected.empty, name
        pd.testing.assert_frame_equal(result, expected, check_exact=True, obj=name)


def test_pooling_runs_and_repeats_sums_identical_rows():
    table = from_records([{"run": 1, "repeat": 0, "n": 2}, {"run": 2, "repeat": 1, "n": 3},
                          {"run": 1, "repeat": 0, "category": "No use of force", "n": 1}], **BASE)
    out = pooled(table)
    # Use of force: 2 (run 1, repeat 0) + 3 (run 2, repeat 1) = 5 in one row; No use of force 1.
    assert sorted(zip(out["category"], out["n"], out["run"], out["repeat"])) == [
        ("No use of force", 1, 0, 0), ("Use of force", 5, 0, 0)]
    assert list(out.columns) == list(table.columns)

_rows = st.lists(st.fixed_dictionaries({
    "model": st.sampled_from(["m1", "m2"]), "run": st.integers(1, 2), "repeat": st.integers(0, 2),
    "scenario": st.sampled_from(["s1", "s2", "s3"]), "qualified_actor": st.sampled_from(["US", "CN"]),
    "outcome": st.sampled_from(["answer", "answer", "refusal", "missing"]),
    "category": st.sampled_from(["Use of force", "No use of force"]), "n": st.integers(0, 4)}), min_size=1,
    max_size=40).map(lambda rows: [{**row, "category": row["category"] if row["outcome"] == "answer" else None}
                                   for row in rows])


@settings(max_examples=60, deadline=None)
@given(_rows)
def test_metrics_that_pool_repeats_give_the_same_tables_on_the_pooled_table(rows):
    table = from_records(rows, **{k: v for k, v in BASE.items() if k not in rows[0]})
    small = pooled(table)
    assert small["n"].sum() == table["n"].sum()

    def same(a, b):
        pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True), check_dtype=False)

    same(scenario_rates(small), scenario_rates(table))
    same(domain_rates(small), domain_rates(table))
    same(action_rates(small), action_rates(table))
    same(refusals_by_domain(small), refusals_by_domain(table))
    same(preference_table(small, iterations=50, seed=1), preference_table(table, iterations=50, seed=1))
    same(model_differences(small, iterations=50, seed=1), model_differences(table, iterations=50, seed=1))
