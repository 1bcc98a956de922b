"""The answer tallies (scenarios_app/analysis/tally.py): kept in step with the answers by every write
path, read by the dashboard with the same results as counting the answers, and moving
the dashboard's cache key. The triggers are PostgreSQL's: on SQLite the tallies are not
read, and only the tests that say so run."""

import random

import pytest
from django.db import connection, transaction
from django.utils import timezone
from django.db.models import Count

from scenarios_app.analysis import dashboard, tally
from scenarios_app.tallies import PassTally, QuestionTally
from scenarios_app.analysis.tidy_query import AnalysisFilter, tidy_counts
from encoding_app import services as coding
from runs_app.models import LLMModel, Response, Run
from runs_app.services import import_responses
from runs_app import unit_rows
from runs_app.signals import responses_answered, unit_grid_written
from benchmarks_app.models import Condition
from benchmarks_app.services import default_condition
from tests.runs_app.test_execution import launch
from tests.scenarios_app.test_analysis import answered  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db

postgres_only = pytest.mark.skipif("connection.vendor != 'postgresql'",
                                   reason="the tallies are kept by PostgreSQL triggers")


def recounted():
    """Both tallies as the answers give them now, counted from scratch."""
    passes = (Response.objects.filter(question__choice_count__gt=0, question__cfpd__isnull=False)
              .values_list("run_id", "model_id", "condition_id", "question__cfpd__scenario_id",
                           "question__cfpd__domain_id", "question__cfpd__variant", "question__choice_count",
                           "repeat", "code", "code_source", "status").annotate(n=Count("id")).order_by())
    questions = (Response.objects.filter(question__choice_count__gt=0, question__cfpd__isnull=False)
                 .values_list("run_id", "model_id", "condition_id", "question_id", "code", "code_source", "status")
                 .annotate(n=Count("id")).order_by())
    return sorted(passes), sorted(questions)


def tallied():
    passes = (PassTally.objects.filter(n__gt=0).values_list(
        "run_id", "model_id", "condition_id", "scenario_id", "domain_id", "variant", "choice_count", "repeat", "code",
        "code_source", "status", "n"))
    questions = QuestionTally.objects.filter(n__gt=0).values_list(
        "run_id", "model_id", "condition_id", "question_id", "code", "code_source", "status", "n")
    return sorted(passes), sorted(questions)


@postgres_only
def test_the_tallies_follow_every_write_path(answered, reviewer):  # noqa: F811
    assert tallied() == recounted()  # inserts one by one, then the encoder's codes
    hawk, dove = LLMModel.objects.get(name="hawk"), LLMModel.objects.get(name="dove")
    questions = [r.question for r in answered.responses.filter(model=hawk).order_by("pk")]
    rng = random.Random(15)

    # Pending units made in bulk (as a launch does), claimed and answered by statement.
    Response.objects.bulk_create([Response(run=answered, question=q, model=m, repeat=1, option_order=[0, 1])
                                  for q in questions for m in (hawk, dove)])
    assert tallied() == recounted()
    Response.objects.filter(run=answered, repeat=1, model=dove).update(status="running")
    assert tallied() == recounted()
    for unit in Response.objects.filter(run=answered, repeat=1).order_by("pk"):
        Response.objects.filter(pk=unit.pk).update(status=rng.choice(["done", "failed"]), chosen_letter="B",
                                                   raw_output="B")
        responses_answered.send(sender=Response, response_ids=[unit.pk])  # the encoder codes it
    assert tallied() == recounted()
    # An update that leaves every key alone changes nothing.
    before = tallied()
    Response.objects.filter(run=answered).update(raw_output="rewritten")
    assert tallied() == before == recounted()

    # A reviewer codes an answer and takes the code back.
    coded = Response.objects.filter(run=answered, model=hawk, repeat=0, code="B").first()
    coding.queue_for_review(coded.pk, "check")
    held = coding.next_task(reviewer)
    coding.submit_code(held.pk, reviewer, "A")
    assert Response.objects.get(pk=coded.pk).code == "A" and tallied() == recounted()
    coding.undo_last(reviewer)
    assert tallied() == recounted()

    # Answers imported from a file (a run of their own).
    keys = [q.key for q in questions[:3]]
    result = import_responses("question_key,model,repeat,output\n" + "".join(f"{k},outside,0,A\n" for k in keys),
                              benchmark_name=answered.benchmark.name)
    assert not result.problems and tallied() == recounted()

    # Deleting runs takes their answers out (cascade), one run and then the imported one.
    Run.objects.filter(pk=answered.pk).delete()
    assert tallied() == recounted()
    assert Response.objects.exists()
    Run.objects.all().delete()
    assert tallied() == recounted() == ([], [])


@postgres_only
def test_another_familys_answers_leave_cfpds_tallies_alone(answered):  # noqa: F811
    """Issue 39: CFPD's triggers count CFPD's answers only; a territorial or crisis question's
    answers, written, coded and deleted, add no tally row and move no version."""
    from benchmarks_app.models import Benchmark, Question

    other = Benchmark.objects.create(name="disputes", title="Disputes", family="territories")
    question = Question.objects.create(benchmark=other, key="disputes/1", text="Whose is it?",
                                       options=[{"text": "X"}, {"text": "Y"}], option_order=[0, 1], choice_count=2)
    hawk = LLMModel.objects.get(name="hawk")
    before, version = tallied(), tally.version()
    unit_rows.create_rows([dict(run=answered, question=question, model=hawk, repeat=r, option_order=[0, 1],
                                status="done", chosen_letter="A", code="A", code_source="choice") for r in range(3)])
    assert tallied() == before == recounted() and QuestionTally.objects.filter(question=question).count() == 0
    Response.objects.filter(question=question).update(code="B")
    assert tallied() == before and QuestionTally.objects.filter(question=question).count() == 0
    Response.objects.filter(question=question).delete()
    assert tallied() == before == recounted()
    assert tally.version() == version


@postgres_only
def test_a_launchs_grid_is_counted_from_the_grid_as_its_rows_would_be(answered, monkeypatch):  # noqa: F811
    hawk, dove = LLMModel.objects.get(name="hawk"), LLMModel.objects.get(name="dove")
    run = launch(answered.benchmark, [hawk, dove], monkeypatch, repeats=3)  # the units made by one INSERT … SELECT
    # 5 questions: hawk (choice mode) asks each once, dove 3 times: 5 + 15 = 20 pending units.
    assert run.responses.count() == 20 and tallied() == recounted()
    assert sum(QuestionTally.objects.filter(run=run).values_list("n", flat=True)) == 20

    # Two conditions, and units written after the grid in the same transaction: those the
    # insert trigger counts (the grid's setting holds for its own statement only).
    other = Condition.objects.create(name="other-condition")
    questions = list(answered.benchmark.questions.order_by("pk").values_list("pk", flat=True))
    pairs = [(q, c) for q in questions for c in (other.pk, default_condition().pk)]
    with transaction.atomic():
        grid = Run.objects.create(benchmark=answered.benchmark)
        assert unit_rows.insert_unit_grid(grid.pk, pairs, [(hawk.pk, 1), (dove.pk, 2)], timezone.now()) == 30
        Response.objects.bulk_create([Response(run=grid, question_id=q, model=hawk, condition=other, repeat=5)
                                      for q in questions])
    assert tallied() == recounted()
    assert sum(QuestionTally.objects.filter(run=grid).values_list("n", flat=True)) == 30 + 5  # 10 pairs x (1 + 2) + 5

    # The counts come from the grid, not from its rows: without the signal's receiver the
    # insert trigger leaves the grid uncounted.
    assert unit_grid_written.disconnect(dispatch_uid="cfpd-tally-unit-grid")
    try:
        uncounted = Run.objects.create(benchmark=answered.benchmark)
        unit_rows.insert_unit_grid(uncounted.pk, pairs, [(hawk.pk, 1)], timezone.now())
        assert not QuestionTally.objects.filter(run=uncounted).exists()
    finally:
        unit_grid_written.connect(tally.count_unit_grid, dispatch_uid="cfpd-tally-unit-grid")


@postgres_only
def test_a_rebuild_gives_the_same_counts_and_drops_the_emptied_rows(answered):  # noqa: F811
    Response.objects.filter(run=answered, model__name="dove", status="failed").update(status="pending")
    Response.objects.filter(run=answered, status="pending").update(status="failed")
    # Emptied rows: the pending one the failed answer passed through, and the uncoded ones
    # each answer left when the encoder coded it.
    assert PassTally.objects.filter(n=0, status="pending").exists()
    counts = tallied()
    assert tally.rebuild() == {"passes": PassTally.objects.count(), "questions": QuestionTally.objects.count()}
    assert tallied() == counts == recounted() and not PassTally.objects.filter(n=0).exists()


@postgres_only
def test_the_dashboard_reads_the_same_from_the_tallies_as_from_the_answers(answered, monkeypatch):  # noqa: F811
    hawk = LLMModel.objects.get(name="hawk")
    for response in list(answered.responses.filter(model=hawk)):
        again = Response.objects.create(run=answered, question=response.question, model=hawk, repeat=1,
                                        option_order=[0, 1], status="done", chosen_letter="A")
        responses_answered.send(sender=Response, response_ids=[again.pk])
    filters = [AnalysisFilter(), AnalysisFilter(models=("dove",)), AnalysisFilter(actors=("US", "CN")),
               AnalysisFilter(domains=("escalation",), choice_counts=(2,))]
    read = [dashboard.build(f, iterations=200) for f in filters]
    with monkeypatch.context() as patch:
        patch.setattr(tally, "available", lambda: False)
        counted = [dashboard.build(f, iterations=200) for f in filters]
    for left, right in zip(read, counted):
        assert left.coverage == right.coverage and sorted(left.panels) == sorted(right.panels)
        for key in left.panels:
            a, b = (p.panels[key].table.sort_values(list(p.panels[key].table.columns)).reset_index(drop=True)
                    for p in (left, right))
            assert a.equals(b), key


@postgres_only
def test_judge_units_in_the_tallies_are_left_out_on_read(answered):  # noqa: F811
    from encoding_app.models import Judge, JudgeRequest

    hawk = LLMModel.objects.get(name="hawk")
    before = tidy_counts(AnalysisFilter())
    judge_run = Run.objects.create(benchmark=answered.benchmark, kind=Run.Kind.JUDGE,
                                   selection={"judge_of": answered.pk})
    target = answered.responses.filter(model=hawk).first()
    unit = Response.objects.create(run=judge_run, question=target.question, model=hawk, option_order=[0, 1],
                                   status="done", code="A", code_source="choice")
    judge = Judge.objects.create(model=LLMModel.objects.create(name="reader", litellm_model="openai/x"))
    JudgeRequest.objects.create(judge_response=unit, target_response=target, judge=judge)
    assert QuestionTally.objects.filter(run=judge_run).exists()  # counted by the trigger …
    after = tidy_counts(AnalysisFilter(runs=(answered.pk, judge_run.pk)))
    # hawk 5 + dove 5 (one of them missing): the judge unit is taken away on read
    assert int(after["n"].sum()) == int(before["n"].sum()) == 10


def test_an_answer_coded_while_an_analyst_reads_shows_on_the_next_load(answered):  # noqa: F811
    """A code that adds no row (a reviewer's undo, a code written onto the answer) moves
    the cache key on PostgreSQL; a new code row moves it everywhere."""
    filters = AnalysisFilter(runs=(answered.pk,))
    first = dashboard.build_cached(filters, iterations=200)
    assert dashboard.build_cached(filters, iterations=200).cached
    failed = answered.responses.get(status="failed")
    if connection.vendor == "postgresql":
        # The failed call answered after all and coded straight onto the row: no new row anywhere.
        Response.objects.filter(pk=failed.pk).update(status="done", code="A", code_source="choice")
    else:
        Response.objects.filter(pk=failed.pk).update(status="done", chosen_letter="A", raw_output="A")
        responses_answered.send(sender=Response, response_ids=[failed.pk])  # the encoder writes a Code
    fresh = dashboard.build_cached(filters, iterations=200)
    # coded 9 -> 10 of 10 answers (the failed one now coded A)
    assert not fresh.cached and first.coverage["coded"] == 9 and fresh.coverage["coded"] == 10


@postgres_only
def test_the_rebuild_command_says_what_it_counted(answered):  # noqa: F811
    import io

    from django.core.management import call_command

    out = io.StringIO()
    call_command("rebuild_answer_tallies", stdout=out)
    assert out.getvalue() == (f"Tallies rebuilt: {PassTally.objects.count():,} pass rows, "
                              f"{QuestionTally.objects.count():,} question rows.\n")
    assert tallied() == recounted()


@postgres_only
def test_counts_read_through_copy_keep_every_text_and_number_as_the_orm_reads_them():
    """`tally._fetch` reads rows as CSV from COPY: text with commas, quotes, line breaks,
    backslashes, a literal \\N and the empty string comes back as written, NULL as
    missing, numbers as numbers (the same frame as the ORM's rows would make)."""
    import pandas as pd

    names = ["a,b", 'say "no"', "two\nlines", "back\\slash", "\\N", "", "  spaced  ", "日本"]
    for i, name in enumerate(names):
        LLMModel.objects.create(name=f"m{i}", litellm_model=name, api_base="" if i % 2 else "http://x")
    rows = LLMModel.objects.filter(name__startswith="m").order_by("name").values_list("litellm_model", "pk",
                                                                                      "api_base", "max_tokens")
    frame = tally._fetch(rows, ["model", "pk", "base", "max_tokens"])
    wanted = pd.DataFrame.from_records(list(rows), columns=["model", "pk", "base", "max_tokens"])
    pd.testing.assert_frame_equal(frame.sort_values("pk", ignore_index=True), wanted.sort_values("pk", ignore_index=True))
    assert frame.sort_values("pk")["model"].tolist() == names
    assert tally._fetch(LLMModel.objects.filter(pk__in=[]).values_list("pk"), ["pk"]).empty
