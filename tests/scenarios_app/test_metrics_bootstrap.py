import numpy as np
import pandas as pd
import pytest

from analysis_app.metrics.bootstrap import bootstrap_ci, group_rng, resample_means
from scenarios_app.analysis.metrics.bootstrap import scenario_bootstrap
from scenarios_app.analysis.metrics.rates import scenario_rates
from scenarios_app.analysis.metrics.tidy import empty_table, from_records

UOF, NOF = "Use of force", "No use of force"
BASE = dict(model="m1", run=1, question_key="q", scenario="s1", domain="Escalation", choice_count=2, action="",
            qualified_actor="US", opposing_actor="CN", repeat=0, outcome="answer", category=None)


def loop_bootstrap_ci(values, iterations, seed):
    """Reference: one resample at a time, the same draws as the vectorised version."""
    values = np.asarray(values, dtype=float)
    rng = np.random.default_rng(seed)
    index = rng.integers(0, len(values), size=(iterations, len(values)))
    means = []
    for i in range(iterations):
        total = 0.0
        for s in index[i]:
            total = total + values[s]
        means.append(total / len(values))
    means = np.array(means)
    return np.percentile(means, 2.5, axis=0), np.percentile(means, 97.5, axis=0)


@pytest.mark.parametrize("shape, seed", [((400,), 1), ((37, 3), 2), ((5, 2), 3), ((1, 4), 4), ((250, 1), 5)])
def test_the_vectorised_bootstrap_equals_the_loop(shape, seed):
    values = np.random.default_rng(100 + seed).random(shape)
    low, high = bootstrap_ci(values, iterations=500, seed=seed)
    loop_low, loop_high = loop_bootstrap_ci(values, iterations=500, seed=seed)
    np.testing.assert_array_equal(low, loop_low)
    np.testing.assert_array_equal(high, loop_high)


def test_scenarios_with_one_rate_give_a_collapsed_interval():
    # every resample of [0.25] * 40 has mean 0.25
    low, high = bootstrap_ci(np.full(40, 0.25), iterations=300, seed=0)
    assert (low, high) == (pytest.approx(0.25), pytest.approx(0.25))


def test_two_scenarios_zero_and_one_span_the_whole_range():
    # resample means are 0, 0.5 or 1 with chances 1/4, 1/2, 1/4; with 2,000 draws well
    # over 2.5% are 0 and over 2.5% are 1, so the percentiles are exactly 0 and 1
    low, high = bootstrap_ci(np.array([0.0, 1.0]), iterations=2000, seed=7)
    assert (low, high) == (0.0, 1.0)


def test_the_same_seed_gives_the_same_interval_and_another_seed_does_not():
    values = np.random.default_rng(0).random(50)
    assert bootstrap_ci(values, 1000, seed=11) == bootstrap_ci(values, 1000, seed=11)
    assert bootstrap_ci(values, 1000, seed=11) != bootstrap_ci(values, 1000, seed=12)


def test_resample_means_has_one_row_per_iteration():
    means = resample_means(np.ones((10, 3)), 123, np.random.default_rng(0))
    assert means.shape == (123, 3)


def table_of(models, scenarios=30):
    generator = np.random.default_rng(3)
    records = []
    for model in models:
        for s in range(scenarios):
            records += [{"model": model, "scenario": f"s{s}", "category": UOF if generator.random() < 0.4 else NOF}
                        for _ in range(4)]
    return from_records(records, **BASE)


def test_scenario_bootstrap_draws_each_model_from_its_own_seeded_stream():
    per_scenario = scenario_rates(table_of(["a", "b"]))
    result = scenario_bootstrap(per_scenario, iterations=400, seed=5)
    a = per_scenario[per_scenario["model"] == "a"].pivot(index="scenario", columns="category", values="rate")
    low, high = bootstrap_ci(a.to_numpy(), 400, group_rng(5, ("a", "Escalation", 2)))
    mine = result[result["model"] == "a"].set_index("category").loc[a.columns]
    np.testing.assert_array_equal(mine["ci_low"], low)
    np.testing.assert_array_equal(mine["ci_high"], high)
    assert set(result["iterations"]) == {400}


def test_adding_a_model_does_not_move_another_models_interval():
    alone = scenario_bootstrap(scenario_rates(table_of(["a"])), iterations=300, seed=1)
    together = scenario_bootstrap(scenario_rates(table_of(["a", "b"])), iterations=300, seed=1)
    pd.testing.assert_frame_equal(alone, together[together["model"] == "a"].reset_index(drop=True))


def test_the_interval_holds_the_rate_and_the_categories_are_resampled_together():
    per_scenario = scenario_rates(table_of(["a"], scenarios=60))
    result = scenario_bootstrap(per_scenario, iterations=1000, seed=0).set_index("category")
    means = per_scenario.groupby("category")["rate"].mean()
    assert (result["ci_low"] <= means).all() and (means <= result["ci_high"]).all()
    # the two categories' rates sum to 1 in every resample, so their intervals mirror each other
    assert result.loc[UOF, "ci_low"] == pytest.approx(1 - result.loc[NOF, "ci_high"])


def test_an_empty_table_gives_no_intervals():
    result = scenario_bootstrap(scenario_rates(empty_table()))
    assert result.empty and {"ci_low", "ci_high", "iterations"} <= set(result.columns)


@pytest.mark.parametrize("iterations", [1, 2, 7, 2000])
@pytest.mark.parametrize("shape", [(400,), (83, 3), (3, 5), (1, 2), (60, 1)])
def test_resample_means_add_the_draws_in_order_whatever_the_shape(shape, iterations):
    """Bit for bit the one-resample-at-a-time sum, for every number of iterations (a sum
    along the draws' own axis would be pairwise and differ in the last bits)."""
    values = np.random.default_rng(7).random(shape)
    means = resample_means(values, iterations, np.random.default_rng(8))
    index = np.random.default_rng(8).integers(0, shape[0], size=(iterations, shape[0]))
    expected = []
    for draws in index:
        total = 0.0
        for s in draws:
            total = total + values[s]
        expected.append(total / shape[0])
    np.testing.assert_array_equal(means, np.array(expected).reshape((iterations,) + shape[1:]))
