"""Paired contrasts of territorial-dispute answers (territories_app.contrasts): hand-checked.

Three territories, each with two claimants asked in their own languages and in English:
T1 (A in a, B in b; controller A), T2 (A in a, C in c; controller A), T3 (B in b, C in c;
controller C). Answers are language -> claimant named.
"""

import math

import pandas as pd
import pytest

from territories_app.concurrence import territory_scores
from territories_app.contrasts import COLUMNS, contrasts, label

TERRITORIES = pd.DataFrame([
    {"territory": "T1", "controller": "A", "claimants": ["A", "B"], "claimant_languages": {"A": "a", "B": "b"}},
    {"territory": "T2", "controller": "A", "claimants": ["A", "C"], "claimant_languages": {"A": "a", "C": "c"}},
    {"territory": "T3", "controller": "C", "claimants": ["B", "C"], "claimant_languages": {"B": "b", "C": "c"}},
])

ANSWERS = {
    # m: T1 control A (1), non-control B (0): d = 1; T2 1 - 1 = 0; T3 control C (1), b names B (0): d = 1
    "m": {"T1": {"a": "A", "b": "B", "en": "A"}, "T2": {"a": "A", "c": "A", "en": "A"},
          "T3": {"c": "C", "b": "B", "en": "B"}},
    # n: T1 1 - 1 = 0; T2 control names C (0), non-control names A (1): d = -1; T3 1 - 1 = 0
    "n": {"T1": {"a": "A", "b": "A", "en": "A"}, "T2": {"a": "C", "c": "A", "en": "C"},
          "T3": {"c": "C", "b": "C", "en": "C"}},
}


def per_territory(answers=ANSWERS, repeats=(0,)):
    rows = [{"model": model, "strategy": "vanilla", "repeat": repeat, "territory": territory, "language": language,
             "answer_claimant": claimant}
            for model, by_territory in answers.items() for repeat in repeats
            for territory, asked in by_territory.items() for language, claimant in asked.items()]
    return territory_scores(pd.DataFrame(rows), TERRITORIES)


def one(table, **keys):
    for column, value in keys.items():
        table = table[table[column] == value]
    assert len(table) == 1, table
    return table.iloc[0]


def test_control_vs_non_control_within_territory_by_hand():
    table = contrasts(per_territory(), iterations=2000, seed=0)
    assert list(table.columns) == COLUMNS
    m = one(table, kind="control", model="m")
    # d = 100, 0, 100 points: mean 66.67
    assert m["estimate"] == pytest.approx(200 / 3)
    # residuals 33.3, -66.7, 33.3: sqrt(1111.1 + 4444.4 + 1111.1) / 3 = 81.65 / 3 = 27.22
    assert m["se_clustered"] == pytest.approx(math.sqrt(20000 / 3) / 3)
    # non-zero 100, 100: sums ±200, 0, 0; |s| >= 200 in 2 of 4 -> p = 0.5
    assert (m["p_value"], m["p_method"]) == (0.5, "exact sign-flip (4 patterns)")
    # the all-T2 resample (1/27 = 3.7 % > 2.5 %) has mean 0; T1/T3 only ((2/3)^3 = 29.6 %) has 100
    assert (m["ci_low"], m["ci_high"]) == (0.0, 100.0)
    assert (m["left"], m["right"], m["n_territories"], m["strategy"]) == ("Control", "Non-control", 3, "vanilla")
    n = one(table, kind="control", model="n")
    # d = 0, -100, 0: mean -33.3; one non-zero -> p = 1
    assert (n["estimate"], n["p_value"]) == (pytest.approx(-100 / 3), 1.0)


def test_model_vs_model_on_the_same_territories_by_hand():
    table = contrasts(per_territory(), iterations=500, seed=0)
    gap = one(table, kind="model", measure="gap")
    # m's gaps 1, 0, 1 minus n's 0, -1, 0 -> 100 on each territory: 100, SE 0, interval [100, 100]
    assert (gap["left"], gap["right"], gap["estimate"], gap["se_clustered"]) == ("m", "n", 100.0, 0.0)
    assert (gap["ci_low"], gap["ci_high"]) == (100.0, 100.0)
    # three non-zero: 8 patterns, |s| >= 300 in 2 -> p = 0.25
    assert gap["p_value"] == 0.25
    kb = one(table, kind="model", measure="kb")
    # KB: m names the controller in English on T1, T2 (1, 1, 0); n on T1, T3 (1, 0, 1): d = 0, 100, -100
    assert (kb["estimate"], kb["p_value"]) == (0.0, 1.0)
    assert label(gap) == "m − n · vanilla · Control − Non-control" and label(kb) == "m − n · vanilla · KB CS"


def test_the_table_is_one_family_adjusted_together():
    bh = contrasts(per_territory(), iterations=200, seed=0)
    # p = 0.5 (m), 1 (n), 0.25 (gap), 1 (kb); BH: sorted 0.25*4/1 = 1, 0.5*4/2 = 1, 1, 1 -> all 1
    assert bh["p_value"].tolist() == [0.5, 1.0, 0.25, 1.0]
    assert bh["p_adjusted"].tolist() == [1.0, 1.0, 1.0, 1.0] and not bh["significant"].any()
    holm = contrasts(per_territory(), iterations=200, seed=0, method="holm")
    assert (holm["p_adjusted"] >= holm["p_value"]).all()


def test_repeats_stay_inside_their_territory():
    # Two repeats of the same answers: the territory is the cluster, so nothing moves but n_pairs.
    once = contrasts(per_territory(), iterations=300, seed=0)
    twice = contrasts(per_territory(repeats=(0, 1)), iterations=300, seed=0)
    m1, m2 = one(once, kind="control", model="m"), one(twice, kind="control", model="m")
    assert (m2["estimate"], m2["p_value"], m2["n_territories"], m2["n_pairs"]) == \
        (pytest.approx(m1["estimate"]), m1["p_value"], 3, 6)
    assert m2["se_clustered"] == pytest.approx(m1["se_clustered"])


def test_no_known_controller_gives_no_control_contrast():
    unknown = TERRITORIES.assign(controller=None)
    rows = [{"model": "m", "strategy": "v", "repeat": 0, "territory": "T1", "language": lang, "answer_claimant": c}
            for lang, c in {"a": "A", "b": "B", "en": "A"}.items()]
    table = contrasts(territory_scores(pd.DataFrame(rows), unknown), iterations=100)
    assert table.empty and list(table.columns) == COLUMNS
    assert contrasts(territory_scores(pd.DataFrame(rows).iloc[:0], unknown)).empty
