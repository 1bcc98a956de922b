"""Position bias (scenarios_app/analysis/metrics/position.py) on small tables worked by hand."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scenarios_app.analysis.metrics import position

F, N = "Use of force", "No use of force"


def rows(model, scenario, shown, domain="Escalation"):
    """`shown`: [(order, chosen canonical option, n)]."""
    return [{"model": model, "domain": domain, "choice_count": len(order), "scenario": scenario,
             "order": tuple(order), "chosen": chosen, "n": n} for order, chosen, n in shown]


# s1, balanced: [0,1] twice, [1,0] twice; the model always answers A (canonical 0 under
# [0,1], 1 under [1,0]). s2: [0,1] once, [1,0] once, option 0 both times (content, not position).
BIASED = pd.DataFrame(rows("m", "s1", [((0, 1), 0, 2), ((1, 0), 1, 2)])
                      + rows("m", "s2", [((0, 1), 0, 1), ((1, 0), 0, 1)]))


def test_observed_and_expected_shares_by_hand():
    table = position.position_shares(BIASED, permutations=200, seed=1)
    a, b = table.iloc[0], table.iloc[1]
    # observed: s1's 4 answers at A, s2's at A and B -> A 5, B 1 of 6
    assert (a["position"], a["observed"], b["observed"], a["answers"]) == ("A", 5, 1, 6)
    # expected: s1 q = (1/2, 1/2): A gets 2 x q(0) + 2 x q(1) = 2; s2 q = (1, 0): A gets q(0) + q(1) = 1 -> 3 and 3
    assert a["expected"] == pytest.approx(3.0) and b["expected"] == pytest.approx(3.0)
    assert a["observed_share"] == pytest.approx(5 / 6) and a["expected_share"] == pytest.approx(0.5)
    assert a["difference"] == pytest.approx(100 * (5 - 3) / 6)  # 33.3 points
    # chi-square: (5 - 3)^2 / 3 + (1 - 3)^2 / 3 = 8/3
    assert a["chi_square"] == pytest.approx(8 / 3)
    assert (a["scenarios"], a["scenarios_varied"]) == (2, 2)


def test_the_permutation_p_value_matches_the_exact_one():
    # s1: the two [0,1] orders go to 2 of the 4 answers (6 ways, equally likely). To both
    # option-0 answers or both option-1 answers (2 ways): A 4 (or 0) + s2's 1 -> chi-square >= 8/3;
    # the other 4 ways: A 2 + 1 = 3 -> chi-square 0. s2 (both chose option 0) gives A once whatever
    # the orders. Exact p = 2/6 = 1/3.
    table = position.position_shares(BIASED, permutations=20_000, seed=3)
    p = table["p_value"].iloc[0]
    assert p == pytest.approx(1 / 3, abs=0.015)
    assert table["p_error"].iloc[0] == pytest.approx(np.sqrt(p * (1 - p) / 20_000))


def test_an_unbalanced_scenario_and_its_p_value():
    # [0,1] three times, [1,0] once, always A: chosen 0, 0, 0, 1. q = (3/4, 1/4).
    # expected A = 3 x 3/4 + 1 x 1/4 = 2.5, B = 3 x 1/4 + 3/4 = 1.5; observed 4 and 0
    # chi-square = 1.5^2 / 2.5 + 1.5^2 / 1.5 = 0.9 + 1.5 = 2.4
    df = pd.DataFrame(rows("m", "s3", [((0, 1), 0, 3), ((1, 0), 1, 1)]))
    table = position.position_shares(df, permutations=20_000, seed=5)
    assert table["expected"].tolist() == pytest.approx([2.5, 1.5])
    assert table["chi_square"].iloc[0] == pytest.approx(2.4)
    # the [1,0] order lands on the option-1 answer with probability 1/4 (chi-square 2.4), else on an
    # option-0 answer: A 2, B 2, chi-square 0.5^2/2.5 + 0.5^2/1.5 = 0.267 < 2.4. Exact p = 1/4.
    assert table["p_value"].iloc[0] == pytest.approx(0.25, abs=0.015)


def test_one_order_per_scenario_gives_expected_equal_to_observed_and_no_test():
    df = pd.DataFrame(rows("m", "s1", [((0, 1, 2), 0, 3), ((0, 1, 2), 2, 1)]) + rows("m", "s2", [((0, 1, 2), 1, 2)]))
    table = position.position_shares(df, permutations=100)
    assert table["observed"].tolist() == [3, 2, 1]
    assert table["expected"].tolist() == pytest.approx([3, 2, 1])
    assert table["p_value"].isna().all() and (table["permutations"] == 0).all()
    assert not position.any_varied(df) and position.any_varied(BIASED)


def test_rates_with_and_without_the_position_effect():
    df = pd.DataFrame(rows("m", "s3", [((0, 1), 0, 3), ((1, 0), 1, 1)])
                      + rows("m", "s1", [((0, 1), 0, 2), ((1, 0), 1, 2)]))
    categories = {"s3": [F, N], "s1": [F, N]}
    table = position.balanced_rates(df, categories).set_index("category")
    # s3: observed F 3/4. Balanced: F at A shown 3, chosen 3 -> 1; F at B shown 1, chosen 0 -> 0: mean 1/2;
    # N at A shown 1 chosen 1 -> 1, at B shown 3 chosen 0 -> 0: mean 1/2; normalised 1/2, 1/2.
    # s1 (balanced, 2 per cell): observed F 2/4 = 1/2, balanced (2/2 + 0/2)/2 = 1/2: the same.
    # mean over the two scenarios: observed F (3/4 + 1/2)/2 = 0.625, balanced (1/2 + 1/2)/2 = 0.5
    assert table.loc[F, "rate_observed"] == pytest.approx(0.625)
    assert table.loc[F, "rate_balanced"] == pytest.approx(0.5)
    assert table.loc[F, "difference"] == pytest.approx(-12.5)
    assert table.loc[N, "rate_balanced"] == pytest.approx(0.5)
    assert (table.loc[F, "n_scenarios"], table.loc[F, "scenarios_adjusted"]) == (2, 2)


def test_a_scenario_not_shown_at_every_position_keeps_its_observed_rate():
    df = pd.DataFrame(rows("m", "s", [((0, 1, 2), 0, 2), ((1, 2, 0), 1, 1)]))  # option 0 never at B
    table = position.balanced_rates(df, {"s": ["a", "b", "c"]}, {("Escalation", 3): ["a", "b", "c", "d"]})
    rates = table.set_index("category")
    assert rates.loc["a", "rate_balanced"] == pytest.approx(2 / 3) == rates.loc["a", "rate_observed"]
    assert rates.loc["d", "rate_observed"] == 0 and rates.loc["a", "scenarios_adjusted"] == 0


def test_the_balanced_design_makes_the_expected_share_uniform():
    # 3 options, the three rotations twice each; content preference only, no position effect
    orders = [(0, 1, 2), (1, 2, 0), (2, 0, 1)] * 2
    df = pd.DataFrame(rows("m", "s", [(order, 2, 1) for order in orders[:5]] + [(orders[5], 0, 1)]))
    table = position.position_shares(df, permutations=50)
    assert table["expected_share"].tolist() == pytest.approx([1 / 3] * 3)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.permutations([0, 1, 2]), st.integers(0, 2), st.integers(1, 4), st.sampled_from("st")),
                min_size=1, max_size=12))
def test_expected_counts_add_up_to_the_answers_and_rates_to_one(answers):
    df = pd.DataFrame([{"model": "m", "domain": "d", "choice_count": 3, "scenario": s, "order": tuple(order),
                        "chosen": chosen, "n": n} for order, chosen, n, s in answers])
    table = position.position_shares(df, permutations=20)
    assert table["expected"].sum() == pytest.approx(table["observed"].sum())
    assert 0 <= table["p_value"].fillna(1).iloc[0] <= 1
    rates = position.balanced_rates(df, {"s": ["x", "y", "z"], "t": ["x", "y", "z"]})
    for column in ("rate_observed", "rate_balanced"):
        assert rates.groupby("model")[column].sum().tolist() == pytest.approx([1.0])


def _simulated(rng, position_effect):
    """8 scenarios asked 6 times each in the three rotations of (0, 1, 2), twice each; the
    model prefers a random option per scenario (content), and with `position_effect` takes A."""
    records = []
    for s in range(8):
        preference = rng.dirichlet([1, 1, 1])
        for order in [(0, 1, 2), (1, 2, 0), (2, 0, 1)] * 2:
            chosen = order[0] if rng.random() < position_effect else int(rng.choice(3, p=preference))
            records.append({"model": "m", "domain": "d", "choice_count": 3, "scenario": f"s{s}", "order": order,
                            "chosen": chosen, "n": 1})
    return pd.DataFrame(records)


def test_the_test_holds_its_level_without_a_position_effect_and_finds_a_strong_one():
    rng = np.random.default_rng(29)
    null = [position.position_shares(_simulated(rng, 0.0), permutations=199, seed=i)["p_value"].iloc[0]
            for i in range(200)]
    # 200 draws: the share below 0.05 is 5% +- 1.5% (binomial sd); well inside 1-10%
    assert 0.01 <= np.mean(np.array(null) <= 0.05) <= 0.10
    biased = [position.position_shares(_simulated(rng, 0.5), permutations=199, seed=i)["p_value"].iloc[0]
              for i in range(50)]
    assert np.mean(np.array(biased) <= 0.05) >= 0.9
