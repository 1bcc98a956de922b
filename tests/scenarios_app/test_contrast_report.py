"""`contrast_report`: contrasts read from the database (answers coded, tidy table by dyad),
figures checked by hand."""

import csv
import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from encoding_app.models import CodingPolicy
from runs_app.models import LLMModel, Response, Run
from runs_app.signals import responses_answered
from scenarios_app import services as authoring
from scenarios_app.models import Benchmark
from tests.factories import escalation_spec

pytestmark = pytest.mark.django_db

F, N = "Use of force", "No use of force"
COLUMNS = ["kind", "model", "domain", "choice_count", "category", "left", "right", "estimate", "ci_low", "ci_high",
           "p_value", "p_adjusted", "n_scenarios"]


def _answer(run, model, benchmark, choices):
    """choices: {(scenario key, qualified actor): letter}; A = No use of force, B = Use of force."""
    questions = {(q.cfpd.scenario.key, q.cfpd.actor_a.code): q
                 for q in benchmark.questions.select_related("cfpd__actor_a", "cfpd__scenario")}
    for key, letter in choices.items():
        response = Response.objects.create(run=run, question=questions[key], model=model, option_order=[0, 1],
                                           status="done", chosen_letter=letter)
        responses_answered.send(sender=Response, response_ids=[response.pk])


@pytest.fixture
def seeded():
    """Benchmark b: two two-option scenarios, each asked with US and CN advised against RU.

    hawk: s1 US force, CN no force; s2 US force, CN force.
    dove: no force everywhere.
    Another benchmark's answers (hawk, all force) must stay out of --benchmark b.
    """
    CodingPolicy.objects.update_or_create(pk=1, defaults={"double_coding_share": 0, "audit_share": 0})
    benchmark = Benchmark.objects.create(name="b")
    for key in ("s1", "s2"):
        authoring.save_spec(benchmark, escalation_spec(key=key, dyads=[("US", "RU"), ("CN", "RU")]))
    hawk = LLMModel.objects.create(name="hawk", litellm_model="openai/x", answer_mode="choice")
    dove = LLMModel.objects.create(name="dove", litellm_model="openai/x", answer_mode="choice")
    run = Run.objects.create(benchmark=benchmark, status="done")
    _answer(run, hawk, benchmark, {("s1", "US"): "B", ("s1", "CN"): "A", ("s2", "US"): "B", ("s2", "CN"): "B"})
    _answer(run, dove, benchmark, {("s1", "US"): "A", ("s1", "CN"): "A", ("s2", "US"): "A", ("s2", "CN"): "A"})
    other = Benchmark.objects.create(name="other")
    authoring.save_spec(other, escalation_spec(key="s9", dyads=[("US", "RU"), ("CN", "RU")]))
    _answer(Run.objects.create(benchmark=other, status="done"), hawk, other, {("s9", "US"): "B", ("s9", "CN"): "A"})
    return benchmark


def _report(*args):
    out, err = io.StringIO(), io.StringIO()
    call_command("contrast_report", *args, "--out", "-", stdout=out, stderr=err)
    return list(csv.DictReader(io.StringIO(out.getvalue()))), err.getvalue()


def _row(rows, **keys):
    found = [row for row in rows if all(row[k] == v for k, v in keys.items())]
    assert len(found) == 1, found
    return found[0]


def test_actor_contrasts_by_hand(seeded):
    rows, err = _report("--benchmark", "b", "--kind", "actor", "--iterations", "1000")
    assert list(rows[0]) == COLUMNS
    hawk = _row(rows, model="hawk", category=F)
    # hawk, Use of force, US minus CN: s1 1 - 0 = 1, s2 1 - 1 = 0 -> mean 0.5 = 50 points over 2 scenarios;
    # resample means 0, 0.5, 1 (probabilities 1/4, 1/2, 1/4) -> interval [0, 100];
    # one answer each: exact McNemar, 1 discordant pair -> p = 1
    assert (hawk["kind"], hawk["domain"], hawk["choice_count"], hawk["left"], hawk["right"]) == \
        ("actor", "Escalation", "2", "US", "CN")
    assert [float(hawk[c]) for c in ("estimate", "ci_low", "ci_high", "p_value")] == [50.0, 0.0, 100.0, 1.0]
    assert hawk["n_scenarios"] == "2"
    assert float(_row(rows, model="hawk", category=N)["estimate"]) == -50.0
    dove = _row(rows, model="dove", category=F)
    assert [float(dove[c]) for c in ("estimate", "ci_low", "ci_high", "p_value")] == [0.0, 0.0, 0.0, 1.0]
    assert len(rows) == 4 and "Benjamini" in err and "Miller" in err


def test_model_contrasts_by_hand(seeded):
    rows, _ = _report("--benchmark", "b", "--kind", "model", "--iterations", "1000")
    force = _row(rows, category=F)
    # dove minus hawk, Use of force: s1 0 - 1/2, s2 0 - 1 -> mean -0.75 = -75 points;
    # resample means -0.5, -0.75, -1 -> [-100, -50]; exact sign-flip on [-0.5, -1]: sums +-0.5 +-1 ->
    # 1.5, 0.5, -0.5, -1.5, two of four reach 1.5 -> p = 0.5; BH over the 2 contrasts (both 0.5): 0.5
    assert (force["kind"], force["model"], force["left"], force["right"]) == ("model", "", "dove", "hawk")
    assert [float(force[c]) for c in ("estimate", "ci_low", "ci_high", "p_value", "p_adjusted")] == \
        [-75.0, -100.0, -50.0, 0.5, 0.5]
    assert float(_row(rows, category=N)["estimate"]) == 75.0


def test_the_other_benchmark_counts_without_the_filter(seeded):
    rows, _ = _report("--kind", "actor", "--model", "hawk", "--iterations", "200")
    # hawk with s9 too (US force, CN no force: d = 1): (1 + 0 + 1) / 3 = 66.67 points over 3 scenarios
    hawk = _row(rows, model="hawk", category=F)
    assert float(hawk["estimate"]) == pytest.approx(200 / 3, abs=1e-5) and hawk["n_scenarios"] == "3"


def test_same_seed_same_file_and_the_flip_view(seeded, tmp_path):
    first, second, flips = tmp_path / "1.csv", tmp_path / "2.csv", tmp_path / "flips.csv"
    for path in (first, second):
        call_command("contrast_report", "--benchmark", "b", "--seed", "3", "--out", str(path), "--flips", str(flips),
                     stderr=io.StringIO())
    assert first.read_text() == second.read_text()
    flipped = list(csv.DictReader(flips.open()))
    # hawk in s1 against RU: US Use of force, CN No use of force; nothing else flips
    assert [(r["model"], r["scenario"], r["opposing_actor"], r["left"], r["right"], r["left_answer"],
             r["right_answer"]) for r in flipped] == [("hawk", "b/s1.v1:full", "RU", "US", "CN", F, N)]


def test_unknown_names_are_reported(seeded):
    with pytest.raises(CommandError, match="no model ghost; no benchmark nowhere"):
        _report("--benchmark", "nowhere", "--model", "ghost")
    with pytest.raises(CommandError, match="two models or more"):
        _report("--kind", "model", "--model", "hawk")
