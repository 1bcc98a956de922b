"""The run page of a finished run reads a bounded number of queries whatever its models
(issue 42, h54: 91 queries at 10.6 M answers before, 50 of them one per latest answer, 16
per-model samples, one per error kind's example): the latest answers in one read, the
error breakdown with its examples in one, and the temperature check's samples (one bounded
read per model) counted once per finished run, then kept in the cache."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.services import create_user_with_role
from runs_app import sampling, services
from runs_app.models import LLMModel, Response, Run
from scenarios_app import services as authoring
from scenarios_app.models import Benchmark
from tests.factories import escalation_spec

pytestmark = pytest.mark.django_db

REPEATS = 10  # 3 questions x 10 repeats: 30 answers a model, more than the page's 50 latest with 2 models


@pytest.fixture
def benchmark():
    benchmark = Benchmark.objects.create(name="t")
    authoring.save_spec(benchmark, escalation_spec(dyads=[("CN", "RU"), ("US", "MX"), ("MX", "US")]))
    return benchmark


def finished_run(benchmark, n_models: int, tag: str) -> Run:
    """A finished synthetic run: every model answered each question REPEATS times at
    temperature 1, the first model word for word alike (the page warns of it), and each
    model failed its last question's last repeat twice over (two error kinds)."""
    models = [LLMModel.objects.create(name=f"{tag}-{i}", litellm_model="openai/x", is_external=True)
              for i in range(n_models)]
    run = Run.objects.create(benchmark=benchmark, kind=Run.Kind.SYNTHETIC, status=Run.Status.DONE, repeats=REPEATS,
                             started_at=timezone.now(), finished_at=timezone.now())
    run.llm_models.set(models)
    questions = list(benchmark.questions.order_by("pk")[:3])
    now = timezone.now()
    units = []
    for m, model in enumerate(models):
        for question in questions:
            for repeat in range(REPEATS):
                output = f"The same answer to {question.pk}." if m == 0 else f"Answer {repeat} to {question.pk}."
                units.append(Response(run=run, question=question, model=model, repeat=repeat, status="done",
                                      params={"temperature": 1.0}, raw_output=output, answered_at=now))
        for repeat, kind in ((REPEATS, "server"), (REPEATS + 1, "timeout")):
            units.append(Response(run=run, question=questions[-1], model=model, repeat=repeat, status="failed",
                                  error_kind=kind, error_message=f"{kind} {model.name} {repeat}"))
    Response.objects.bulk_create(units)
    return run


def page_queries(client, run) -> tuple[int, str]:
    with CaptureQueriesContext(connection) as context:
        response = client.get(reverse("run-detail", args=[run.pk]))
    assert response.status_code == 200
    page = re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", response.content.decode())  # new each time
    return len(context.captured_queries), page


@pytest.fixture
def analyst(client):
    user, _ = create_user_with_role("ana", "persona-pass-123", role="analysts")
    client.force_login(user)
    return client


def test_a_finished_runs_page_reads_as_many_queries_with_two_models_as_with_five(benchmark, analyst):
    two, five = finished_run(benchmark, 2, "two"), finished_run(benchmark, 5, "five")
    first_two, page = page_queries(analyst, two)
    first_five, _ = page_queries(analyst, five)
    # The first view counts the temperature check's samples: one bounded read per model.
    assert first_five - first_two == 3
    again_two, page_again = page_queries(analyst, two)
    again_five, _ = page_queries(analyst, five)
    # Again: the samples kept (no read per model, nor their count), and the plan kept in the
    # run by the first view (its count and its write): as many queries with 5 models as with 2.
    assert again_two == again_five == first_two - 2 - 1 - 2
    assert page_again == page
    # What the page shows: the warning for the alike model, the 50 latest, the errors with their examples.
    assert page.count("data-temperature-warning") == 1 and "two-0: at temperature 1" in page
    assert "server two-1 10" in page and "timeout two-0 11" in page


def test_the_latest_answers_are_one_read(benchmark):
    from runs_app.views import LATEST_RESPONSES, latest_rows

    run = finished_run(benchmark, 3, "m")
    with CaptureQueriesContext(connection) as context:
        rows = latest_rows(run)
    assert len(rows) == LATEST_RESPONSES and len(context.captured_queries) == 1
    assert {row["model"] for row in rows} <= {"m-0", "m-1", "m-2"}


def test_the_error_breakdown_is_two_queries_with_the_first_example_of_each_kind(benchmark):
    run = finished_run(benchmark, 3, "m")
    # A second server error of m-1, later: the example stays the first unit's message.
    Response.objects.create(run=run, question=benchmark.questions.order_by("pk").first(),
                            model=LLMModel.objects.get(name="m-1"), repeat=REPEATS + 2, status="failed",
                            error_kind="server", error_message="a later one")
    with CaptureQueriesContext(connection) as context:
        rows = services.error_breakdown(run)
    assert len(context.captured_queries) == 2  # the groups with their first unit, then those units' messages
    assert rows[:2] == [{"model__name": "m-0", "error_kind": "server", "status": "failed", "n": 1,
                         "example": f"server m-0 {REPEATS}"},
                        {"model__name": "m-0", "error_kind": "timeout", "status": "failed", "n": 1,
                         "example": f"timeout m-0 {REPEATS + 1}"}]
    assert rows[2] == {"model__name": "m-1", "error_kind": "server", "status": "failed", "n": 2,
                       "example": f"server m-1 {REPEATS}"}
    assert len(rows) == 6


def test_a_finished_runs_temperature_warnings_are_kept_until_it_finishes_again(benchmark):
    run = finished_run(benchmark, 2, "m")
    warnings = sampling.temperature_warnings(run)
    assert len(warnings) == 1 and warnings[0].startswith("m-0: at temperature 1")
    with CaptureQueriesContext(connection) as context:
        assert sampling.temperature_warnings(run) == warnings
    assert not any("runs_app_response" in query["sql"] for query in context.captured_queries)
    # Resumed, its samples told apart, finished again: counted anew.
    Response.objects.filter(run=run, model__name="m-0", repeat=1).update(raw_output="Another answer.")
    Run.objects.filter(pk=run.pk).update(finished_at=timezone.now())
    run.refresh_from_db()
    assert sampling.temperature_warnings(run) == []
    # A run not finished has none, and reads nothing for them.
    run.status = Run.Status.RUNNING
    assert sampling.temperature_warnings(run) == []
