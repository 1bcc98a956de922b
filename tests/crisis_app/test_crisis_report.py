"""crisis_app.report on tiny hand-checked group rows."""

import math

import pytest

from crisis_app.inconsistency import summarise_runs
from crisis_app.report import (
    PER_RUN_COLUMNS,
    SUMMARY_COLUMNS,
    band_frame,
    box_frame,
    build,
    curve_frame,
    divergent_pairs,
    per_run_frame,
    scored_span,
    summary_frame,
)
from crisis_app.sections import SectionSpec


def row(run, mean, *, model="m", variant="explicit", level=0, explicit=True, temperature=0.2, move=1,
        continuation="", scorer="bs", n_samples=3, n_pairs=3):
    return {"model": model, "simulation": "s", "variant": variant, "level": level, "continuation": continuation,
            "explicit": explicit, "temperature": temperature, "move": move, "scorer": scorer, "run": run,
            "n_samples": n_samples, "n_pairs": n_pairs, "mean": mean}


THREE_RUNS = [row(3, 0.6), row(1, 0.2), row(2, 0.4)]


def test_the_per_run_frame_is_one_sorted_row_per_group():
    frame = per_run_frame(THREE_RUNS + [row(1, 0.5, explicit=False, variant="anonymised")])
    assert list(frame.columns) == PER_RUN_COLUMNS
    # Sorted by the identifying columns ("anonymised" < "explicit"), then by run.
    assert list(zip(frame["variant"], frame["run"])) == [("anonymised", 1), ("explicit", 1), ("explicit", 2),
                                                         ("explicit", 3)]
    assert frame["explicit"].tolist() == [False, True, True, True]


def test_the_summary_is_the_mean_and_sd_of_the_run_means():
    [summary] = summary_frame(per_run_frame(THREE_RUNS)).to_dict(orient="records")
    assert summary["mean"] == pytest.approx(0.4)  # (0.2 + 0.4 + 0.6) / 3
    assert summary["sd"] == pytest.approx(0.2)  # sqrt(((-0.2)^2 + 0^2 + 0.2^2) / (3 - 1)) = sqrt(0.04)
    assert summary["runs"] == 3
    assert (summary["n_samples"], summary["n_pairs"]) == (9, 9)  # totals over runs: 3 x 3
    assert 0.2 <= summary["ci_low"] <= summary["mean"] <= summary["ci_high"] <= 0.6


def test_the_ci_is_seeded_and_reproducible():
    first = summary_frame(per_run_frame(THREE_RUNS), seed=7, n_bootstrap=500)
    second = summary_frame(per_run_frame(THREE_RUNS), seed=7, n_bootstrap=500)
    expected = summarise_runs([[0.2], [0.4], [0.6]], n_bootstrap=500, seed=7)
    assert first[["ci_low", "ci_high"]].values.tolist() == second[["ci_low", "ci_high"]].values.tolist()
    assert (first.loc[0, "ci_low"], first.loc[0, "ci_high"]) == (expected.ci_low, expected.ci_high)


def test_a_run_with_two_groups_of_one_condition_weighs_them_by_their_pairs():
    rows = [row(4, 0.1, n_pairs=1, n_samples=2), row(4, 0.4, n_pairs=2, n_samples=3)]
    [summary] = summary_frame(per_run_frame(rows)).to_dict(orient="records")
    assert summary["mean"] == pytest.approx(0.3)  # (0.1 x 1 + 0.4 x 2) / 3 = 0.9 / 3
    assert summary["runs"] == 1 and math.isnan(summary["sd"])  # one run: no sd
    assert summary["ci_low"] == summary["ci_high"] == pytest.approx(0.3)


def test_each_scorer_and_condition_gets_its_own_row_with_explicit_written_true_or_false():
    rows = THREE_RUNS + [row(1, 0.9, scorer="kendall"), row(1, 0.3, variant="anonymised", explicit=False)]
    report = build(rows, n_bootstrap=200)
    assert list(report.summary.columns) == SUMMARY_COLUMNS
    assert list(zip(report.summary["variant"], report.summary["scorer"])) == [
        ("anonymised", "bs"), ("explicit", "bs"), ("explicit", "kendall")]
    text = report.summary.to_csv(index=False)
    assert ",anonymised,0,,False,0.2,1,bs," in text and ",explicit,0,,True,0.2,1,bs," in text


def test_groups_without_pairs_are_left_out_of_the_summary():
    assert summary_frame(per_run_frame([row(1, 0.0, n_pairs=0, n_samples=1)])).empty


BOARD = [
    # level 0 at T = 0.2: run 1 (0.2, 0.4), run 2 (0.6, 0.8)
    row(1, 0.2), row(1, 0.4, variant="anonymised", explicit=False),
    row(2, 0.6), row(2, 0.8, variant="anonymised", explicit=False),
    # level 0 at T = 1.0: one run
    row(1, 0.9, temperature=1.0),
    # level 1 at T = 0: run 1 (0.1, 0.3), run 2 (0.2)
    row(1, 0.1, variant="paraphrase", level=1, temperature=0.0),
    row(1, 0.3, variant="restructured", level=1, temperature=0.0),
    row(2, 0.2, variant="paraphrase", level=1, temperature=0.0),
    # level 2 at T = 0 and 0.2: one run
    row(1, 0.7, variant="changed-setting", level=2, temperature=0.0),
    row(1, 0.9, variant="changed-setting", level=2, temperature=0.2),
]


def test_the_boxes_hold_the_level_0_group_means_per_model_and_temperature():
    boxes = box_frame(per_run_frame(BOARD), n_bootstrap=200)
    assert boxes["temperature"].tolist() == [0.2, 1.0]  # the level-1/2 groups are not in the boxes
    low = boxes.iloc[0]
    assert (low["groups"], low["runs"]) == (4, 2)
    # numpy's linear quartiles of 0.2, 0.4, 0.6, 0.8: position 0.75 -> 0.2 + 0.75 x 0.2 = 0.35;
    # 1.5 -> 0.5; 2.25 -> 0.6 + 0.25 x 0.2 = 0.65
    assert (low["min"], low["q1"], low["median"], low["q3"], low["max"]) == pytest.approx((0.2, 0.35, 0.5, 0.65, 0.8))
    assert low["mean"] == pytest.approx(0.5)  # run means 0.3 and 0.7: (0.3 + 0.7) / 2
    assert low["sd"] == pytest.approx(math.sqrt(0.08))  # ((-0.2)^2 + 0.2^2) / 1


def test_the_temperature_curve_is_the_mean_over_runs_per_temperature():
    curve = curve_frame(per_run_frame(BOARD), n_bootstrap=200)
    assert curve["temperature"].tolist() == [0.2, 1.0]
    assert curve["mean"].tolist() == pytest.approx([0.5, 0.9])
    assert curve.loc[1, "runs"] == 1 and curve.loc[1, "ci_low"] == curve.loc[1, "ci_high"] == pytest.approx(0.9)


def test_the_bands_pool_each_ablation_level_over_its_variants_and_temperatures():
    bands = band_frame(per_run_frame(BOARD), n_bootstrap=200)
    one, two = bands.to_dict(orient="records")
    assert (one["level"], one["variants"], one["temperatures"]) == (1, "paraphrase, restructured", "0")
    assert one["mean"] == pytest.approx(0.2)  # run 1: (0.1 + 0.3) / 2 = 0.2, run 2: 0.2
    assert one["sd"] == pytest.approx(0.0) and one["ci_low"] == one["ci_high"] == pytest.approx(0.2)
    assert (two["level"], two["temperatures"], two["groups"], two["runs"]) == (2, "0, 0.2", 2, 1)
    assert two["mean"] == pytest.approx(0.8)  # one run: (0.7 + 0.9) / 2


def test_empty_rows_make_empty_frames():
    report = build([])
    assert report.per_run.empty and report.summary.empty and list(report.summary.columns) == SUMMARY_COLUMNS
    assert box_frame(report.per_run).empty and band_frame(report.per_run).empty


def test_the_scored_span_cuts_the_answer_around_its_recommendations():
    answer = "Intro.\nRECOMMENDATIONS: Board the ship.\nREASONING: Because."
    span = scored_span(answer)
    assert (span.before, span.scored, span.after) == ("Intro.\nRECOMMENDATIONS: ", "Board the ship.",
                                                      "\nREASONING: Because.")
    assert span.before + span.scored + span.after == answer and span.section_found


def test_the_scored_span_leaves_markdown_around_the_labels_outside():
    span = scored_span("**RECOMMENDATIONS:** Do X.\n\n**REASONING:** Y", SectionSpec("RECOMMENDATIONS", "REASONING"))
    assert (span.before, span.scored) == ("**RECOMMENDATIONS:** ", "Do X.")


def test_an_answer_without_the_section_is_not_cut():
    span = scored_span("I recommend patience.")
    assert (span.before, span.scored, span.after, span.section_found) == ("I recommend patience.", "", "", False)


def test_the_divergent_pairs_are_the_largest_and_smallest_values_in_row_major_order():
    # n = 3: pairs (0, 1), (0, 2), (1, 2) hold 0.5, 0.1, 0.9
    most, least = divergent_pairs([0.5, 0.1, 0.9], 3)
    assert (most.pair, most.first, most.second, most.value) == (2, 1, 2, 0.9)
    assert (least.pair, least.first, least.second, least.value) == (1, 0, 2, 0.1)
    assert divergent_pairs([0.5, 0.1], 3) is None  # two values for three pairs: not readable


def test_csv_temperatures_are_written_as_the_conditions_name_them():
    from crisis_app.report import for_csv

    frame = per_run_frame([row(1, 0.2, temperature=0.2), row(1, 0.2, temperature=1.0, variant="x")])
    assert for_csv(frame)["temperature"].tolist() == ["0.2", "1"]
    assert frame["temperature"].tolist() == [0.2, 1.0]  # the frame itself is left as it was


def test_a_condition_without_a_temperature_keeps_its_row():
    from crisis_app.report import for_csv

    rows = [row(1, 0.2, temperature=float("nan")), row(2, 0.4, temperature=float("nan"))]
    summary = summary_frame(per_run_frame(rows), n_bootstrap=100)
    assert len(summary) == 1 and summary.loc[0, "mean"] == pytest.approx(0.3)  # (0.2 + 0.4) / 2
    assert for_csv(summary)["temperature"].tolist() == [""]
