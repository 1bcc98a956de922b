"""REST API: permissions per role, launching, cancelling, reading responses, the schema."""

import pytest
from django.test import override_settings
from django.urls import reverse

from accounts.services import create_user_with_role
from runs_app.models import Response, Run
from scenarios_app import services as authoring
from scenarios_app.models import Benchmark
from tests.conftest import PASSWORD
from tests.factories import escalation_spec

pytestmark = pytest.mark.django_db


@pytest.fixture
def operator(db):
    return create_user_with_role("olga", PASSWORD, role="operators")[0]


@pytest.fixture
def benchmark(db):
    benchmark = Benchmark.objects.create(name="t")
    authoring.save_spec(benchmark, escalation_spec(dyads=[("CN", "RU"), ("US", "MX"), ("MX", "US")]))
    return benchmark


def api(client, user):
    assert client.login(username=user.username, password=PASSWORD)
    return client


LAUNCH = {"benchmark": "t", "models": ["local-smollm2", "local-gemma3"], "repeats": 2}


def test_an_operator_launches_a_run_through_the_api(client, operator, benchmark):
    response = api(client, operator).post(reverse("api-run-list"), LAUNCH, content_type="application/json")
    assert response.status_code == 201, response.content
    body = response.json()
    # 3 questions x 2 choice-mode models, asked once each (repeats are for sampling models).
    assert body["progress"]["total"] == 6 and body["models"] == ["local-gemma3", "local-smollm2"]
    run = Run.objects.get(pk=body["id"])
    assert run.launched_by == operator and Response.objects.filter(run=run).count() == 6


def test_a_bad_launch_is_a_400_that_names_the_field(client, operator, benchmark):
    response = api(client, operator).post(reverse("api-run-list"), {**LAUNCH, "models": ["nope"]},
                                          content_type="application/json")
    assert response.status_code == 400 and response.json() == {"models": ["unknown model(s): nope"]}
    response = client.post(reverse("api-run-list"), {**LAUNCH, "domains": ["cooperation"]},
                           content_type="application/json")
    assert response.status_code == 400 and "no questions of benchmark 't' match" in response.json()["detail"]
    assert Run.objects.count() == 0


def test_analysts_read_but_cannot_launch_or_cancel(client, analyst, operator, benchmark):
    api(client, operator).post(reverse("api-run-list"), LAUNCH, content_type="application/json")
    run = Run.objects.get()
    client.logout()
    api(client, analyst)
    assert client.get(reverse("api-run-detail", args=[run.pk])).status_code == 200
    assert client.post(reverse("api-run-list"), LAUNCH, content_type="application/json").status_code == 403
    assert client.post(reverse("api-run-cancel", args=[run.pk])).status_code == 403


def test_outsiders_and_anonymous_callers_are_refused(client, outsider):
    assert client.get(reverse("api-run-list")).status_code in (401, 403)
    assert api(client, outsider).get(reverse("api-run-list")).status_code == 403


def test_cancel_and_resume(client, operator, benchmark):
    api(client, operator).post(reverse("api-run-list"), LAUNCH, content_type="application/json")
    run = Run.objects.get()
    body = client.post(reverse("api-run-cancel", args=[run.pk])).json()
    assert body["status"] == "cancelled" and body["progress"]["cancelled"] == 6
    assert client.post(reverse("api-run-cancel", args=[run.pk])).status_code == 409
    body = client.post(reverse("api-run-resume", args=[run.pk])).json()
    assert body["status"] == "running" and body["progress"]["pending"] == 6


def test_responses_are_listed_by_run_and_model(client, operator, benchmark):
    api(client, operator).post(reverse("api-run-list"), LAUNCH, content_type="application/json")
    run = Run.objects.get()
    body = client.get(reverse("api-response-list"), {"run": run.pk, "model": "local-gemma3"}).json()
    assert body["count"] == 3 and {r["model"] for r in body["results"]} == {"local-gemma3"}
    assert body["results"][0]["question"].startswith("t/esc-test.v1.")


def test_models_report_key_presence_without_the_key(client, operator, monkeypatch):
    from runs_app.models import LLMModel

    LLMModel.objects.create(name="gpt", litellm_model="openai/gpt-4o")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-value")
    response = api(client, operator).get(reverse("api-model-detail", args=["gpt"]))
    assert response.json()["key"] == {"needed": True, "present": True, "missing": []}
    assert "sk-test-secret-value" not in response.content.decode()
    monkeypatch.delenv("OPENAI_API_KEY")
    assert client.get(reverse("api-model-detail", args=["gpt"])).json()["key"]["missing"] == ["OPENAI_API_KEY"]


def test_the_openapi_schema_describes_runs(client, analyst):
    schema = api(client, analyst).get(reverse("api-schema")).content.decode()
    assert "openapi: 3" in schema and "/api/runs/{id}/cancel/:" in schema
    assert "#/components/schemas/Launch" in schema



def test_the_schema_is_made_once_per_format_and_again_after_a_change_of_settings(client, analyst, monkeypatch):
    from drf_spectacular.generators import SchemaGenerator

    made = []
    real = SchemaGenerator.get_schema
    monkeypatch.setattr(SchemaGenerator, "get_schema", lambda self, *a, **k: made.append(1) or real(self, *a, **k))
    signed_in = api(client, analyst)
    with override_settings(SPECTACULAR_SETTINGS_TOUCHED=1):  # a change of settings: what was made is forgotten
        yaml_first, yaml_again = signed_in.get(reverse("api-schema")), signed_in.get(reverse("api-schema"))
        as_json = signed_in.get(reverse("api-schema"), {"format": "json"})
        assert len(made) == 2  # YAML once, JSON once
        assert yaml_first.content == yaml_again.content and yaml_first["Content-Type"] == yaml_again["Content-Type"]
        assert yaml_again["Content-Type"].startswith("application/vnd.oai.openapi")
        assert as_json.json()["paths"]["/api/runs/{id}/cancel/"] and as_json["Content-Type"].startswith(
            "application/vnd.oai.openapi+json")
        assert 'filename="CFPD Workbench API.yaml"' in yaml_again["Content-Disposition"]
    signed_in.get(reverse("api-schema"))
    assert len(made) == 3  # the settings changed back: made again
    client.logout()
    assert client.get(reverse("api-schema")).status_code in (401, 403)  # what was made is still for signed-in callers


def test_what_callers_send_does_not_multiply_the_kept_schemas(client, analyst):
    from kit import api_schema

    signed_in = api(client, analyst)
    signed_in.get(reverse("api-schema"))
    kept = len(api_schema._MADE)
    for n in range(5):
        assert signed_in.get(reverse("api-schema"), {"version": f"v{n}"}).status_code == 200
        assert signed_in.get(reverse("api-schema"), {"lang": f"zz{n}"}).status_code == 200
        assert signed_in.get(reverse("api-schema"), HTTP_ACCEPT=f"application/vnd.oai.openapi+json; indent={n + 1}",
                             ).status_code == 200
    assert len(api_schema._MADE) == kept == 1

def test_the_api_root_lists_every_endpoint_and_the_way_back_to_the_site(client, analyst):
    root = api(client, analyst).get("/api/", HTTP_ACCEPT="application/json").json()
    assert set(root) >= {"models", "runs", "responses", "analysis", "schema", "docs", "site"}
    assert root["analysis"].endswith("/api/analysis/cfpd/") and root["schema"].endswith("/api/schema/")
    assert root["docs"].endswith("/api/docs/") and root["site"] == "http://testserver/"
    page = client.get("/api/", HTTP_ACCEPT="text/html").content.decode()
    assert 'id="back-to-site"' in page and "/api/analysis/cfpd/" in page and "CFPD Workbench API" in page


def test_the_api_docs_are_for_signed_in_users_and_load_nothing_from_outside(client, analyst):
    signed_out = client.get("/api/docs/")
    assert signed_out.status_code == 302 and signed_out["Location"].startswith("/accounts/login/")
    page = api(client, analyst).get("/api/docs/").content.decode()
    assert "/api/docs/assets/swagger-ui-bundle.js" in page and "/api/schema/" in page
    assert "cdn." not in page and "https://" not in page.split("<body>")[0]
    asset = client.get("/api/docs/assets/swagger-ui-bundle.js")
    assert asset.status_code == 200 and b"SwaggerUIBundle" in b"".join(asset.streaming_content)[:200_000]
    assert client.get("/api/docs/assets/settings.py").status_code == 404


def test_a_run_id_that_is_not_a_number_is_a_400_naming_the_field(client, operator, benchmark):
    # Before: 500s (ValueError from the database lookup).
    api(client, operator)
    response = client.get(reverse("api-response-list"), {"run": "abc"})
    assert response.status_code == 400 and response.json() == {"run": ["must be a whole number, got 'abc'"]}
    assert client.get(reverse("api-response-list"), {"run": "9" * 40}).status_code == 400
    assert client.get(reverse("api-response-list"), {"run": str(2**70)}).status_code == 400
    response = client.get(reverse("api-response-list"), {"model": "a\x00b"})
    assert response.status_code == 400 and response.json() == {"model": ["must not contain a NUL character"]}
    response = client.post("/api/runs/abc/cancel/")
    assert response.status_code == 400 and response.json() == {"id": ["must be a whole number, got 'abc'"]}
    assert client.post("/api/runs/x1/resume/").status_code == 400
    assert client.post("/api/runs/999999/cancel/").status_code == 404


def test_an_unknown_status_filter_is_a_400(client, operator, benchmark):
    response = api(client, operator).get(reverse("api-response-list"), {"status": "weird"})
    assert response.status_code == 400 and "must be one of pending, running, done" in response.json()["status"][0]


def test_a_paused_run_resumes_through_the_api_with_a_raised_budget(client, operator, benchmark):
    api(client, operator).post(reverse("api-run-list"), {**LAUNCH, "budget_units": 1}, content_type="application/json")
    run = Run.objects.get()
    run.responses.filter(pk=run.responses.first().pk).update(status=Response.Status.DONE)
    Run.objects.filter(pk=run.pk).update(status=Run.Status.PAUSED)
    response = client.post(reverse("api-run-resume", args=[run.pk]))
    assert response.status_code == 409 and "raise the budget to resume it" in response.json()["detail"]
    response = client.post(reverse("api-run-resume", args=[run.pk]), {"budget_units": "many"},
                           content_type="application/json")
    assert response.status_code == 400 and "budget_units" in response.json()
    body = client.post(reverse("api-run-resume", args=[run.pk]), {"budget_units": 10},
                       content_type="application/json").json()
    assert body["status"] == "running" and body["budget"]["budget_units"] == 10 and body["budget"]["spent_units"] == 1


def test_cancel_and_resume_take_the_json_format_suffix(client, operator, benchmark):
    api(client, operator).post(reverse("api-run-list"), LAUNCH, content_type="application/json")
    run = Run.objects.get()
    # Before: a TypeError (the actions took no `format` keyword), so a 500.
    assert client.post(f"/api/runs/{run.pk}/cancel.json/").json()["status"] == "cancelled"
    assert client.post(f"/api/runs/{run.pk}/resume.json/").json()["status"] == "running"
