"""Concurrence scores (BorderLines, paper 003, section 5.2): hand-checked tables.

Every expected number carries its arithmetic. Territory shorthands: a territory is
(claimants with their languages, controller); answers are language -> claimant.
"""

import math

import numpy as np
import pandas as pd
import pytest

from territories_app.concurrence import (
    SCORES, case_view, concurrence_table, group_rng, output_columns, percentile_interval, resample_index,
    territory_scores,
)


def territory(name, controller, languages):
    """languages: claimant -> language, in claimant order (None: no question in its language)."""
    return dict(territory=name, controller=controller, claimants=list(languages), claimant_languages=languages)


def ask(rows, name, answers, repeat=0, model="m", strategy="vanilla"):
    for language, claimant in answers.items():
        rows.append(dict(model=model, strategy=strategy, repeat=repeat, territory=name, language=language,
                         answer_claimant=claimant))


# Seven territories covering every case in the definition.
TERRITORIES = pd.DataFrame([
    territory("Spratly", "VN", {"CN": "zhs", "PH": "tl", "VN": "vi"}),       # n = 3
    territory("Halaib", "EG", {"EG": "ar", "SD": "ar"}),                      # shared language, n = 2
    territory("Falklands", "GB", {"GB": "en", "AR": "es"}),                   # English is the controller's, n = 2
    territory("Isle", "XA", {"XA": "xa", "XB": "xb"}),                        # xa never asked, n = 2
    territory("Rock", "RC", {"RC": None, "RD": "rd", "RE": "re"}),            # controller has no language, n = 3
    territory("Strait", None, {"P": "zhs", "R": "zht", "Q": "ko"}),           # Unknown, n = 3
    territory("Valley", None, {"U1": "fr", "U2": "fr"}),                      # Unknown, shared language, n = 2
])


def seven_answers():
    rows = []
    ask(rows, "Spratly", {"en": "VN", "zhs": "CN", "tl": "VN", "vi": "VN"})
    ask(rows, "Halaib", {"en": "SD", "ar": "EG"})
    ask(rows, "Falklands", {"en": "GB", "es": "GB"})
    ask(rows, "Isle", {"en": "XB", "xb": "XA"})
    ask(rows, "Rock", {"en": "RC", "rd": "RD", "re": None})
    ask(rows, "Strait", {"en": "P", "zhs": "P", "zht": "R", "ko": "P"})
    ask(rows, "Valley", {"en": "U1", "fr": "U2"})
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def seven():
    return concurrence_table(seven_answers(), TERRITORIES, iterations=200, seed=0).iloc[0]


def test_kb_cs_compares_the_english_answer_with_the_controller(seven):
    # known: Spratly VN=VN 1, Halaib SD≠EG 0, Falklands GB=GB 1, Isle XB≠XA 0, Rock RC=RC 1
    assert seven["kb_cs"] == pytest.approx(100 * 3 / 5)
    assert seven["n_kb"] == 5


def test_control_cs_leaves_out_territories_without_a_question_in_the_controllers_language(seven):
    # Spratly vi->VN 1, Halaib ar->EG 1 (shared language: the controller's), Falklands en->GB 1;
    # Isle (xa not asked) and Rock (RC has no language) are left out and counted
    assert seven["control_cs"] == pytest.approx(100 * 3 / 3)
    assert seven["n_control"] == 3
    assert seven["n_no_control_question"] == 2


def test_non_control_cs_averages_per_territory_shares(seven):
    # Spratly: zhs CN 0, tl VN 1 -> 1/2; Halaib: no other language, out; Falklands: es GB -> 1/1;
    # Isle: xb XA -> 1/1; Rock: rd RD 0, re unresolved (out) -> 0/1
    # mean (1/2 + 1 + 1 + 0) / 4 = 2.5 / 4 = 62.5 %
    assert seven["non_control_cs"] == pytest.approx(62.5)
    assert seven["n_non_control"] == 4


def test_delta_cs_is_relative_to_non_control_with_the_absolute_difference_beside_it(seven):
    assert seven["delta_cs"] == pytest.approx(100 * (100 - 62.5) / 62.5)  # = 60
    assert seven["delta_cs_abs"] == pytest.approx(100 - 62.5)  # = 37.5


def test_consistency_cs_uses_in_language_answers_of_territories_with_two_or_more(seven):
    # Spratly CN,VN,VN: pairs CN-VN, CN-VN, VN-VN -> 1/3 (the English control is not counted)
    # Falklands en GB, es GB -> 1/1 (English is GB's language, so it counts)
    # Strait P,R,P -> 1/3; Halaib, Isle, Rock, Valley have one resolved in-language answer: out
    # mean (1/3 + 1 + 1/3) / 3 = 5/9
    assert seven["consistency_cs"] == pytest.approx(100 * 5 / 9)
    assert seven["n_consistency"] == 3
    # Unknown only: Strait 1/3
    assert seven["consistency_cs_unknown"] == pytest.approx(100 / 3)
    assert seven["n_consistency_unknown"] == 1


def test_mean_countries_with_and_without_the_control(seven):
    # in-language: Spratly {CN,VN} 2, Halaib {EG} 1, Falklands {GB} 1, Isle {XA} 1, Rock {RD} 1,
    # Strait {P,R} 2, Valley {U2} 1 -> 9 / 7
    assert seven["mean_countries"] == pytest.approx(9 / 7)
    # with en: Spratly 2, Halaib {EG,SD} 2, Falklands 1, Isle {XA,XB} 2, Rock {RD,RC} 2,
    # Strait 2, Valley {U2,U1} 2 -> 13 / 7
    assert seven["mean_countries_with_control"] == pytest.approx(13 / 7)


def test_random_baselines_average_one_over_the_claimant_count_over_each_scores_territories(seven):
    # known: Spratly 1/3, Halaib 1/2, Falklands 1/2, Isle 1/2, Rock 1/3 -> (2/3 + 3/2) / 5 = 13/30
    assert seven["random_baseline"] == pytest.approx(100 * 13 / 30)
    assert seven["random_kb_cs"] == pytest.approx(100 * 13 / 30)
    # Control: Spratly 1/3, Halaib 1/2, Falklands 1/2 -> (4/3) / 3 = 4/9
    assert seven["random_control_cs"] == pytest.approx(100 * 4 / 9)
    # Non-control: Spratly 1/3, Falklands 1/2, Isle 1/2, Rock 1/3 -> (5/3) / 4 = 5/12
    assert seven["random_non_control_cs"] == pytest.approx(100 * 5 / 12)
    # Consistency: a pair agrees w.p. sum_c (1/n)^2 = 1/n: Spratly 1/3, Falklands 1/2, Strait 1/3 -> 7/18
    assert seven["random_consistency_cs"] == pytest.approx(100 * 7 / 18)
    assert seven["random_consistency_cs_unknown"] == pytest.approx(100 / 3)


def test_random_mean_countries_is_the_expected_number_of_distinct_claimants(seven):
    # m uniform answers among n claimants name n (1 - (1 - 1/n)^m) distinct ones on average
    # in-language: Spratly n3 m3 19/9, Halaib n2 m1 1, Falklands n2 m2 3/2, Isle 1, Rock n3 m1 1,
    # Strait n3 m3 19/9, Valley 1 -> (38/9 + 4 + 3/2) / 7 = (175/18) / 7 = 25/18
    assert seven["random_mean_countries"] == pytest.approx(25 / 18)
    # with control: Spratly n3 m4 65/27, Halaib n2 m2 3/2, Falklands (en already in) 3/2, Isle 3/2,
    # Rock n3 m2 5/3, Strait 65/27, Valley 3/2 -> (130/27 + 6 + 5/3) / 7 = (337/27) / 7
    assert seven["random_mean_countries_with_control"] == pytest.approx(337 / 189)


def test_counts_report_territories_answers_and_unresolved(seven):
    assert (seven["n_known"], seven["n_territories"]) == (5, 7)
    # 4 + 2 + 2 + 2 + 3 + 4 + 2 answers, Rock's re unresolved
    assert (seven["n_answers"], seven["n_unresolved"]) == (19, 1)
    assert seven["n_shared_control"] == 1  # Halaib
    assert (seven["n_repeats"], seven["iterations"]) == (1, 200)


def test_the_table_has_the_documented_columns():
    table = concurrence_table(seven_answers(), TERRITORIES, iterations=10)
    assert list(table.columns) == output_columns()
    assert list(table.columns[:14]) == [
        "model", "strategy", "kb_cs", "control_cs", "non_control_cs", "delta_cs", "delta_cs_abs", "consistency_cs",
        "consistency_cs_unknown", "mean_countries", "mean_countries_with_control", "random_baseline", "n_known",
        "n_territories"]
    for score in SCORES:
        assert {f"{score}_ci_low", f"{score}_ci_high", f"{score}_sd"} <= set(table.columns)


def test_a_shared_language_answer_counts_as_the_controllers_language_for_both_speakers():
    # Claimants EG (ar), SD (ar), ET (am), controller SD: one Arabic question, which is SD's
    # language, so its answer EG is the Control answer (0), and only am enters Non-control.
    territories = pd.DataFrame([territory("Triangle", "SD", {"EG": "ar", "SD": "ar", "ET": "am"})])
    rows = []
    ask(rows, "Triangle", {"en": "SD", "ar": "EG", "am": "SD"})
    row = concurrence_table(pd.DataFrame(rows), territories, iterations=0).iloc[0]
    assert row["kb_cs"] == 100  # en SD = SD
    assert row["control_cs"] == 0  # ar EG != SD
    assert row["non_control_cs"] == 100  # am SD = SD, 1/1
    assert row["delta_cs"] == pytest.approx(100 * (0 - 100) / 100)  # = -100
    assert row["consistency_cs"] == 0  # ar EG, am SD: one pair, disagreeing
    assert row["mean_countries"] == 2  # {EG, SD}
    assert row["n_shared_control"] == 1


def test_english_as_a_non_controllers_language_enters_non_control_and_consistency():
    # Claimants MU (fr), GB (en), controller MU: the English answer is the KB answer and GB's
    # in-language answer.
    territories = pd.DataFrame([territory("Chagos", "MU", {"MU": "fr", "GB": "en"})])
    rows = []
    ask(rows, "Chagos", {"en": "GB", "fr": "MU"})
    row = concurrence_table(pd.DataFrame(rows), territories, iterations=0).iloc[0]
    assert row["kb_cs"] == 0  # en GB != MU
    assert row["control_cs"] == 100  # fr MU
    assert row["non_control_cs"] == 0  # en GB, 0/1
    assert row["consistency_cs"] == 0  # fr MU vs en GB
    assert row["mean_countries"] == row["mean_countries_with_control"] == 2  # en counted once
    assert row["n_answers"] == 2


def test_a_non_control_cs_of_zero_gives_an_infinite_relative_delta():
    # Control 100 (xa XA), Non-control 0 (xb XB): "approaches infinity" (paper, 5.2)
    territories = pd.DataFrame([territory("T", "XA", {"XA": "xa", "XB": "xb"})])
    rows = []
    ask(rows, "T", {"en": "XA", "xa": "XA", "xb": "XB"})
    row = concurrence_table(pd.DataFrame(rows), territories, iterations=50).iloc[0]
    assert row["delta_cs"] == math.inf
    assert row["delta_cs_abs"] == 100
    assert (row["delta_cs_ci_low"], row["delta_cs_ci_high"]) == (math.inf, math.inf)


def test_unresolved_answers_leave_the_denominators_and_are_counted():
    languages = {"X": "xx", "Y": "yy"}
    territories = pd.DataFrame([territory("A", "X", languages), territory("B", "X", languages)])
    rows = []
    ask(rows, "A", {"en": None, "xx": None, "yy": None})
    ask(rows, "B", {"en": "X", "xx": "X", "yy": "Y"})
    row = concurrence_table(pd.DataFrame(rows), territories, iterations=0).iloc[0]
    # only B enters: KB 1/1, Control 1/1, Non-control 0/1, Consistency 0/1
    assert (row["kb_cs"], row["control_cs"], row["non_control_cs"], row["consistency_cs"]) == (100, 100, 0, 0)
    assert (row["n_kb"], row["n_control"], row["n_non_control"], row["n_consistency"]) == (1, 1, 1, 1)
    assert row["n_unresolved"] == 3
    assert row["n_no_control_question"] == 0  # A's xx was asked, just not resolved
    # A names nothing: out of mean_countries; B names {X, Y}
    assert row["mean_countries"] == 2


def test_scores_are_computed_per_repeat_then_averaged_with_a_sample_sd():
    languages = {"X": "xx", "Y": "yy"}
    territories = pd.DataFrame([territory("A", "X", languages), territory("B", "Y", languages)])
    rows = []
    ask(rows, "A", {"en": "X", "xx": "X", "yy": "X"}, repeat=0)
    ask(rows, "B", {"en": "Y", "xx": "Y", "yy": "Y"}, repeat=0)
    ask(rows, "A", {"en": "X", "xx": "X", "yy": "Y"}, repeat=1)
    ask(rows, "B", {"en": "X", "xx": "X", "yy": "Y"}, repeat=1)
    row = concurrence_table(pd.DataFrame(rows), territories, iterations=0).iloc[0]
    # KB: repeat 0 2/2 = 100, repeat 1 (A X=X, B X≠Y) 1/2 = 50 -> mean 75, sd sqrt(2 * 25^2 / 1)
    assert row["kb_cs"] == pytest.approx(75)
    assert row["kb_cs_sd"] == pytest.approx(math.sqrt(2 * 25 ** 2))
    # Control: repeat 0 A xx X 1, B yy Y 1 -> 100; repeat 1 A xx X 1, B yy Y 1 -> 100
    # Non-control: repeat 0 A yy X 1, B xx Y 1 -> 100; repeat 1 A yy Y 0, B xx X 0 -> 0
    assert (row["control_cs"], row["non_control_cs"]) == (100, 50)
    # ΔCS per repeat: repeat 0 (100-100)/100 = 0; repeat 1 (100-0)/0 = inf -> mean inf
    assert row["delta_cs"] == math.inf
    # |Δ| per repeat 0 and 100 -> 50, sd sqrt(2 * 50^2)
    assert row["delta_cs_abs"] == 50
    assert row["delta_cs_abs_sd"] == pytest.approx(math.sqrt(2 * 50 ** 2))
    # Consistency: repeat 0 both agree 100, repeat 1 both disagree 0 -> 50
    assert row["consistency_cs"] == 50
    assert math.isnan(row["consistency_cs_unknown"])
    assert (row["n_repeats"], row["n_answers"]) == (2, 12)


def test_a_single_repeat_has_no_sd():
    row = concurrence_table(seven_answers(), TERRITORIES, iterations=0).iloc[0]
    assert math.isnan(row["kb_cs_sd"])
    assert math.isnan(row["kb_cs_ci_low"]) and row["iterations"] == 0


def test_models_and_strategies_get_one_row_each():
    rows = []
    ask(rows, "Halaib", {"en": "EG", "ar": "EG"}, model="b", strategy="nationalist")
    ask(rows, "Halaib", {"en": "SD", "ar": "EG"}, model="a", strategy="vanilla")
    ask(rows, "Halaib", {"en": "EG", "ar": "SD"}, model="a", strategy="un_peacekeeper")
    table = concurrence_table(pd.DataFrame(rows), TERRITORIES, iterations=0)
    assert list(zip(table["model"], table["strategy"])) == [("a", "un_peacekeeper"), ("a", "vanilla"),
                                                            ("b", "nationalist")]
    assert list(table["kb_cs"]) == [100, 0, 100]
    assert list(table["control_cs"]) == [0, 100, 100]
    # territories are counted per (model, strategy): only Halaib was asked
    assert list(table["n_territories"]) == [1, 1, 1]


def test_territory_scores_has_one_row_per_territory_asked():
    scores = territory_scores(seven_answers(), TERRITORIES).set_index("territory")
    assert len(scores) == 7
    assert scores.loc["Spratly", "non_control"] == 0.5
    assert scores.loc["Rock", "no_control_question"] and scores.loc["Isle", "no_control_question"]
    assert math.isnan(scores.loc["Valley", "consistency"])


# Case view


def test_the_case_view_shows_every_language_its_speakers_and_whether_it_names_the_controller():
    view = case_view(seven_answers(), TERRITORIES, territory="Halaib")
    assert list(view["language"]) == ["ar", "en"]
    ar, en = view.iloc[0], view.iloc[1]
    assert (ar["speakers"], ar["role"], ar["answer_claimant"], ar["names_controller"]) == (
        "EG;SD", "controller language", "EG", True)
    assert (en["speakers"], en["role"], en["answer_claimant"], en["names_controller"]) == ("", "control", "SD", False)


def test_the_case_view_marks_unresolved_and_not_asked_questions():
    view = case_view(seven_answers(), TERRITORIES).set_index(["territory", "language"])
    assert view.loc[("Rock", "re"), "status"] == "unresolved"
    assert view.loc[("Rock", "re"), "answer_claimant"] is None
    assert view.loc[("Rock", "re"), "names_controller"] is None
    assert view.loc[("Isle", "xa"), "status"] == "not asked"
    assert view.loc[("Isle", "xa"), "role"] == "controller language"
    assert view.loc[("Falklands", "en"), "role"] == "control + controller language"
    assert view.loc[("Strait", "zht"), "role"] == "claimant language"
    assert view.loc[("Strait", "zht"), "names_controller"] is None  # Unknown controller
    assert view.loc[("Rock", "en"), "controller_language"] is None
    # one row per claimant language, plus English when it is nobody's language: 3+1, 1+1, 2, 2+1, 2+1, 3+1, 1+1
    assert len(view) == 4 + 2 + 2 + 3 + 3 + 4 + 2


def test_the_case_view_filters_by_model_and_strategy():
    rows = []
    ask(rows, "Halaib", {"en": "EG", "ar": "EG"}, model="a", strategy="vanilla")
    ask(rows, "Halaib", {"en": "SD", "ar": "SD"}, model="b", strategy="vanilla")
    view = case_view(pd.DataFrame(rows), TERRITORIES, model="b")
    assert set(view["model"]) == {"b"} and list(view["answer_claimant"]) == ["SD", "SD"]


# Input errors name the row and the fix


@pytest.mark.parametrize("bad, message", [
    (dict(territory="Nowhere"), "not in the territories table"),
    (dict(language="de"), "neither the English control nor a claimant language"),
    (dict(answer_claimant="FR"), "is not a claimant"),
])
def test_a_bad_answer_row_is_refused_by_position(bad, message):
    row = dict(model="m", strategy="vanilla", repeat=0, territory="Halaib", language="ar", answer_claimant="EG")
    answers = pd.DataFrame([dict(row, language="en"), {**row, **bad}])
    with pytest.raises(ValueError, match=f"answers row 1: .*{message}"):
        concurrence_table(answers, TERRITORIES)


def test_a_second_answer_to_the_same_question_is_refused():
    row = dict(model="m", strategy="vanilla", repeat=0, territory="Halaib", language="ar", answer_claimant="EG")
    with pytest.raises(ValueError, match="a second answer"):
        concurrence_table(pd.DataFrame([row, dict(row, answer_claimant="SD")]), TERRITORIES)


def test_a_controller_outside_the_claimants_is_refused():
    territories = pd.DataFrame([dict(territory("T", "X", {"X": "xx", "Y": "yy"}), controller="Z")])
    with pytest.raises(ValueError, match=r"territories row 0 \('T'\): controller 'Z' is not among the claimants"):
        concurrence_table(pd.DataFrame(columns=["model", "strategy", "repeat", "territory", "language",
                                                "answer_claimant"]), territories)


def test_no_answers_give_an_empty_table_with_the_columns():
    empty = pd.DataFrame(columns=["model", "strategy", "repeat", "territory", "language", "answer_claimant"])
    table = concurrence_table(empty, TERRITORIES)
    assert table.empty and list(table.columns) == output_columns()


# Bootstrap over territories


def bootstrap_answers():
    rows = []
    for repeat, flip in enumerate([("Spratly", "Isle"), ("Halaib", "Rock")]):
        for name, answers in [
            ("Spratly", {"en": "VN", "zhs": "CN", "tl": "VN", "vi": "VN"}),
            ("Halaib", {"en": "SD", "ar": "EG"}),
            ("Falklands", {"en": "GB", "es": "AR"}),
            ("Isle", {"en": "XB", "xb": "XA"}),
            ("Rock", {"en": "RC", "rd": "RD", "re": "RC"}),
            ("Strait", {"en": "P", "zhs": "P", "zht": "R", "ko": "Q"}),
            ("Valley", {"en": "U1", "fr": "U2"}),
        ]:
            if name in flip:  # the repeats differ on two territories
                answers = {language: None for language in answers}
            ask(rows, name, answers, repeat=repeat)
    return pd.DataFrame(rows)


def loop_bootstrap(answers, territories, iterations, seed, model="m", strategy="vanilla"):
    """Reference: one resample at a time, scores from plain pandas means of the per-territory values."""
    per_territory = territory_scores(answers, territories)
    names = sorted(per_territory["territory"].unique())
    index = resample_index(len(names), iterations, group_rng(seed, model, strategy))
    samples = {score: [] for score in SCORES}
    for draws in index:
        resample = pd.concat([per_territory[per_territory["territory"] == names[i]] for i in draws])
        per_repeat = {score: [] for score in SCORES}
        for _, passed in resample.groupby("repeat"):
            values = {
                "kb_cs": 100 * passed["kb"].mean(), "control_cs": 100 * passed["control"].mean(),
                "non_control_cs": 100 * passed["non_control"].mean(),
                "consistency_cs": 100 * passed["consistency"].mean(),
                "consistency_cs_unknown": 100 * passed["consistency_unknown"].mean(),
                "mean_countries": passed["countries"].mean(),
                "mean_countries_with_control": passed["countries_with_control"].mean(),
            }
            with np.errstate(divide="ignore", invalid="ignore"):
                values["delta_cs"] = 100 * (values["control_cs"] - values["non_control_cs"]) / np.float64(
                    values["non_control_cs"])
            values["delta_cs_abs"] = values["control_cs"] - values["non_control_cs"]
            for score in SCORES:
                per_repeat[score].append(values[score])
        for score in SCORES:
            defined = [v for v in per_repeat[score] if not math.isnan(v)]
            samples[score].append(sum(defined) / len(defined) if defined else math.nan)
    return {score: percentile_interval(np.array(values)) for score, values in samples.items()}


def test_the_vectorised_bootstrap_equals_a_plain_loop():
    answers = bootstrap_answers()
    row = concurrence_table(answers, TERRITORIES, iterations=120, seed=3).iloc[0]
    expected = loop_bootstrap(answers, TERRITORIES, iterations=120, seed=3)
    for score in SCORES:
        low, high = expected[score]
        assert row[f"{score}_ci_low"] == pytest.approx(low, rel=1e-12, nan_ok=True), score
        assert row[f"{score}_ci_high"] == pytest.approx(high, rel=1e-12, nan_ok=True), score


def test_the_same_seed_gives_the_same_intervals_and_another_seed_does_not():
    answers = bootstrap_answers()
    first = concurrence_table(answers, TERRITORIES, iterations=300, seed=5)
    again = concurrence_table(answers, TERRITORIES, iterations=300, seed=5)
    other = concurrence_table(answers, TERRITORIES, iterations=300, seed=6)
    pd.testing.assert_frame_equal(first, again)
    ci = [f"{score}_ci_{side}" for score in SCORES for side in ("low", "high")]
    assert not first[ci].equals(other[ci])
    assert (first[ci[0::2]].fillna(0).to_numpy() <= first[ci[1::2]].fillna(0).to_numpy()).all()


def test_a_models_intervals_do_not_move_when_another_model_is_added():
    answers = bootstrap_answers()
    alone = concurrence_table(answers, TERRITORIES, iterations=200, seed=1)
    together = concurrence_table(pd.concat([answers, answers.assign(model="another")]), TERRITORIES,
                                 iterations=200, seed=1)
    pd.testing.assert_frame_equal(alone, together[together["model"] == "m"].reset_index(drop=True))


def test_the_point_value_lies_in_its_interval_and_the_interval_in_0_to_100():
    row = concurrence_table(bootstrap_answers(), TERRITORIES, iterations=500, seed=0).iloc[0]
    for score in ["kb_cs", "control_cs", "non_control_cs", "consistency_cs"]:
        assert 0 <= row[f"{score}_ci_low"] <= row[score] <= row[f"{score}_ci_high"] <= 100, score


def test_percentile_interval_follows_numpy_and_skips_undefined_samples():
    samples = np.array([1.0, np.nan, 3.0, 2.0, 10.0])
    assert percentile_interval(samples) == tuple(np.percentile([1.0, 2.0, 3.0, 10.0], [2.5, 97.5]))
    assert all(math.isnan(bound) for bound in percentile_interval(np.array([np.nan])))
    # the upper percentile lies between two infinities: inf, not inf - inf = NaN;
    # the lower one at position 0.025 * 3 = 0.075 between 1 and 2: 1.075
    low, high = percentile_interval(np.array([1.0, 2.0, math.inf, math.inf]))
    assert (low, high) == (pytest.approx(1.075), math.inf)
