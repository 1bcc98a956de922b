"""Language contrasts (scenarios_app.analysis.metrics.language_contrasts): the same scenario
and dyad asked in two languages, paired, each scenario one cluster; checked by hand, and
properties that hold for any table."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scenarios_app.analysis.metrics.contrasts import COLUMNS
from scenarios_app.analysis.metrics.language_contrasts import (
    language_contrasts, language_family, language_order, language_pairs, language_sensitivity)
from scenarios_app.analysis.metrics.tidy import from_records

F, N = "Use of force", "No use of force"
BASE = dict(model="m", run=1, question_key="", scenario="s1", domain="Escalation", choice_count=2, action="",
            qualified_actor="US", opposing_actor="RU", repeat=0, outcome="answer", category=None, language="en")


def answer(scenario, actor, language, category, **fields):
    return dict(fields, scenario=scenario, qualified_actor=actor, opposing_actor="RU", language=language,
                category=category)


# One model; cells (scenario, qualified actor vs RU) asked in English and Chinese:
#   s1 US: en F, zh F -> F rates 1 and 1
#   s1 CN: en N, zh F -> F rates 0 and 1
#      s1 per scenario (mean over its 2 shared cells): en 0.5, zh 1.0 -> d = -0.5
#   s2 US: en N, zh F -> d = 0 - 1 = -1
#   s3 US: en F, zh F -> d = 0
#   s4 US: en only -> no pair, not counted
HAND = from_records([
    answer("s1", "US", "en", F), answer("s1", "US", "zh", F),
    answer("s1", "CN", "en", N), answer("s1", "CN", "zh", F),
    answer("s2", "US", "en", N), answer("s2", "US", "zh", F),
    answer("s3", "US", "en", F), answer("s3", "US", "zh", F),
    answer("s4", "US", "en", N),
], **BASE)


def test_language_contrast_exact_on_a_hand_computed_case():
    frame = language_family(HAND, iterations=500, seed=1)
    assert list(frame.columns) == COLUMNS
    force = frame[frame["category"] == F].iloc[0]
    assert (force["kind"], force["model"], force["left"], force["right"]) == ("language", "m", "en", "zh")
    # d_s = -0.5, -1, 0 -> mean -0.5 = -50 points over 3 scenarios (s4 has no zh pair)
    assert force["estimate"] == pytest.approx(-50.0)
    assert force["n_scenarios"] == 3
    # clustered SE: sqrt((0^2 + (-0.5)^2 + 0.5^2)) / 3 = sqrt(0.5) / 3 = 0.23570 -> 23.570 points
    assert force["se_clustered"] == pytest.approx(100 * np.sqrt(0.5) / 3)
    # s1's rates are 0.5, not 0 or 1: sign-flip test. Non-zero d: -0.5 and -1 (k = 2),
    # 2^2 = 4 patterns, |sum| = 1.5, 0.5, 0.5, 1.5 -> 2 of 4 at least 1.5: p = 0.5, exact
    assert force["p_value"] == pytest.approx(0.5)
    assert force["p_method"].startswith("exact")
    # A bootstrap mean of the d_s lies between the smallest and largest d_s
    assert -100.0 <= force["ci_low"] <= force["estimate"] <= force["ci_high"] <= 0.0
    # Two categories in a two-option form: they mirror each other, one family of 2 (BH: 0.5, 0.5)
    other = frame[frame["category"] == N].iloc[0]
    assert other["estimate"] == pytest.approx(50.0)
    assert list(frame["p_adjusted"]) == pytest.approx([0.5, 0.5])


def test_one_answer_per_cell_and_scenario_uses_the_exact_mcnemar_test():
    # Each scenario one dyad, one answer per language: every rate 0 or 1.
    # s1 en N zh F, s2 en N zh F, s3 en F zh F: discordant 0 (en only) vs 2 (zh only)
    # exact McNemar: p = 2 * (1/2)^2 = 0.5
    table = from_records([answer("s1", "US", "en", N), answer("s1", "US", "zh", F),
                          answer("s2", "US", "en", N), answer("s2", "US", "zh", F),
                          answer("s3", "US", "en", F), answer("s3", "US", "zh", F)], **BASE)
    force = language_contrasts(table, iterations=200).query("category == @F").iloc[0]
    assert force["estimate"] == pytest.approx(-200 / 3)  # (-1 - 1 + 0) / 3
    assert force["p_value"] == pytest.approx(0.5)
    assert force["p_method"] == "exact McNemar (0 vs 2 discordant)"


def test_each_language_against_the_source_and_any_two():
    assert language_order(["zh", "ru", "en"]) == ["en", "ru", "zh"]
    assert language_pairs(["zh", "ru", "en"]) == [("en", "ru"), ("en", "zh"), ("ru", "zh")]
    assert language_pairs(["fr", "ar"], source="fr") == [("fr", "ar")]
    three = from_records(HAND.to_dict("records") + [answer("s1", "US", "ru", N), answer("s2", "US", "ru", N)],
                         **BASE)
    frame = language_contrasts(three, iterations=100)
    assert sorted(set(zip(frame["left"], frame["right"]))) == [("en", "ru"), ("en", "zh"), ("ru", "zh")]
    # en vs ru on s1 US (1 - 0) and s2 US (0 - 0): shared cells only -> mean 0.5 over 2 scenarios
    en_ru = frame[(frame["left"] == "en") & (frame["right"] == "ru") & (frame["category"] == F)].iloc[0]
    assert (en_ru["estimate"], en_ru["n_scenarios"]) == (pytest.approx(50.0), 2)


def test_a_table_without_a_language_column_is_refused_with_the_fix():
    with pytest.raises(ValueError, match="by_language=True"):
        language_contrasts(HAND.drop(columns="language"))


def test_language_sensitivity_names_the_largest_contrast():
    frame = language_family(HAND, iterations=100)
    summary = language_sensitivity(frame).iloc[0]
    assert (summary["model"], summary["contrasts"], summary["largest"]) == ("m", 2, pytest.approx(50.0))
    assert summary["at"].endswith("· en vs zh")


CELLS = st.lists(st.tuples(st.sampled_from(["s1", "s2", "s3", "s4"]), st.sampled_from(["US", "CN"]),
                           st.sampled_from(["en", "zh"]), st.sampled_from([F, N])), min_size=1, max_size=30)


@settings(max_examples=40, deadline=None)
@given(CELLS)
def test_swapping_left_and_right_negates_the_difference(cells):
    table = from_records([answer(s, a, lang, c) for s, a, lang, c in cells], **BASE)
    forward = language_contrasts(table, source="en", iterations=50, seed=3)
    backward = language_contrasts(table, source="zh", iterations=50, seed=3)
    assert len(forward) == len(backward)
    for (_, f), (_, b) in zip(forward.iterrows(), backward.iterrows()):
        assert (f["left"], f["right"]) == (b["right"], b["left"])
        assert f["estimate"] == pytest.approx(-b["estimate"], abs=1e-9)
        assert f["se_clustered"] == pytest.approx(b["se_clustered"], abs=1e-9)
        assert f["p_value"] == pytest.approx(b["p_value"], abs=1e-12)
        assert f["n_scenarios"] == b["n_scenarios"]


@settings(max_examples=30, deadline=None)
@given(CELLS)
def test_a_language_against_itself_is_no_contrast_and_estimates_stay_within_100_points(cells):
    table = from_records([answer(s, a, lang, c) for s, a, lang, c in cells], **BASE)
    frame = language_contrasts(table, iterations=50)
    assert (frame["left"] != frame["right"]).all()
    assert frame["estimate"].between(-100, 100).all()
