"""Paired contrasts of free-form inconsistency (crisis_app.contrasts): hand-checked.

Questions of one simulation "s": move 1, and move 2 after continuations "a" and "b".
"""

import math

import pytest

from crisis_app.contrasts import COLUMNS, contrasts, label, question_values
from crisis_app.report import per_run_frame


def row(run, mean, *, model="m", temperature=0.2, move=1, continuation="", simulation="s", n_pairs=3):
    return {"model": model, "simulation": simulation, "variant": "explicit", "level": 0,
            "continuation": continuation, "explicit": True, "temperature": temperature, "move": move,
            "scorer": "bs", "run": run, "n_samples": 3, "n_pairs": n_pairs, "mean": mean}


QUESTIONS = [{"move": 1}, {"move": 2, "continuation": "a"}, {"move": 2, "continuation": "b"}]


def groups(model, temperature, means, run=1):
    return [row(run, mean, model=model, temperature=temperature, **q) for q, mean in zip(QUESTIONS, means)]


def one(table, **keys):
    for column, value in keys.items():
        table = table[table[column] == value]
    assert len(table) == 1, table
    return table.iloc[0]


ROWS = (groups("m", 0.2, [0.1, 0.2, 0.3]) + groups("m", 1.0, [0.4, 0.2, 0.6])
        + groups("n", 0.2, [0.2, 0.2, 0.2]))


def test_between_temperatures_paired_by_question_by_hand():
    table = contrasts(per_run_frame(ROWS), iterations=2000, seed=0)
    assert list(table.columns) == COLUMNS
    t = one(table, kind="temperature")
    assert (t["model"], t["left"], t["right"], t["cluster"], t["n_clusters"]) == ("m", "T=1", "T=0.2", "question", 3)
    # d = 0.4 - 0.1, 0.2 - 0.2, 0.6 - 0.3 = 0.3, 0, 0.3: mean 0.2
    assert t["estimate"] == pytest.approx(0.2)
    # residuals 0.1, -0.2, 0.1: sqrt(0.01 + 0.04 + 0.01) / 3 = 0.0816
    assert t["se_clustered"] == pytest.approx(math.sqrt(0.06) / 3)
    # non-zero 0.3, 0.3: sums ±0.6, 0, 0; |s| >= 0.6 in 2 of 4 -> p = 0.5
    assert t["p_value"] == pytest.approx(0.5)
    # all-move-2a resample (1/27 = 3.7 % > 2.5 %) -> 0; the others only ((2/3)^3) -> 0.3
    assert (t["ci_low"], t["ci_high"]) == (pytest.approx(0.0), pytest.approx(0.3))
    assert label(t) == "m · T=1 − T=0.2"
    assert "n" not in set(table.loc[table["kind"] == "temperature", "model"])  # n has one temperature


def test_between_models_paired_by_question_by_hand():
    table = contrasts(per_run_frame(ROWS), iterations=500, seed=0)
    pair = one(table, kind="model")
    # at T=0.2 only (n was not asked at 1.0): m - n = -0.1, 0, 0.1: mean 0; sums ±0.2, 0, 0 all >= 0 -> p = 1
    assert (pair["left"], pair["right"], pair["temperature"]) == ("m", "n", "0.2")
    assert pair["estimate"] == pytest.approx(0.0, abs=1e-12) and pair["p_value"] == 1.0
    assert label(pair) == "m − n · T=0.2"
    # BH over p = 0.5 and 1: 0.5 * 2 / 1 = 1, 1 -> both 1
    assert table["p_adjusted"].tolist() == [1.0, 1.0] and not table["significant"].any()


def test_runs_are_averaged_first_and_simulations_are_the_clusters_when_there_are_two():
    rows = [row(1, 0.0), row(2, 0.2),  # move 1 at 0.2: runs 0.0 and 0.2 -> 0.1
            row(1, 0.3, temperature=1.0),
            row(1, 0.1, continuation="a", move=2), row(1, 0.5, continuation="a", move=2, temperature=1.0),
            row(1, 0.2, simulation="t"), row(1, 0.2, simulation="t", temperature=1.0)]
    values = question_values(per_run_frame(rows))
    assert one(values, temperature="0.2", simulation="s", move=1)["value"] == pytest.approx(0.1)
    t = one(contrasts(per_run_frame(rows), iterations=300), kind="temperature")
    # s: 0.3 - 0.1 = 0.2 and 0.5 - 0.1 = 0.4 -> 0.3; t: 0.2 - 0.2 = 0 -> 0; mean over simulations 0.15
    assert (t["cluster"], t["n_clusters"], t["n_questions"]) == ("simulation", 2, 3)
    assert t["estimate"] == pytest.approx(0.15)
    # one non-zero simulation mean: p = 1
    assert t["p_value"] == 1.0


def test_a_model_default_temperature_is_compared_between_models_only():
    rows = groups("m", float("nan"), [0.3, 0.3, 0.3]) + groups("n", float("nan"), [0.1, 0.2, 0.3]) + \
        groups("m", 0.2, [0.1, 0.1, 0.1])
    table = contrasts(per_run_frame(rows), iterations=300)
    assert set(table["kind"]) == {"model"}
    pair = one(table, kind="model")
    # 0.2, 0.1, 0: mean 0.1
    assert (pair["temperature"], pair["estimate"]) == ("model default", pytest.approx(0.1))
    assert label(pair) == "m − n · model default"


def test_one_temperature_and_one_model_give_no_contrast():
    table = contrasts(per_run_frame(groups("m", 0.2, [0.1, 0.2, 0.3])), iterations=100)
    assert table.empty and list(table.columns) == COLUMNS
    assert contrasts(per_run_frame([])).empty
