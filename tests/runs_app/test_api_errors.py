"""Every answer under /api/ is JSON, a URL that matches no endpoint included; and
/api/runs/ reads a whole page's progress in a fixed number of queries."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.services import create_user_with_role
from kit.api_errors import wants_json
from runs_app import services
from runs_app.models import Response, Run
from scenarios_app import services as authoring
from scenarios_app.models import Benchmark
from tests.conftest import PASSWORD
from tests.factories import escalation_spec

pytestmark = pytest.mark.django_db


@pytest.fixture
def operator(db):
    return create_user_with_role("olga", PASSWORD, role="operators")[0]


@pytest.mark.parametrize("method, path", [("post", "/api/runs/0.5/cancel/"), ("get", "/api/nope/"),
                                          ("get", "/api/analysis/nope/"), ("get", "/api/runs/1/nope/"),
                                          ("post", "/api/nope")])
def test_an_api_url_that_matches_nothing_is_a_json_404(client, operator, method, path):
    # Before: Django's HTML 404 page.
    client.force_login(operator)
    response = getattr(client, method)(path)
    assert response.status_code == 404 and response["Content-Type"] == "application/json"
    assert response.json() == {"detail": "Not found."}
    assert getattr(client.__class__(), method)(path).status_code == 404  # signed out: the same, no sign-in page


def test_a_missing_final_slash_is_sent_on_or_named(client, operator):
    client.force_login(operator)
    response = client.get("/api/runs?page=1")
    assert response.status_code == 301 and response["Location"] == "/api/runs/?page=1"
    response = client.post("/api/runs", {}, content_type="application/json")
    assert response.status_code == 404 and "/api/runs/ (with the final slash)" in response.json()["detail"]


def test_api_paths_want_json_and_the_docs_pages_do_not(rf):
    assert wants_json(rf.get("/api/nope/")) and wants_json(rf.get("/api")) and wants_json(rf.get("/api/runs/1/"))
    assert not wants_json(rf.get("/api/docs/")) and not wants_json(rf.get("/apix/"))
    assert not wants_json(rf.get("/runs/"))


@pytest.fixture
def runs(operator):
    benchmark = Benchmark.objects.create(name="t")
    authoring.save_spec(benchmark, escalation_spec(dyads=[("CN", "RU"), ("US", "MX"), ("MX", "US")]))

    def launch(count, **extra):
        request = services.read_launch({"benchmark": "t", "models": ["local-smollm2", "local-gemma3"], "repeats": 1,
                                        **extra})
        return [services.start_run(request, launched_by=operator) for _ in range(count)]
    return launch


def test_the_run_list_costs_the_same_queries_for_3_runs_as_for_12(client, operator, runs):
    client.force_login(operator)
    runs(3)
    with CaptureQueriesContext(connection) as few:
        assert client.get("/api/runs/").json()["count"] == 3
    runs(9, budget_units=4)
    with CaptureQueriesContext(connection) as many:
        assert client.get("/api/runs/").json()["count"] == 12
    # Before: two aggregates per run and a third per budgeted run (3 + 2*12 + 9 = 36 here).
    assert len(many.captured_queries) == len(few.captured_queries)


def test_the_runs_progress_and_budget_equal_the_run_pages(client, operator, runs):
    client.force_login(operator)
    first, second = runs(2, budget_units=3)
    answers = list(first.responses.order_by("id"))
    Response.objects.filter(pk=answers[0].pk).update(status="done", cost="0.25", prompt_tokens=10,
                                                     completion_tokens=1)
    Response.objects.filter(pk=answers[1].pk).update(status="done", cost="0.5", cache_hit=True)
    Response.objects.filter(pk=answers[2].pk).update(status="failed")
    Response.objects.filter(pk=answers[3].pk).update(status="cancelled")
    body = {run["id"]: run for run in client.get("/api/runs/").json()["results"]}
    for run in (first, second):
        state = services.progress(run)
        progress = body[run.pk]["progress"]
        assert progress == {"total": state.total, "pending": state.pending, "running": state.running,
                            "done": state.done, "failed": state.failed, "cancelled": state.cancelled,
                            "cached": state.cached, "prompt_tokens": state.prompt_tokens,
                            "completion_tokens": state.completion_tokens, "cost": state.cost,
                            "percent": state.percent}
        assert body[run.pk]["budget"] == services.budget_state(Run.objects.get(pk=run.pk))
    # first: 6 answers, 2 done: 2/6 = 33.3 %; cost 0.25 + 0.5 = 0.75; spent: done or failed, not
    # from the cache: 0.25 US$ and 3 units, which reaches its budget of 3.
    assert body[first.pk]["progress"]["percent"] == 33.3 and body[first.pk]["progress"]["cost"] == 0.75
    assert body[first.pk]["budget"] == {"budget_usd": None, "budget_units": 3, "spent_usd": 0.25, "spent_units": 3,
                                        "reached": True}
    assert body[second.pk]["progress"]["cost"] is None and body[second.pk]["budget"]["reached"] is False


def test_an_imported_runs_launched_by_is_null(client, operator, runs):
    client.force_login(operator)
    run = runs(1)[0]
    Run.objects.filter(pk=run.pk).update(launched_by=None)
    assert client.get(reverse("api-run-detail", args=[run.pk])).json()["launched_by"] is None
    schema = client.get(reverse("api-schema"), {"format": "json"}).json()
    launched_by = schema["components"]["schemas"]["Run"]["properties"]["launched_by"]
    assert launched_by["nullable"] is True


def test_every_operation_documents_its_errors(client, operator):
    client.force_login(operator)
    schema = client.get(reverse("api-schema"), {"format": "json"}).json()
    operations = {f"{method.upper()} {path}": operation for path, item in schema["paths"].items()
                  for method, operation in item.items()}
    assert len(operations) == 21  # the 12 before the models' profiles, their two, the grid and two runs compared,
    # the answers list and one answer, a model's connection test (GET its findings, POST to start one), and
    # the panels' alignment with the models (issue 40)
    for name, operation in operations.items():
        assert {"401", "403"} <= set(operation["responses"]), name
    assert {"400", "404", "409"} <= set(operations["POST /api/runs/{id}/cancel/"]["responses"])
    assert {"400", "404", "409"} <= set(operations["POST /api/runs/{id}/resume/"]["responses"])
    assert "400" in operations["POST /api/runs/"]["responses"]
    assert {"400", "404"} <= set(operations["POST /api/models/{name}/test-connection/"]["responses"])
    assert {"400", "404"} <= set(operations["GET /api/responses/"]["responses"])
    assert "400" in operations["GET /api/analysis/cfpd/"]["responses"]
    assert "404" in operations["GET /api/profiles/{name}/"]["responses"]
    assert "400" in operations["GET /api/answers/"]["responses"] and "404" in operations["GET /api/answers/{id}/"]["responses"]
    assert "400" in operations["GET /api/profiles/compare/"]["responses"]  # an unknown name there is a 400
    assert "400" in operations["GET /api/answers/grid/"]["responses"]
    assert "400" in operations["GET /api/answers/compare/"]["responses"]
    assert "400" in operations["GET /api/panels/alignment/"]["responses"]
    assert schema["components"]["securitySchemes"]["tokenAuth"] == {
        "type": "http", "scheme": "bearer", "bearerFormat": "cfpd_ followed by 40 characters",
        "description": "A personal API token (console: API tokens, or `manage.py api_token create`)."}
