"""import_free_runs on the release-shaped tree in tests/data/free_release and on broken
copies of it: runs, responses with move 2 following move 1, imported scores, atomicity."""

import csv
import io
import shutil
from pathlib import Path

import numpy as np
import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from benchmarks_app.models import Benchmark, Condition, Question
from crisis_app import services
from crisis_app.models import Continuation, GroupScore, Scorer, Simulation, Variant
from encoding_app.models import Code, ReviewTask
from runs_app.models import LLMModel, Response, Run

pytestmark = pytest.mark.django_db

TREE = Path(__file__).resolve().parents[1] / "data" / "free_release"
RUN1 = "alpha-7b/free/status_quo/alpha-7b-free-True-3-0.2/main/run1/run1.csv"


def run(*args):
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def counts():
    return (Benchmark.objects.count(), Run.objects.count(), Response.objects.count(), GroupScore.objects.count(),
            LLMModel.objects.count(), Condition.objects.count(), Question.objects.count())


def test_the_tree_imports_as_five_finished_runs_with_their_answers_and_scores():
    out = run("import_free_runs", str(TREE))
    assert "imported 5 runs, 30 responses, 2 imported scores into 'free-release'; 0 conversations read; already " \
           "imported 0; left out: 4 files (in a run folder but not the run's CSV or score archive: 2, " \
           "outside a run folder of the layout: 1, replaced by its _fixed run: 1); 0 flaw(s); 10 files in all" in out
    assert ("alpha-7b/free/status_quo/alpha-7b-free-True-3-0.2/main/run2/run2.csv: left out: replaced by its _fixed "
            "run (alpha-7b/free/status_quo/alpha-7b-free-True-3-0.2/main/run2_fixed/run2_fixed.csv)") in out
    benchmark = Benchmark.objects.get(name="free-release")
    simulation = Simulation.objects.get(benchmark=benchmark)
    assert benchmark.family == "freeform" and simulation.key == "release" and simulation.title == "Imported release"
    assert simulation.background.startswith("The prompts are not in the release")
    assert sorted(simulation.continuations.values_list("name", flat=True)) == ["revisionist", "status_quo"]
    assert sorted(simulation.variants.values_list("name", "level", "explicit")) == [
        ("anonymised", 0, False), ("explicit", 0, True)]
    # 2 variants x (move 1 + move 2 per continuation) = 2 x 3 = 6 questions
    assert Question.objects.filter(benchmark=benchmark, is_current=True).count() == 6

    runs = Run.objects.filter(benchmark=benchmark)
    assert runs.count() == 5 and set(runs.values_list("status", flat=True)) == {"done"}
    assert Response.objects.filter(run__in=runs, status="done").count() == 30  # 5 runs x 2 moves x 3 samples
    for model in LLMModel.objects.filter(name__in=["alpha-7b", "beta-chat"]):
        assert model.is_external and model.litellm_model == f"imported/{model.name}"

    first = runs.get(note=f"imported: {RUN1}")
    assert first.selection == {"imported": {"path": RUN1, "continuation": "status_quo", "run": 1, "fixed": False,
                                            "explicit": True, "samples": 3, "temperature": 0.2,
                                            "scores": RUN1.replace(".csv", "_berts.npz")}}
    assert first.repeats == 3 and list(first.llm_models.values_list("name", flat=True)) == ["alpha-7b"]
    assert list(first.conditions.values_list("name", flat=True)) == ["t0-2"]
    fixed = runs.get(selection__imported__run=2)
    assert fixed.selection["imported"]["fixed"] is True
    assert fixed.selection["imported"]["path"].endswith("run2_fixed/run2_fixed.csv")


def test_move_2_follows_the_same_sample_s_move_1_and_temperatures_come_from_conditions():
    run("import_free_runs", str(TREE))
    first = Run.objects.get(note=f"imported: {RUN1}")
    move1 = list(Response.objects.filter(run=first, question__crisis__move=1).order_by("repeat"))
    move2 = list(Response.objects.filter(run=first, question__crisis__move=2).order_by("repeat"))
    assert [r.repeat for r in move1] == [0, 1, 2] and [r.previous_id for r in move2] == [r.pk for r in move1]
    assert all(r.previous_id is None for r in move1)
    assert {r.question.crisis.variant.name for r in move1 + move2} == {"explicit"}
    assert {r.question.crisis.continuation.name for r in move2} == {"status_quo"}
    assert move1[0].raw_output.startswith('RECOMMENDATIONS: 1. Keep the frigate "Vigilant" on station, five')
    assert move1[0].raw_output.endswith("(Sample 1 [alpha-7b, status_quo, run1])")
    assert move2[1].raw_output.endswith("(Sample 2 [alpha-7b, status_quo, run1])")
    assert all(r.messages == [] and r.answered_at is not None and r.params == {"temperature": 0.2}
               for r in move1 + move2)

    anonymised = Run.objects.get(selection__imported__path__startswith="beta-chat/free/status_quo/")
    responses = Response.objects.filter(run=anonymised).select_related("condition", "question__crisis__variant")
    assert {r.question.crisis.variant.name for r in responses} == {"anonymised"}
    assert {r.condition.name for r in responses} == {"t0-2"} and responses[0].condition.temperature == 0.2
    hot = Response.objects.filter(run__selection__imported__path__startswith="alpha-7b/free/revisionist/")
    assert {r.condition.name for r in hot} == {"t1-0"} and hot[0].condition.temperature == 1.0
    assert {r.question.crisis.continuation.name for r in hot.filter(question__crisis__move=2)} == {"revisionist"}


def test_the_release_s_pairwise_values_become_imported_scores():
    run("import_free_runs", str(TREE))
    first = Run.objects.get(note=f"imported: {RUN1}")
    scorer = Scorer.objects.get(name="imported")
    assert scorer.kind == "imported" and "run<k>_berts.npz" in scorer.config["source"]
    scores = {s.question.crisis.move: s for s in GroupScore.objects.filter(run=first).select_related("question__crisis")}
    assert sorted(scores) == [1, 2] and GroupScore.objects.count() == 2
    assert scores[1].pair_values == [0.1, 0.2, 0.3] and scores[1].mean == pytest.approx(0.2)  # (0.1+0.2+0.3)/3
    assert scores[2].mean == pytest.approx(0.6)  # (0.4+0.5+0.9)/3 = 1.8/3
    for move, score in scores.items():
        samples = Response.objects.filter(run=first, question__crisis__move=move).order_by("repeat")
        assert score.response_ids == [r.pk for r in samples]
        assert (score.n_samples, score.n_pairs, score.sections_missing) == (3, 3, 0)
        assert score.model.name == "alpha-7b" and score.condition.name == "t0-2" and score.scorer == scorer


def test_importing_the_tree_again_imports_nothing_new():
    run("import_free_runs", str(TREE))
    before = counts()
    out = run("import_free_runs", str(TREE))
    assert counts() == before
    assert f"{RUN1}: skipped: already imported into 'free-release'" in out
    assert "imported 0 runs, 0 responses, 0 imported scores into 'free-release'; 0 conversations read; already " \
           "imported 5; left out: 4 files" in out


def test_a_new_run_in_the_tree_is_all_a_second_import_adds(tmp_path):
    root = tmp_path / "tree"
    shutil.copytree(TREE, root)
    run("import_free_runs", str(root))
    shutil.copytree(root / RUN1.rsplit("/", 2)[0] / "run1", root / RUN1.rsplit("/", 2)[0] / "run3")
    folder = root / RUN1.rsplit("/", 2)[0] / "run3"
    (folder / "run1.csv").rename(folder / "run3.csv")
    (folder / "run1_berts.npz").unlink()
    out = run("import_free_runs", str(root))
    assert "imported 1 runs, 6 responses, 0 imported scores" in out
    assert Run.objects.count() == 6 and Run.objects.filter(selection__imported__run=3).count() == 1


def test_a_run_s_answers_are_written_and_passed_to_the_encoder_in_a_few_statements(tmp_path):
    # The import's speed: one insert per move, and the encoder reads the run's answer ids
    # and their questions' options once (free-form questions have none: nothing to code),
    # where it used to read each answer in a transaction of its own (~0.5 s a run of 40).
    root = tmp_path / "tree"
    shutil.copytree(TREE, root)
    run("import_free_runs", str(root))
    folder = root / RUN1.rsplit("/", 2)[0] / "run3"
    shutil.copytree(root / RUN1.rsplit("/", 2)[0] / "run1", folder)
    (folder / "run1.csv").rename(folder / "run3.csv")
    (folder / "run1_berts.npz").rename(folder / "run3_berts.npz")
    with CaptureQueriesContext(connection) as statements:
        out = run("import_free_runs", str(root))
    assert "imported 1 runs, 6 responses, 2 imported scores" in out
    on_responses = [q["sql"] for q in statements.captured_queries
                    if '"runs_app_response"' in q["sql"] and '"run_id"' in q["sql"]]
    assert [sql.split()[0] for sql in on_responses] == ["INSERT", "INSERT", "SELECT"]  # move 1, move 2, the ids
    assert not [q for q in statements.captured_queries if "encoding_app_" in q["sql"]]
    assert not Code.objects.exists() and not ReviewTask.objects.exists()


def test_a_broken_tree_reports_every_flaw_and_writes_nothing(tmp_path):
    root = tmp_path / "tree"
    shutil.copytree(TREE, root)
    # 1. a folder whose explicit flag is no boolean
    main = root / "beta-chat/free/revisionist"
    (main / "beta-chat-free-True-3-1.0").rename(main / "beta-chat-free-Yes-3-1.0")
    # 2. an empty answer in a multi-line file
    path = root / "alpha-7b/free/revisionist/alpha-7b-free-False-3-1.0/main/run1/run1.csv"
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"), newline="")))
    rows[1][1] = "  "
    with path.open("w", encoding="utf-8", newline="") as file:
        csv.writer(file, lineterminator="\n").writerows(rows)
    # 3. pairwise values of the wrong length
    np.savez(root / RUN1.replace(".csv", "_berts.npz"), move1=np.ones(3), move2=np.ones(4))
    before = counts()
    with pytest.raises(CommandError, match=r"^3 flaw\(s\); nothing was imported$"):
        run("import_free_runs", str(root), "--strict")
    assert counts() == before
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("import_free_runs", str(root), "--strict", stdout=out)
    assert out.getvalue().splitlines() == [
        "beta-chat/free/revisionist/beta-chat-free-Yes-3-1.0/main/run1/run1.csv: part 4: explicit 'Yes' is neither "
        "True nor False",
        "alpha-7b/free/revisionist/alpha-7b-free-False-3-1.0/main/run1/run1.csv:2:Response 1: empty answer: fill it "
        "in or leave this run out",
        "alpha-7b/free/status_quo/alpha-7b-free-True-3-0.2/main/run1/run1_berts.npz: move2 has 4 values where 3 "
        "samples make 3 pairs (n(n-1)/2)",
    ]


def test_without_strict_a_flawed_run_is_left_out_and_the_others_imported(tmp_path):
    root = tmp_path / "tree"
    shutil.copytree(TREE, root)
    np.savez(root / RUN1.replace(".csv", "_berts.npz"), move1=np.ones(3), move2=np.ones(4))
    out = run("import_free_runs", str(root))
    assert out.splitlines()[0] == ("alpha-7b/free/status_quo/alpha-7b-free-True-3-0.2/main/run1/run1_berts.npz: move2 "
                                   "has 4 values where 3 samples make 3 pairs (n(n-1)/2)")
    assert f"{RUN1}: left out: flaw (see the flaws)" in out
    assert "imported 4 runs, 24 responses, 0 imported scores" in out and "; 1 flaw(s);" in out
    assert not Run.objects.filter(selection__imported__path=RUN1).exists() and Run.objects.count() == 4


def test_a_dry_run_reports_and_writes_nothing():
    before = counts()
    out = run("import_free_runs", str(TREE), "--dry-run")
    assert counts() == before
    assert f"would import {RUN1}: alpha-7b, status_quo, explicit, t0-2, 3 samples: 6 responses, 2 imported " \
           "scores" in out
    assert "would create benchmark 'free-release'" in out and "would create external model(s): alpha-7b, beta-chat" in out
    assert out.rstrip().startswith("would import ") and out.rstrip().endswith(
        "would import 5 runs, 30 responses, 2 imported scores into 'free-release'; 0 conversations read; already "
        "imported 0; left out: 4 files (in a run folder but not the run's CSV or score archive: 2, outside a run "
        "folder of the layout: 1, replaced by its _fixed run: 1); 0 flaw(s); 10 files in all; dry run: nothing was written")


def test_an_existing_benchmark_is_used_and_a_missing_continuation_is_a_flaw(tmp_path):
    simulation = services.load_sample("crisis-sample")
    root = tmp_path / "tree"
    shutil.copytree(TREE, root)
    (root / "alpha-7b/free/revisionist").rename(root / "alpha-7b/free/collapse")
    before = counts()
    out = io.StringIO()
    with pytest.raises(CommandError, match="1 flaw"):
        call_command("import_free_runs", str(root), "--benchmark", "crisis-sample", "--strict", stdout=out)
    assert out.getvalue().splitlines() == [
        "benchmark 'crisis-sample': simulation 'northern-cable-crisis' has no continuation named 'collapse' (met in "
        "alpha-7b/free/collapse/alpha-7b-free-False-3-1.0/main/run1/run1.csv): add it to the simulation in the "
        "console (saving syncs its questions), or import into a new --benchmark"]
    assert counts() == before

    (root / "alpha-7b/free/collapse").rename(root / "alpha-7b/free/revisionist")
    run("import_free_runs", str(root), "--benchmark", "crisis-sample")
    explicit = Variant.objects.get(simulation=simulation, name="explicit")
    responses = Response.objects.filter(run__benchmark__name="crisis-sample", run__selection__imported__explicit=True)
    # The sample's level-0 free variants; not its ranked one, which is also level 0 and explicit.
    assert {r.question.crisis.variant_id for r in responses} == {explicit.pk}
    assert Continuation.objects.filter(simulation=simulation).count() == 2
    assert not Benchmark.objects.filter(name="free-release").exists()


def test_a_benchmark_of_another_family_is_refused():
    Benchmark.objects.create(name="cfpd-one", family="cfpd")
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("import_free_runs", str(TREE), "--benchmark", "cfpd-one", stdout=out)
    assert out.getvalue().startswith("benchmark 'cfpd-one' is a CFPD scenarios benchmark: name a free-form one")
    assert not Run.objects.exists()


def test_a_missing_temperature_condition_is_created():
    Condition.objects.filter(name="t1-0").delete()
    out = run("import_free_runs", str(TREE))
    assert "created condition(s): t1-0" in out
    condition = Condition.objects.get(name="t1-0")
    assert (condition.kind, condition.family, condition.temperature) == ("temperature", "freeform", 1.0)


def test_a_temperature_that_no_condition_name_can_hold_is_a_flaw(tmp_path):
    root = tmp_path / "tree"
    shutil.copytree(TREE, root)
    folder = root / "beta-chat/free/status_quo"
    (folder / "beta-chat-free-False-3-0.2").rename(folder / "beta-chat-free-False-3-0.25")
    out = io.StringIO()
    with pytest.raises(CommandError, match="1 flaw"):
        call_command("import_free_runs", str(root), "--strict", stdout=out)
    assert out.getvalue().splitlines() == [
        "beta-chat/free/status_quo/beta-chat-free-False-3-0.25/main/run1/run1.csv: temperature 0.25 has more than one "
        "decimal; conditions name temperatures to one decimal (t0-2)"]
    assert not Run.objects.exists()


def test_a_benchmark_name_that_is_no_slug_is_refused():
    with pytest.raises(CommandError, match="^--benchmark: 'free release' may use only letters"):
        run("import_free_runs", str(TREE), "--benchmark", "free release")
