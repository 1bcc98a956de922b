"""`load_synthetic_answers`: exact counts, both variants, outcome shares, no silent
overwrite, --replace, and the analysis table over what it loads. Runs the bulk_create
path on SQLite and the COPY path on PostgreSQL (DATABASE_URL set)."""

import io

import numpy as np
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.db.models import Count

from scenarios_app.analysis import synthetic
from scenarios_app.analysis.tidy_query import AnalysisFilter, tidy_counts
from runs_app.models import LLMModel, Response, Run
from scenarios_app.models import Benchmark, Question, Scenario

pytestmark = pytest.mark.django_db

QUESTIONS, MODELS, REPEATS = 300, 3, 2
ANSWERS = QUESTIONS * MODELS * REPEATS  # 300 x 3 x 2 = 1,800


def load(**options):
    out = io.StringIO()
    call_command("load_synthetic_answers", questions=QUESTIONS, models=MODELS, repeats=REPEATS, stdout=out,
                 **options)
    return out.getvalue()


def snapshot():
    return (Benchmark.objects.count(), Scenario.objects.count(), Question.objects.count(), Run.objects.count(),
            Response.objects.count(), LLMModel.objects.count(),
            list(Response.objects.order_by("pk").values_list("pk", "code")[:50]))


def test_it_loads_exactly_the_questions_and_answers_asked_for():
    output = load()

    benchmark = Benchmark.objects.get(name="synthetic")
    questions = Question.objects.filter(benchmark=benchmark)
    assert questions.count() == QUESTIONS
    run = Run.objects.get(benchmark=benchmark)
    assert run.status == Run.Status.DONE and run.repeats == REPEATS
    assert Response.objects.filter(run=run).count() == ANSWERS
    # One answer per (question, model, repeat): 300 x 3 x 2 distinct units.
    assert Response.objects.filter(run=run).values("question", "model", "repeat").distinct().count() == ANSWERS
    assert sorted(run.llm_models.values_list("name", flat=True)) == ["synthetic-1", "synthetic-2", "synthetic-3"]
    assert all(run.llm_models.values_list("is_external", flat=True))
    assert f"{QUESTIONS} questions" in output and f"{ANSWERS:,} answers" in output
    # PostgreSQL takes the answers by COPY; other databases through the ORM.
    assert f"{ANSWERS:,}/{ANSWERS:,} ({'COPY' if connection.vendor == 'postgresql' else 'bulk_create'})" in output
    # Frozen, as a real run leaves the versions it asked.
    assert not Scenario.objects.filter(benchmark=benchmark, frozen_at__isnull=True).exists()


def test_it_asks_three_option_scenarios_also_without_their_middle_option():
    load()
    variants = dict(Question.objects.values_list("cfpd__variant").annotate(n=Count("id")).order_by())
    assert variants["full"] > 0 and variants["no-middle"] > 0
    # Every three-option dyad has its two-option twin: as many no-middle as full three-option questions.
    assert variants["no-middle"] == Question.objects.filter(cfpd__variant="full", choice_count=3).count()
    for question in Question.objects.filter(cfpd__variant="no-middle")[:20]:
        full = Question.objects.get(key=question.key.replace(".no-middle", ".full"))
        kept = [option["category"] for option in question.options]
        middle = {"threat-of-force", "middle-intervention"}
        assert question.choice_count == 2 and not middle & set(kept)
        assert kept == [option["category"] for option in full.options if option["category"] not in middle]
    domains = set(Question.objects.values_list("cfpd__domain__slug", flat=True))
    assert domains == {"escalation", "intervention", "cooperation", "alliance"}


def test_codes_fit_the_questions_and_outcomes_come_in_the_configured_shares():
    load()
    responses = Response.objects.all()
    # A C code only where there is a third option; done rows carry a code or are unresolved.
    assert not responses.filter(code="C", question__choice_count=2).exists()
    assert set(responses.values_list("code_source", flat=True)) <= {"choice", "unresolved", "missing"}
    missing = responses.filter(code_source="missing")
    assert missing.filter(status=Response.Status.FAILED, code="").count() == missing.count()
    assert not responses.filter(code="", code_source="choice").exists()
    # Shares of 1,800 answers, loosely: 2% refusals (36), 1% unresolved (18), 0.5% missing (9).
    share = {name: responses.filter(**where).count() / ANSWERS for name, where in
             (("refusal", {"code": "R"}), ("unresolved", {"code_source": "unresolved"}),
              ("missing", {"code_source": "missing"}))}
    assert 0.005 < share["refusal"] < 0.04
    assert 0.002 < share["unresolved"] < 0.025
    assert 0.0005 < share["missing"] < 0.015


def test_outcome_shares_at_scale_match_the_configuration():
    # Pure: 20,000 two-option questions x 4 models x 5 repeats = 400,000 outcomes.
    rng = np.random.default_rng(7)
    categories = np.tile([[0, 1, -1]], (20_000, 1))
    outcomes = synthetic.draw_outcomes(categories, rng.integers(0, 100, 20_000), rng.integers(0, 40, 20_000),
                                       4, 5, rng)
    shares = np.bincount(outcomes.ravel(), minlength=6) / outcomes.size
    assert shares[2] == 0  # no third option to choose
    assert shares[synthetic.REFUSAL] == pytest.approx(synthetic.REFUSAL_SHARE, rel=0.1)
    assert shares[synthetic.UNRESOLVED] == pytest.approx(synthetic.UNRESOLVED_SHARE, rel=0.1)
    assert shares[synthetic.MISSING] == pytest.approx(synthetic.MISSING_SHARE, rel=0.15)
    # The models differ: their shares of option A among answers are not all alike.
    answered = np.where(outcomes < 2, outcomes, -1)
    share_a = [(answered[:, m] == 0).sum() / (answered[:, m] >= 0).sum() for m in range(4)]
    assert max(share_a) - min(share_a) > 0.05


def test_a_second_load_without_replace_is_refused_and_changes_nothing():
    load()
    before = snapshot()
    with pytest.raises(CommandError, match=r"benchmark 'synthetic' already exists \(300 questions, 1800 answers\); "
                                           r"add --replace"):
        load(seed=5)
    assert snapshot() == before


def test_replace_loads_anew_in_place_of_the_earlier_benchmark():
    load()
    first_run = Run.objects.get(benchmark__name="synthetic").pk
    first_codes = list(Response.objects.order_by("question__key", "model__name", "repeat").values_list("code"))
    output = load(replace=True, seed=1)

    assert "deleted the earlier benchmark synthetic" in output
    assert not Run.objects.filter(pk=first_run).exists()
    assert Benchmark.objects.filter(name="synthetic").count() == 1
    assert Question.objects.count() == QUESTIONS and Response.objects.count() == ANSWERS
    assert LLMModel.objects.filter(name__startswith="synthetic-").count() == MODELS
    codes = list(Response.objects.order_by("question__key", "model__name", "repeat").values_list("code"))
    assert codes != first_codes  # another seed, other answers


def test_replace_refuses_to_delete_questions_another_benchmarks_run_asked():
    """The units' question keys are not the database's (runs_app migration 0018): the
    plain-SQL delete checks that no unit outside the benchmark's runs names its questions."""
    load()
    asked = Response.objects.filter(run__benchmark__name="synthetic").first()
    elsewhere = Run.objects.create(benchmark=Benchmark.objects.create(name="elsewhere"))
    Response.objects.create(run=elsewhere, question=asked.question, model=asked.model)
    with pytest.raises(CommandError, match="units of runs of other benchmarks ask its questions"):
        load(replace=True, seed=1)
    assert Question.objects.filter(pk=asked.question_id).exists()


def test_replace_never_deletes_a_benchmark_it_did_not_load():
    Benchmark.objects.create(name="synthetic", title="hand-made")
    with pytest.raises(CommandError, match="was not loaded by load_synthetic_answers"):
        load(replace=True)
    assert Benchmark.objects.get(name="synthetic").title == "hand-made"


def test_tidy_counts_over_the_load_counts_every_answer():
    load()
    run = Run.objects.get(benchmark__name="synthetic")
    tidy = tidy_counts(AnalysisFilter(runs=(run.pk,)))
    assert tidy["n"].sum() == ANSWERS
    by_outcome = tidy.groupby("outcome")["n"].sum()
    assert by_outcome["refusal"] == Response.objects.filter(code="R").count()
    assert by_outcome["unresolved"] == Response.objects.filter(code_source="unresolved").count()
    assert by_outcome["missing"] == Response.objects.filter(code_source="missing").count()
    assert set(tidy["model"]) == {"synthetic-1", "synthetic-2", "synthetic-3"}
    assert set(tidy.loc[tidy["outcome"] == "answer", "choice_count"]) == {2, 3}
