"""The API as an outside tester reads it: schemathesis generates requests from the OpenAPI
schema (valid and invalid ones) for every operation and runs all of its checks on each
answer: no server error, every status code and content type documented, every body as
the schema says, auth enforced, invalid input rejected. In process, through the WSGI app,
with a superuser's token; a few examples per operation keep it to well under a minute."""

import pytest
import schemathesis
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, settings

from accounts import api_tokens
from accounts.services import create_user_with_role
from runs_app import services
from runs_app.models import Run
from scenarios_app import services as authoring
from scenarios_app.models import Benchmark
from tests.conftest import PASSWORD
from tests.factories import escalation_spec

# Runs once, in the PostgreSQL + Redis pass (tests/passes.py): its subject is the API's contract as
# deployed (every operation as its schema says); the queries behind each endpoint are tested in both
# passes by the endpoints' own tests (test_api*).
pytestmark = pytest.mark.services


@pytest.fixture
def token(db):
    root = create_user_with_role("root", PASSWORD, role="operators", superuser=True)[0]
    return api_tokens.create_token(root, "schemathesis").token


@pytest.fixture
def api_schema(db, token):
    benchmark = Benchmark.objects.create(name="t")
    authoring.save_spec(benchmark, escalation_spec(dyads=[("CN", "RU"), ("US", "MX")]))
    launch = services.read_launch({"benchmark": "t", "models": ["local-smollm2"], "repeats": 1, "budget_units": 5})
    services.start_run(launch, launched_by=None)  # as an imported run: launched_by is null
    services.start_run(launch, launched_by=None)
    Run.objects.filter(pk=Run.objects.order_by("id").first().pk).update(status=Run.Status.CANCELLED)
    config = schemathesis.Config.from_dict({
        "generation": {"max-examples": 6},
        # These name runs, models and benchmarks that must exist: which names do is data,
        # not schema, so a well-formed but unknown name is a 400 that names it.
        "operations": [{"include-name": ["GET /api/analysis/cfpd/", "GET /api/analysis/crisis/",
                                         "GET /api/analysis/territories/", "POST /api/runs/",
                                         "GET /api/profiles/compare/", "GET /api/profiles/{name}/",
                                         "GET /api/answers/grid/", "GET /api/answers/compare/",
                                         "GET /api/answers/", "GET /api/panels/alignment/"],
                        "checks": {"positive_data_acceptance": {"expected-statuses": [
                            "2xx", "400", "401", "403", "404", "409"]}}}]})
    # The WSGI app closes the database connection after each request, and with it the
    # test's transaction; Django's test client keeps it open the same way.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield schemathesis.openapi.from_wsgi("/api/schema/?format=json", WSGIHandler(), config=config,
                                             headers={"Authorization": f"Bearer {token}"})
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


schema = schemathesis.pytest.from_fixture("api_schema")


@pytest.mark.django_db
@schema.parametrize()
@settings(deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_every_operation_answers_as_its_schema_says(case, token):
    case.call_and_validate(headers={"Authorization": f"Bearer {token}"})
