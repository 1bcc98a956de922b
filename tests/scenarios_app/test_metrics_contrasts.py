"""CFPD's paired contrasts (scenarios_app.analysis.metrics.contrasts): actor contrasts,
model contrasts over shared questions, the flip view, adjustment across the family; and
when pairing narrows an interval (with the counterexample where it widens it)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis_app.metrics.clustered import clustered_se, unpaired_difference_ci
from scenarios_app.analysis.metrics.contrasts import (
    REPORT_COLUMNS, actor_contrasts, actor_flips, contrasts, flip_summary, model_contrasts, paired_figures)
from scenarios_app.analysis.metrics.tidy import empty_table, from_records

F, N = "Use of force", "No use of force"
BASE = dict(model="m", run=1, question_key="", scenario="s1", domain="Escalation", choice_count=2, action="",
            qualified_actor="US", opposing_actor="RU", repeat=0, outcome="answer", category=None)


def rows(scenario, actor, opponent, *chosen, **fields):
    return [dict(fields, scenario=scenario, qualified_actor=actor, opposing_actor=opponent, category=c)
            for c in chosen]


# One model, US and CN advised against RU in the same scenarios:
#   s1: US 3 force of 4 (0.75), CN 1 of 4 (0.25) -> d = 0.5
#   s2: US 2 of 2 (1.0),        CN 2 of 2 (1.0)  -> d = 0
#   s3: US 1 of 2 (0.5),        CN 0 of 2 (0.0)  -> d = 0.5
#   s4: US only -> not shared, not in the contrast
ACTORS = from_records(
    rows("s1", "US", "RU", F, F, F, N) + rows("s1", "CN", "RU", F, N, N, N)
    + rows("s2", "US", "RU", F, F) + rows("s2", "CN", "RU", F, F)
    + rows("s3", "US", "RU", F, N) + rows("s3", "CN", "RU", N, N)
    + rows("s4", "US", "RU", N),
    **BASE)


def only(frame, **keys):
    for column, value in keys.items():
        frame = frame[frame[column] == value]
    assert len(frame) == 1, frame
    return frame.iloc[0]


def test_an_actor_contrast_by_hand():
    table = actor_contrasts(ACTORS, actors=["US", "CN"], iterations=2000)
    force = only(table, category=F)
    assert (force["kind"], force["model"], force["left"], force["right"], force["n_scenarios"]) == \
        ("actor", "m", "US", "CN", 3)
    assert force["estimate"] == pytest.approx(100 / 3)  # (0.5 + 0 + 0.5) / 3 = 33.3 points
    # residuals 1/6, -1/3, 1/6: sqrt(1/36 + 4/36 + 1/36) / 3 = sqrt(1/6) / 3 = 0.136083 -> 13.6083 points
    assert force["se_clustered"] == pytest.approx(100 * np.sqrt(1 / 6) / 3)
    # non-zero d = [0.5, 0.5]: sums 1, 0, 0, -1, |sum| >= 1 twice of 4 patterns -> p = 0.5
    assert (force["p_value"], force["p_method"]) == (0.5, "exact sign-flip (4 patterns)")
    # resample means lie in {0, 1/6, 1/3, 1/2}: P(mean 0) = (1/3)^3 = 3.7 % > 2.5 %, so the low end is 0;
    # P(mean 1/2) = (2/3)^3 = 29.6 % > 2.5 %, so the high end is 50 points
    assert (force["ci_low"], force["ci_high"]) == (pytest.approx(0), pytest.approx(50))
    # two options: No use of force mirrors it
    assert only(table, category=N)["estimate"] == pytest.approx(-100 / 3)


def test_pairs_follow_the_order_of_the_actors_given():
    table = actor_contrasts(ACTORS, actors=["CN", "US"])
    assert only(table, category=F)[["left", "right"]].tolist() == ["CN", "US"]
    assert only(table, category=F)["estimate"] == pytest.approx(-100 / 3)
    assert actor_contrasts(ACTORS, actors=["US", "GB"]).empty  # GB never advised: no pair


def test_the_flip_view_compares_the_same_scenario_and_opponent():
    # s1: US modal force (3 of 4), CN modal no force (3 of 4): a flip.
    # s2: both force: no flip. s3: US tie (force / no force), CN no force: they share a category, no flip.
    pairs = actor_flips(ACTORS, actors=["US", "CN"])
    assert pairs[["scenario", "left_answer", "right_answer", "flipped"]].values.tolist() == [
        ["s1", F, N, True], ["s2", F, F, False], ["s3", f"{N} / {F}", N, False]]
    first = pairs.iloc[0]
    assert (first["left_share"], first["right_share"], first["left_answers"]) == (0.75, 0.75, 4)
    assert flip_summary(pairs).to_dict("records") == [{"model": "m", "compared": 3, "flips": 1, "share": 1 / 3}]
    # US against RU and CN against US are not the same question with only the advised state changed
    other = from_records(rows("s1", "US", "RU", F) + rows("s1", "CN", "US", N), **BASE)
    assert actor_flips(other, actors=["US", "CN"]).empty


# Two models, one answer per question:
#   s1 (US vs RU): a force, b no force; s2: both force; s3: both no force -> d_force = [1, 0, 0]
#   b also answered (s1, CN vs RU) with force, which a never answered: left out of both, so
#   b's s1 rate stays 0 (with it, 1 of 2 = 0.5).
MODELS = from_records(
    rows("s1", "US", "RU", F, model="a") + rows("s1", "US", "RU", N, model="b") + rows("s1", "CN", "RU", F, model="b")
    + rows("s2", "US", "RU", F, model="a") + rows("s2", "US", "RU", F, model="b")
    + rows("s3", "US", "RU", N, model="a") + rows("s3", "US", "RU", N, model="b"),
    **BASE)


def test_a_model_contrast_by_hand_over_shared_questions():
    table = model_contrasts(MODELS, iterations=500)
    force = only(table, category=F)
    assert (force["kind"], force["model"], force["left"], force["right"]) == ("model", "", "a", "b")
    assert force["estimate"] == pytest.approx(100 / 3)  # (1 + 0 + 0) / 3
    # two codes per pair: 1 discordant pair, a's way: exact binomial P = 1.0
    assert (force["p_value"], force["p_method"]) == (1.0, "exact McNemar (1 vs 0 discordant)")


def test_many_scenarios_use_monte_carlo_patterns_and_say_so():
    records = []
    for index in range(24):  # 24 scenarios, a 2 of 3 force, b 1 of 3: d = 1/3 in each
        records += rows(f"s{index}", "US", "RU", F, F, N, model="a") + rows(f"s{index}", "US", "RU", F, N, N, model="b")
    force = only(model_contrasts(from_records(records, **BASE), iterations=200), category=F)
    # Every resample gives d = 1/3: the interval is that point (its two ends may differ in the
    # last bit, as the means of resamples are summed in different orders).
    assert force["estimate"] == pytest.approx(100 / 3)
    assert force["ci_low"] == pytest.approx(100 / 3) and force["ci_high"] == pytest.approx(100 / 3)
    # 2^24 patterns: Monte Carlo; only the two all-same patterns reach |sum| = 8 -> p about (1 + 0) / 100,001
    assert force["p_method"].startswith("Monte Carlo sign-flip (100000 patterns, MC se")
    assert force["p_value"] < 1e-4


def test_one_family_adjusted_with_benjamini_hochberg_or_holm():
    both = contrasts(MODELS, kind="model", iterations=200)
    assert (both["p_adjusted"] >= both["p_value"]).all()
    table = contrasts(ACTORS, kind="actor", actors=["US", "CN"], iterations=200)
    # two contrasts, both p = 0.5: BH 0.5 x 2/2 = 0.5 each; Holm min(1, 0.5 x 2) = 1.0
    assert table["p_adjusted"].tolist() == [0.5, 0.5]
    holm = contrasts(ACTORS, kind="actor", actors=["US", "CN"], iterations=200, method="holm")
    assert holm["p_adjusted"].tolist() == [1.0, 1.0]
    assert set(REPORT_COLUMNS) <= set(table.columns)
    with pytest.raises(ValueError, match="kind must be"):
        contrasts(ACTORS, kind="both ways")


def test_empty_tables_give_empty_results():
    assert contrasts(empty_table(), kind="both").empty
    assert actor_flips(empty_table()).empty and flip_summary(actor_flips(empty_table())).empty


def test_the_same_seed_gives_the_same_table():
    first = contrasts(ACTORS, kind="both", actors=["US", "CN"], iterations=300, seed=4)
    again = contrasts(ACTORS, kind="both", actors=["US", "CN"], iterations=300, seed=4)
    assert first.equals(again)


def _width(low, high):
    return float(np.atleast_1d(high)[0] - np.atleast_1d(low)[0])


@settings(max_examples=25, deadline=None)
@given(st.integers(8, 40), st.integers(0, 2 ** 32 - 1))
def test_the_paired_interval_is_never_wider_where_pairing_carries_information(n, seed):
    """Scenario rates of two models that share a scenario effect (correlation about 0.9): the
    paired cluster bootstrap interval of the difference is narrower than the one that resamples
    each model's scenarios independently (expected width ratio sqrt(2 (1 - 0.9)) / sqrt 2 = 0.32)."""
    rng = np.random.default_rng(seed)
    shared = rng.uniform(0.1, 0.9, n)
    left = np.clip(shared + rng.normal(0, 0.07, n), 0, 1)
    right = np.clip(shared - 0.1 + rng.normal(0, 0.07, n), 0, 1)
    figures = paired_figures(left[:, None], right[:, None], np.arange(n), 2000, seed, ("p",))
    paired = figures["ci_high"][0] - figures["ci_low"][0]
    unpaired = 100 * _width(*unpaired_difference_ci(left, right, 2000, seed))
    assert paired <= unpaired


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=2, max_size=30))
def test_the_paired_se_is_at_most_the_unpaired_exactly_when_the_covariance_is_not_negative(pairs):
    # SE_paired^2 n^2 = sum (d - dbar)^2 = Sa + Sb - 2 Sab; unpaired (a and b apart) = Sa + Sb
    left, right = np.array(pairs).T
    paired = clustered_se(left - right, np.arange(len(left)))
    unpaired = np.hypot(clustered_se(left, np.arange(len(left))), clustered_se(right, np.arange(len(right))))
    covariance = ((left - left.mean()) * (right - right.mean())).sum()
    if covariance > 1e-9:
        assert paired <= unpaired
    elif covariance < -1e-9:
        assert paired >= unpaired


def test_counterexample_pairing_widens_the_interval_when_the_models_disagree_scenario_by_scenario():
    """Two models that split every scenario the other way (left = 1 - right: covariance
    negative) have paired differences of +-1 where each model alone varies by 0.5: the paired
    interval is wider than the unpaired one. Pairing helps only when the scenarios move both
    models the same way (positive covariance), as a scenario effect does."""
    left = np.array([1.0, 0.0] * 10)
    right = 1 - left
    figures = paired_figures(left[:, None], right[:, None], np.arange(20), 2000, 0, ("c",))
    paired = figures["ci_high"][0] - figures["ci_low"][0]
    unpaired = 100 * _width(*unpaired_difference_ci(left, right, 2000, 0))
    assert paired > unpaired


def test_the_intra_scenario_correlation_of_earlier_answers():
    from scenarios_app.analysis.metrics.design import scenario_icc
    # One model, two scenarios of 4 answers: s1 force 3 of 4, s2 force 1 of 4. For "Use of force":
    # means 0.75, 0.25 -> ICC 0.2 (tests/analysis_app/test_stats_power.py by hand); "No use of force" is its
    # mirror (1 - y), the same 0.2. Weighted mean 0.2, on 8 answers.
    table = from_records(rows("s1", "US", "RU", F, F, F, N) + rows("s2", "US", "RU", F, N, N, N), **BASE)
    icc, answered = scenario_icc(table)
    assert icc == pytest.approx(0.2) and answered == 8
    assert np.isnan(scenario_icc(empty_table())[0])
