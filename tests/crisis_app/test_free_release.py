"""crisis_app.free_release: the release's paths, CSVs and npz archives read without a
database, every flaw with its place and its fix."""

import io
import shutil
from pathlib import Path

import numpy as np
import pytest

from crisis_app.free_release import (
    RunPath, pair_count, parse_run_path, read_answers, read_inconsistencies, read_release,
)

TREE = Path(__file__).resolve().parents[1] / "data" / "free_release"
RUN1 = "alpha-7b/free/status_quo/alpha-7b-free-True-3-0.2/main/run1/run1.csv"
HEADER = "Move Number,Response 1,Response 2,Response 3\n"


def npz(**arrays) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


# ---------------------------------------------------------------- paths

def test_a_path_in_the_layout_names_model_continuation_telling_and_sampling():
    path, flaws = parse_run_path("gpt-4o-mini/free/revisionist/gpt-4o-mini-free-False-20-1.2/main/run7_fixed/"
                                 "run7_fixed.csv")
    assert flaws == []
    assert path == RunPath(relative="gpt-4o-mini/free/revisionist/gpt-4o-mini-free-False-20-1.2/main/run7_fixed/"
                                    "run7_fixed.csv",
                           model="gpt-4o-mini", continuation="revisionist", explicit=False, samples=20,
                           temperature=1.2, run=7, fixed=True)
    assert path.npz_relative.endswith("main/run7_fixed/run7_fixed_berts.npz")
    assert path.variant_folder == "gpt-4o-mini/free/revisionist/gpt-4o-mini-free-False-20-1.2/main"


def test_a_path_of_the_wrong_depth_names_the_layout():
    assert parse_run_path("m/free/status_quo/run1.csv") == (None, [
        "m/free/status_quo/run1.csv: 4 parts where the layout has 7 (8 with reversed/): move the file to "
        "<model>/<free|rank>/<continuation>/[reversed/]<model>-<free|rank>-<True|False>-<samples>-<temperature>/"
        "main/run<k>[_fixed]/run<k>[_fixed].csv"])


def test_each_bad_part_is_named_by_its_number():
    relative = "m/rank/status quo/m-rank-Yes-x-hot/mains/run1/run2.csv"
    path, flaws = parse_run_path(relative)
    assert path is None
    assert flaws == [
        f"{relative}: part 3 (continuation) 'status quo' may use only letters, digits, - and _: rename the folder",
        f"{relative}: part 4: explicit 'Yes' is neither True nor False",
        f"{relative}: part 4: samples 'x' is not a whole number of at least 1",
        f"{relative}: part 4: temperature 'hot' is not a number",
        f"{relative}: part 5 is 'mains' where the layout has 'main'",
        f"{relative}: part 7 'run2.csv' is not named as its folder: run1.csv",
    ]


def test_the_folder_must_repeat_the_model_and_hold_three_fields():
    _, flaws = parse_run_path("alpha/free/sq/beta-free-True-3-0.2/main/run1/run1.csv")
    assert flaws == ["alpha/free/sq/beta-free-True-3-0.2/main/run1/run1.csv: part 4 'beta-free-True-3-0.2' does not "
                     "begin with 'alpha-free-' (<model>-<free|rank>-<True|False>-<samples>-<temperature>, the model as in "
                     "part 1)"]
    _, flaws = parse_run_path("alpha/free/sq/alpha-free-True-3/main/run1/run1.csv")
    assert flaws == ["alpha/free/sq/alpha-free-True-3/main/run1/run1.csv: part 4 'alpha-free-True-3' has 2 field(s) "
                     "after 'alpha-free-' where the layout has 3: <True|False>-<samples>-<temperature>"]


def test_a_temperature_outside_zero_to_two_and_a_bad_run_folder_are_flaws():
    _, flaws = parse_run_path("a/free/sq/a-free-True-3-nan/main/first/first.csv")
    assert flaws == ["a/free/sq/a-free-True-3-nan/main/first/first.csv: part 4: temperature 'nan' is not between 0 "
                     "and 2",
                     "a/free/sq/a-free-True-3-nan/main/first/first.csv: part 6 'first' is not run<k> or run<k>_fixed"]


def test_pairs_are_n_times_n_minus_one_over_two():
    assert [pair_count(n) for n in (1, 2, 3, 20)] == [0, 1, 3, 190]  # 20*19/2 = 190


# ---------------------------------------------------------------- CSV

def test_it_reads_multi_line_cells_with_commas_and_quotes():
    text = (HEADER
            + '1,"RECOMMENDATIONS: Hold, and wait.\nREASONING: ""Calm"" helps.",B1,C1\n'
            + '2,A2,"line one\nline two, with a comma",C2\n')
    answers, flaws = read_answers("r.csv", text, 3)
    assert flaws == []
    assert answers == {1: ['RECOMMENDATIONS: Hold, and wait.\nREASONING: "Calm" helps.', "B1", "C1"],
                       2: ["A2", "line one\nline two, with a comma", "C2"]}


def test_a_header_with_other_samples_than_the_path_says():
    answers, flaws = read_answers("r.csv", "Move Number,Response 1,Response 2\n1,a,b\n2,c,d\n", 3)
    assert answers is None
    assert flaws == ["r.csv:1: 2 response column(s) where the path says 3 samples: rename the folder or fix the file"]


def test_a_header_that_is_not_the_release_s():
    _, flaws = read_answers("r.csv", ",Move Number,Response 1\n", 1)
    assert flaws == ["r.csv:1: the header must be Move Number, Response 1 … Response 1 (1 samples, as the path says); "
                     "found '', 'Move Number', 'Response 1'"]


def test_rows_are_records_so_a_flaw_after_a_multi_line_cell_names_the_right_row():
    text = HEADER + '1,"a\nb\nc",x,y\n3,p,q,r\n1,d,e,f\n'
    answers, flaws = read_answers("r.csv", text, 3)
    assert answers is None
    assert flaws == [
        "r.csv:3:Move Number: '3' is neither 1 nor 2 (nor Move 1 Responses, Move 2 Responses)",
        "r.csv:4:Move Number: move 1 again (first on row 2): keep one row per move",
        "r.csv: no row for move 2: add it",
    ]


def test_every_empty_answer_is_named_by_row_and_column():
    _, flaws = read_answers("r.csv", HEADER + "1,a, ,c\n2,,e,f\n", 3)
    assert flaws == ["r.csv:2:Response 2: empty answer: fill it in or leave this run out",
                     "r.csv:3:Response 1: empty answer: fill it in or leave this run out"]


def test_a_row_of_the_wrong_width_and_broken_quoting():
    _, flaws = read_answers("r.csv", HEADER + "1,a,b\n2,d,e,f\n", 3)
    assert flaws == ["r.csv:2: 3 cells where the header has 4", "r.csv: no row for move 1: add it"]
    _, flaws = read_answers("r.csv", HEADER + '1,"a\nb,c,d\n', 3)
    assert flaws == ["r.csv: not CSV (line 3: unexpected end of data): save it as comma-separated values, each "
                     "answer in double quotes"]
    _, flaws = read_answers("r.csv", HEADER + '1,"a"b,c,d\n', 3)
    assert flaws == ["r.csv: not CSV (line 2: ',' expected after '\"'): save it as comma-separated values, each "
                     "answer in double quotes"]


# ---------------------------------------------------------------- npz

def test_it_reads_the_pairwise_values_of_both_moves():
    values, flaws, _ = read_inconsistencies("b.npz", npz(move1=np.array([0.1, 0.2, 0.3]),
                                                      move2=np.array([0.4, 0.5, 0.9], dtype=np.float32)), 3)
    assert flaws == []
    assert values[1] == [0.1, 0.2, 0.3] and values[2] == pytest.approx([0.4, 0.5, 0.9])


def test_missing_arrays_wrong_lengths_and_nan_are_each_named():
    _, flaws, _ = read_inconsistencies("b.npz", npz(move1=np.array([0.1, 0.2])), 3)
    assert flaws == ["b.npz: move1 has 2 values where 3 samples make 3 pairs (n(n-1)/2)",
                     "b.npz: no array move2 (the archive has: move1): add it"]
    _, flaws, _ = read_inconsistencies("b.npz", npz(move1=np.array([0.1, np.inf, 0.3]),
                                                    move2=np.zeros((3, 3))), 3)
    assert flaws == ["b.npz: move1 value(s) 2 of 3 are infinite",
                     "b.npz: move2 has shape (3, 3); write one value per pair i < j (a flat array)"]


def test_a_move_with_nan_values_is_left_unscored_and_the_other_kept():
    # The release has such rank runs; its own mean of the move (m.mean()) is NaN.
    values, flaws, unscored = read_inconsistencies(
        "r_ranks.npz", npz(kendall_move1=np.array([0.0, 1 / 3, 1 / 3]), kendall_move2=np.array([0.5, np.nan, 0.1]),
                           spearman_move1=np.zeros(3)), 3, kind="rank")
    assert flaws == [] and values == {1: [0.0, 1 / 3, 1 / 3]}
    assert unscored == ["r_ranks.npz: kendall_move2 value(s) 2 of 3 are NaN (the release's own mean is NaN): move 2 "
                        "of this run gets no imported score"]


def test_a_file_that_is_no_npz_is_a_flaw():
    _, flaws, _ = read_inconsistencies("b.npz", b"move1,move2\n0.1,0.2\n", 3)
    assert len(flaws) == 1 and flaws[0].startswith("b.npz: not a readable npz archive (")


# ---------------------------------------------------------------- the tree

def test_the_sample_tree_reads_five_runs_and_the_fixed_run_replaces_its_twin():
    release = read_release(TREE)
    assert release.flaws == []
    assert [run.path.relative.split("/main/")[1] for run in release.runs] == [
        "run1/run1.csv", "run1/run1.csv", "run2_fixed/run2_fixed.csv", "run1/run1.csv", "run1/run1.csv"]
    assert [str(item) for item in release.left_out if item.reason == "replaced by its _fixed run"] == [
        "alpha-7b/free/status_quo/alpha-7b-free-True-3-0.2/main/run2/run2.csv: left out: replaced by its _fixed run "
        "(alpha-7b/free/status_quo/alpha-7b-free-True-3-0.2/main/run2_fixed/run2_fixed.csv)"]
    first = next(run for run in release.runs if run.path.relative == RUN1)
    assert first.inconsistencies == {1: [0.1, 0.2, 0.3], 2: [0.4, 0.5, 0.9]}
    assert first.answers[1][0].startswith('RECOMMENDATIONS: 1. Keep the frigate "Vigilant" on station, five')
    assert first.answers[1][0].count("\n") == 3
    assert all(run.inconsistencies is None for run in release.runs if run is not first)
    # run1_summary.csv, notes.txt and README.txt are not runs: left out, each with its reason.
    assert release.files == len(release.left_out) + len(release.runs) + 1  # + run1's npz


def test_a_tree_reports_every_flaw_of_every_file(tmp_path):
    root = tmp_path / "tree"
    shutil.copytree(TREE, root)
    (root / RUN1).write_bytes(HEADER.encode() + b"1,caf\xe9,b,c\n")
    folder = root / "beta-chat/free/status_quo/beta-chat-free-False-3-0.2/main"
    (folder / "run1").rename(folder / "run1 copy")
    (root / RUN1.replace("run1.csv", "run1_berts.npz")).write_bytes(npz(move1=np.ones(3)))
    release = read_release(root)
    assert release.flaws == [
        "beta-chat/free/status_quo/beta-chat-free-False-3-0.2/main/run1 copy/run1.csv: part 6 'run1 copy' is not "
        "run<k> or run<k>_fixed",
        "alpha-7b/free/status_quo/alpha-7b-free-True-3-0.2/main/run1/run1.csv: not UTF-8 text (line 2, byte 0xe9): "
        "save it as UTF-8",
    ]
    # The unreadable CSV leaves its npz unread; fixing the CSV shows the npz's flaw.
    (root / RUN1).write_text((TREE / RUN1).read_text(encoding="utf-8"), encoding="utf-8")
    assert read_release(root).flaws[1] == (
        "alpha-7b/free/status_quo/alpha-7b-free-True-3-0.2/main/run1/run1_berts.npz: no array move2 "
        "(the archive has: move1): add it")


def test_a_missing_directory_and_an_empty_one(tmp_path):
    assert read_release(tmp_path / "nowhere").flaws == [f"{tmp_path / 'nowhere'}: no such directory"]
    assert read_release(tmp_path).flaws[0].startswith(f"{tmp_path}: no run CSV in the layout ")


def test_an_npz_without_its_csv_is_a_flaw(tmp_path):
    folder = tmp_path / "m/free/sq/m-free-True-2-0.0/main/run3"
    folder.mkdir(parents=True)
    (folder / "run3_berts.npz").write_bytes(npz(move1=np.ones(1), move2=np.ones(1)))
    (tmp_path / "m/free/sq/m-free-True-2-0.0/main/run1").mkdir()
    (tmp_path / "m/free/sq/m-free-True-2-0.0/main/run1/run1.csv").write_text(
        "Move Number,Response 1,Response 2\n1,a,b\n2,c,d\n", encoding="utf-8")
    release = read_release(tmp_path)
    assert release.flaws == ["m/free/sq/m-free-True-2-0.0/main/run3/run3_berts.npz: no run3.csv beside it: add the "
                             "run's CSV or remove the file"]
    assert len(release.runs) == 1
