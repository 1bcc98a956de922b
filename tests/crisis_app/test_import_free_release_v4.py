"""import_free_runs on tests/data/free_release_v4, a tiny tree in the exact shapes of the
release's logging/outputs/v4 and logging/chats/v4 (texts written for the tests): every
class the release holds, and the report reproducing the release's own per-run means."""

import csv
import io
import shutil
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from benchmarks_app.models import Question
from crisis_app import preview
from crisis_app.models import CrisisQuestion, GroupScore, Simulation, Variant
from runs_app.models import LLMModel, Response, Run

pytestmark = pytest.mark.django_db

DATA = Path(__file__).resolve().parents[1] / "data" / "free_release_v4"
TREE, CHATS = DATA / "outputs" / "v4", DATA / "chats" / "v4"


def run(*args):
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def turns(path: Path) -> list[list[str]]:
    with path.open(newline="", encoding="utf-8") as file:
        return list(csv.reader(file))[1:]


def test_every_file_is_imported_or_left_out_with_its_reason():
    out = run("import_free_runs", str(TREE))
    summary = out.splitlines()[-1]
    # runs: 3.5turbo free 2 + 1 fixed + 1 status quo, beta 1 (its run2 has an empty answer), rank 1 + 1 reversed = 7
    assert summary == (
        "imported 7 runs, 42 responses, 13 imported scores into 'free-release'; 6 conversations read; already imported "
        "0; left out: 6 files (flaw (see the flaws): 2, conversation superseded by chat_fixed.csv: 1, conversation "
        "without a continuation in its path: 1, outside a run folder of the layout: 1, prevs/: a run set aside for its "
        "_fixed twin: 1); 1 flaw(s); 26 files in all")
    # 26 files = 7 run CSVs + 7 archives + 6 conversations read + 6 left out
    assert out.splitlines()[0] == ("beta/free/revisionist/beta-free-True-3-1.0/main/run2/run2.csv:3:Response 2: empty "
                                   "answer: fill it in or leave this run out")
    assert ("gpt3.5turbo/free/revisionist/gpt3.5turbo-free-False-3-1.0/prevs/run1.csv: left out: prevs/: a run set "
            "aside for its _fixed twin") in out
    assert ("gpt3.5turbo/rank/revisionist/gpt3.5turbo-rank-False-3-1.0/run1.csv: left out: outside a run folder of "
            "the layout") in out
    assert ("../../chats/v4/gpt3.5turbo/free/revisionist/gpt3.5turbo-free-False-3-1.0/chat.csv: left out: "
            "conversation superseded by chat_fixed.csv") in out
    # 13 scores: 5 free runs x 2 moves + 1 rank run x 2 + the reversed run's move 1 only (a NaN in move 2)
    assert ("kendall_move2 value(s) 2 of 3 are NaN (the release's own mean is NaN): move 2 of this run gets no "
            "imported score") in out
    assert Run.objects.count() == 7 and not Run.objects.filter(
        selection__imported__path="beta/free/revisionist/beta-free-True-3-1.0/main/run2/run2.csv").exists()


def test_names_are_kept_as_the_release_writes_them_and_move_labels_are_read():
    run("import_free_runs", str(TREE))
    model = LLMModel.objects.get(name="gpt3.5turbo")
    first = Run.objects.get(selection__imported__path="gpt3.5turbo/free/revisionist/gpt3.5turbo-free-True-3-1.0/"
                                                      "main/run1/run1.csv")
    assert list(first.llm_models.all()) == [model]
    move2 = Response.objects.filter(run=first, question__crisis__move=2).order_by("repeat")
    assert move2[0].raw_output.startswith("RECOMMENDATIONS: gpt3.5turbo answer 1, move 2, r1, with a comma.\n")


def test_rank_and_reversed_runs_are_ranked_variants_with_kendall_scores():
    run("import_free_runs", str(TREE))
    rank = Variant.objects.get(name="rank-explicit")
    reversed_ = Variant.objects.get(name="rank-reversed-explicit")
    assert (rank.answer_kind, rank.level) == ("ranked", 0)
    assert (reversed_.answer_kind, reversed_.level, reversed_.ablation) == ("ranked", 1, "options in reverse order")
    scores = GroupScore.objects.filter(question__crisis__variant=rank).select_related("scorer", "question__crisis")
    assert {s.scorer.name for s in scores} == {"imported-kendall"}
    by_move = {s.question.crisis.move: s for s in scores}
    # move 1 orders (1,2,3), (1,2,3), (2,1,3): pairs 0, 1/3, 1/3 -> mean 2/9
    assert by_move[1].pair_values == pytest.approx([0, 1 / 3, 1 / 3]) and by_move[1].mean == pytest.approx(2 / 9)
    reversed_scores = GroupScore.objects.filter(question__crisis__variant=reversed_)
    assert [s.question.crisis.move for s in reversed_scores] == [1]


def test_the_conversations_are_what_the_questions_ask():
    run("import_free_runs", str(TREE))
    chat = turns(CHATS / "gpt3.5turbo/free/revisionist/gpt3.5turbo-free-True-3-1.0/chat.csv")
    explicit = CrisisQuestion.objects.select_related("question").get(variant__name="explicit", move=1)
    assert explicit.system_text == chat[0][1] and explicit.question.text == chat[1][1].rstrip()
    revisionist = CrisisQuestion.objects.select_related("question").get(variant__name="explicit", move=2,
                                                                        continuation__name="revisionist")
    assert revisionist.question.text == chat[3][1].rstrip()
    status_quo = turns(TREE / "gpt3.5turbo/free/status_quo/gpt3.5turbo-free-True-3-1.0/main/chat.csv")
    assert CrisisQuestion.objects.get(variant__name="explicit", move=2, continuation__name="status_quo"
                                      ).question.text == status_quo[3][1].rstrip()
    fixed = turns(CHATS / "gpt3.5turbo/free/revisionist/gpt3.5turbo-free-False-3-1.0/chat_fixed.csv")
    assert CrisisQuestion.objects.get(variant__name="anonymised", move=2, continuation__name="revisionist"
                                      ).question.text == fixed[3][1]
    reversed_chat = turns(TREE / "gpt3.5turbo/rank/revisionist/reversed/gpt3.5turbo-rank-True-3-1.0/main/chat.csv")
    assert CrisisQuestion.objects.get(variant__name="rank-reversed-explicit", move=1).question.text == \
        reversed_chat[1][1].rstrip()
    # The console's preview shows the same turns.
    simulation = Simulation.objects.get(key="release")
    variant = Variant.objects.get(name="rank-reversed-explicit")
    shown = preview.variant_preview(variant.name, simulation.texts(), ["revisionist"], variant.replacements,
                                    variant.text_overrides, variant.answer_kind, simulation.ranked_options)
    assert shown.errors == []
    assert [t.content for t in shown.turns if t.role != "assistant"] == [
        reversed_chat[0][1], reversed_chat[1][1].rstrip(), reversed_chat[3][1].rstrip()]


def test_strict_refuses_the_whole_tree_on_a_flaw_and_a_second_import_adds_nothing():
    with pytest.raises(CommandError, match=r"^1 flaw\(s\); nothing was imported$"):
        run("import_free_runs", str(TREE), "--strict")
    assert not Run.objects.exists()
    run("import_free_runs", str(TREE))
    counts = (Run.objects.count(), Response.objects.count(), GroupScore.objects.count(), Question.objects.count())
    out = run("import_free_runs", str(TREE))
    assert (Run.objects.count(), Response.objects.count(), GroupScore.objects.count(),
            Question.objects.count()) == counts
    assert out.splitlines()[-1].startswith("imported 0 runs, 0 responses, 0 imported scores into 'free-release'; 6 "
                                           "conversations read; already imported 7;")


def test_the_chats_tree_can_be_given_or_found_beside_the_outputs(tmp_path):
    root = tmp_path / "logs"
    shutil.copytree(TREE, root / "run-tree")
    out = run("import_free_runs", str(root / "run-tree"))
    assert "; 2 conversations read;" in out  # only the two main/chat.csv
    Run.objects.all().delete()
    out = run("import_free_runs", str(root / "run-tree"), "--chats", str(CHATS), "--benchmark", "other")
    assert "; 6 conversations read;" in out


def _release_means(kind: str, array: str) -> dict:
    """Per (model, continuation, explicit, move): the mean over runs of each run's mean of the
    release's npz values, computed here straight from the files (numpy, as the authors)."""
    means = defaultdict(list)
    for archive in sorted(TREE.rglob(f"*_{'berts' if kind == 'free' else 'ranks'}.npz")):
        relative = archive.relative_to(TREE).parts
        if relative[1] != kind or "reversed" in relative or archive.parent.name == "run2" and relative[0] == "beta":
            continue  # beta's run2 is the flawed run: left out
        explicit = archive.parts[-4].split("-")[2] == "True"
        with np.load(archive) as values:
            for move in (1, 2):
                run_mean = values[array.format(move=move)].mean()
                if not np.isnan(run_mean):
                    means[(relative[0], relative[2], explicit, move)].append(float(run_mean))
    return {key: float(np.mean(values)) for key, values in means.items()}


@pytest.mark.parametrize("kind, array, scorer, variant", [("free", "move{move}", "imported", ("explicit", "anonymised")),
                                                          ("rank", "kendall_move{move}", "imported-kendall",
                                                           ("rank-explicit", "rank-anonymised"))])
def test_the_report_reproduces_the_release_s_own_means(tmp_path, kind, array, scorer, variant):
    run("import_free_runs", str(TREE))
    call_command("inconsistency_report", "--scorer", scorer, "--out", str(tmp_path / "r.csv"), "--iterations", "10",
                 stderr=io.StringIO())
    with (tmp_path / "r.csv").open(newline="", encoding="utf-8") as file:
        rows = [row for row in csv.DictReader(file) if row["variant"] in variant]
    reported = {(r["model"], r["continuation"], r["explicit"] == "True", int(r["move"])): float(r["mean"])
                for r in rows}
    expected = _release_means(kind, array)
    assert expected and set(reported) == set(expected)
    for key, value in expected.items():
        assert round(reported[key], 3) == round(value, 3), key
    if kind == "free":
        # hand-checked: gpt3.5turbo explicit revisionist move 1: run1 (0.1+0.2+0.3)/3 = 0.2, run2 0.3 -> 0.25
        assert reported[("gpt3.5turbo", "revisionist", True, 1)] == pytest.approx(0.25, abs=1e-6)
