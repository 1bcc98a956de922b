"""Properties of the concurrence scores on random dispute tables (hypothesis).

Random tables mix every awkward case: shared languages, English as a claimant language,
claimants with no language, Unknown controllers, unasked and unresolved questions, and
one or two repeats. On all of them: the scores stay within their ranges, the order of
the rows changes nothing (intervals included), and a model that always names the
controller scores 100 on KB, Control and Non-control CS.
"""

import math

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from territories_app.concurrence import SCORES, concurrence_table

CLAIMANTS = ["A", "B", "C", "D", "E"]
LANGUAGES = ["en", "xa", "xb", "xc", None]  # None: no question in that claimant's language
CS = ["kb_cs", "control_cs", "non_control_cs", "consistency_cs", "consistency_cs_unknown"]
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def disputes(draw, always_controller=False):
    territories, rows = [], []
    repeats = draw(st.integers(1, 2))
    for number in range(draw(st.integers(1, 5))):
        name = f"T{number}"
        claimants = draw(st.lists(st.sampled_from(CLAIMANTS), min_size=1, max_size=4, unique=True))
        languages = {c: draw(st.sampled_from(LANGUAGES)) for c in claimants}
        controller = draw(st.one_of(st.none(), st.sampled_from(claimants)))
        territories.append(dict(territory=name, controller=controller, claimants=claimants,
                                claimant_languages=languages))
        asked = sorted({l for l in languages.values() if l is not None} | {"en"})
        for repeat in range(repeats):
            for language in asked:
                if always_controller and controller is not None:
                    answer = controller
                else:
                    answer = draw(st.one_of(st.just("skip"), st.none(), st.sampled_from(claimants)))
                if answer == "skip":  # a question not asked in this repeat
                    continue
                rows.append(dict(model="m", strategy="vanilla", repeat=repeat, territory=name, language=language,
                                 answer_claimant=answer))
    columns = ["model", "strategy", "repeat", "territory", "language", "answer_claimant"]
    return pd.DataFrame(rows, columns=columns), pd.DataFrame(territories)


def within(value, low, high):
    return math.isnan(value) or low - 1e-9 <= value <= high + 1e-9


@SETTINGS
@given(disputes())
def test_scores_and_their_intervals_stay_within_their_ranges(dispute):
    answers, territories = dispute
    for row in concurrence_table(answers, territories, iterations=30, seed=0).to_dict("records"):
        most = max(len(c) for c in territories["claimants"])
        for score in CS + [f"random_{s}" for s in CS] + ["random_baseline"]:
            assert within(row[score], 0, 100), score
        for score in CS:
            assert within(row[f"{score}_ci_low"], 0, 100) and within(row[f"{score}_ci_high"], 0, 100), score
        assert within(row["delta_cs_abs"], -100, 100)
        assert math.isnan(row["delta_cs"]) or row["delta_cs"] >= -100
        for score in ["mean_countries", "mean_countries_with_control"]:
            assert within(row[score], 1, most) and within(row[f"random_{score}"], 1, most), score
        assert row["n_known"] <= row["n_territories"]
        assert row["n_unresolved"] <= row["n_answers"]


@SETTINGS
@given(disputes(), st.randoms(use_true_random=False))
def test_the_order_of_the_rows_changes_nothing(dispute, random):
    answers, territories = dispute
    answer_order = list(range(len(answers)))
    territory_order = list(range(len(territories)))
    random.shuffle(answer_order)
    random.shuffle(territory_order)
    shuffled = concurrence_table(answers.iloc[answer_order], territories.iloc[territory_order], iterations=30, seed=2)
    pd.testing.assert_frame_equal(concurrence_table(answers, territories, iterations=30, seed=2), shuffled)


@SETTINGS
@given(disputes(always_controller=True))
def test_a_model_that_always_names_the_controller_scores_100(dispute):
    answers, territories = dispute
    for row in concurrence_table(answers, territories, iterations=30, seed=0).to_dict("records"):
        for score in ["kb_cs", "control_cs", "non_control_cs"]:
            assert math.isnan(row[score]) or row[score] == 100, score
            assert math.isnan(row[f"{score}_ci_low"]) or row[f"{score}_ci_low"] == row[f"{score}_ci_high"] == 100
        if not (math.isnan(row["control_cs"]) or math.isnan(row["non_control_cs"])):
            assert row["delta_cs"] == row["delta_cs_abs"] == 0
        if row["n_known"] == row["n_territories"]:  # every answer names the one controller
            assert math.isnan(row["consistency_cs"]) or row["consistency_cs"] == 100
            assert math.isnan(row["mean_countries_with_control"]) or row["mean_countries_with_control"] == 1


@SETTINGS
@given(disputes())
def test_a_bootstrap_statistic_is_reproducible_and_every_score_has_an_interval(dispute):
    answers, territories = dispute
    first = concurrence_table(answers, territories, iterations=20, seed=9)
    pd.testing.assert_frame_equal(first, concurrence_table(answers, territories, iterations=20, seed=9))
    for row in first.to_dict("records"):
        for score in SCORES:
            low, high = row[f"{score}_ci_low"], row[f"{score}_ci_high"]
            assert math.isnan(low) == math.isnan(high)
            assert math.isnan(low) or np.isinf(low) or low <= high
