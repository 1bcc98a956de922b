"""Test connection against the fake OpenAI-compatible server under its settings (every
capability; no log-probabilities; one prompt per request; a refusing or silent server):
what the probe finds, how it is kept on the model, and where an operator meets it — the
models page's button and its findings page (the test runs in a worker's task, never in the
request), the console's action, `manage.py test_connection`, the API, and the launch plan
that refuses a mode the server cannot serve."""

import io
import json
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import timezone

from accounts.services import create_user_with_role
import gateway
from runs_app import connection, queueing, tasks
from runs_app.models import LLMModel, Run
from scenarios_app import services as authoring
from scenarios_app.models import Benchmark
from tests.conftest import PASSWORD
from tests.factories import escalation_spec
from tests.fakes.fixtures import fake, server  # noqa: F401  (fixtures)

pytestmark = pytest.mark.django_db


@pytest.fixture
def model(fake):
    return LLMModel.objects.create(name="served", litellm_model="openai/fake", api_base=fake.base_url,
                                   answer_mode="choice", choice_strategy="logprobs", timeout_seconds=10)


@pytest.fixture
def operator(db):
    return create_user_with_role("olga", PASSWORD, role="operators")[0]


@pytest.fixture
def signed_in(client, operator):
    assert client.login(username=operator.username, password=PASSWORD)
    return client


@pytest.fixture
def sent(monkeypatch):
    """The messages the page sends to the queue, instead of a broker: (task, args)."""
    messages = []
    monkeypatch.setattr(queueing, "publish", lambda task, args, **kwargs: messages.append((task, args)))
    return messages


def run_worker(sent):
    """What a worker does with each connection-test message."""
    while sent:
        task, args = sent.pop(0)
        assert task == connection.TASK == tasks.connection_test.name
        tasks.connection_test(*args)


def findings(model):
    model.refresh_from_db()
    return {key: value["ok"] for key, value in model.capabilities["findings"].items()}


# -- what the probe finds -----------------------------------------------------------------------

def test_a_server_with_every_capability(model, fake):
    state = connection.test_connection(model)
    assert state["status"] == "done"
    # The fake decodes free text deterministically (the letter is a hash of the prompt), so
    # its samples at temperature 1 are identical: it is a greedy server.
    assert findings(model) == {"answers": True, "logprobs": True, "guided_choice": True, "grammar": True,
                               "echo": True, "prompt_list": True, "temperature": False, "batches": False}
    # It lists the top log-probabilities of the option letters only: two of the 20 asked.
    assert model.capabilities["findings"]["logprobs"]["top"] == 2
    assert model.capabilities["recommended"] == {"choice": "guided_choice", "rank": "one request", "generate": True}
    assert model.capabilities_checked_at is not None
    # Nine requests: answer, log-probabilities, guided choice, grammar, echo, a list, three samples.
    # The tenth step lists batches (GET /v1/batches), which this chat-only fake answers 404 uncounted.
    assert fake.stats()["total_requests"] == gateway.PROBE_STEPS - 1 == 9


def test_a_server_without_log_probabilities_is_refused_choice_mode_at_launch(model, fake):
    fake.configure(no_logprobs=True)
    connection.test_connection(model)
    assert findings(model)["logprobs"] is False
    assert model.capabilities["findings"]["logprobs"]["summary"].startswith(
        "the server returns no log-probabilities (asked for the top 20")
    [check] = connection.launch_checks([model])
    assert check["level"] == "refuse"
    assert check["text"].startswith(f"served at {fake.base_url}: choice mode cannot work — the server returns no "
                                    f"log-probabilities (found {connection.checked_at_text(model)} by Test "
                                    "connection); set its choice strategy to guided_choice (found to work)")


def test_a_server_that_takes_one_prompt_per_request(model, fake):
    fake.configure(one_prompt_only=True)
    connection.test_connection(model)
    model.refresh_from_db()
    found = model.capabilities["findings"]
    assert found["echo"]["ok"] is True and found["prompt_list"]["ok"] is False
    assert found["prompt_list"]["requests"] == 2
    assert model.capabilities["recommended"]["rank"] == "one request per option"


def test_a_server_that_does_not_answer_is_found_so_and_nothing_else_is_tried(model, fake):
    fake.configure(fault_rate=1.0, fault_kinds=["400"])
    connection.test_connection(model)
    model.refresh_from_db()
    answers = model.capabilities["findings"]["answers"]
    assert answers["ok"] is False and "injected bad request" in answers["message"]
    assert {f["ok"] for key, f in model.capabilities["findings"].items() if key != "answers"} == {None}
    assert fake.stats()["total_requests"] == 1
    model.answer_mode = "generate"
    [check] = connection.launch_checks([model])
    assert check["level"] == "warn" and "did not answer the last connection test" in check["text"]


def test_a_model_of_imported_answers_cannot_be_tested(db):
    external = LLMModel.objects.create(name="imported", is_external=True)
    with pytest.raises(connection.ConnectionTestRefused, match="only holds imported answers"):
        connection.request_connection_test(external)


# -- the job: queued by the page, run once by a worker ------------------------------------------

def test_the_page_queues_the_test_and_a_worker_runs_it_once(signed_in, model, fake, sent,
                                                           django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        answer = signed_in.post(reverse("run-model-connection-test", args=[model.pk]))
    assert answer.status_code == 302 and answer["Location"] == reverse("run-model-connection", args=[model.pk])
    assert fake.stats()["total_requests"] == 0  # nothing asked inside the request
    model.refresh_from_db()
    assert model.capabilities["status"] == "queued" and len(sent) == 1
    page = signed_in.get(reverse("run-model-connection", args=[model.pk]))
    assert b"waiting for a worker" in page.content and b'data-active="true"' in page.content
    task, args = sent[0]
    run_worker(list(sent))
    model.refresh_from_db()
    assert model.capabilities["findings"]["answers"]["ok"] is True
    # The same message delivered twice: the job is claimed once, the second does nothing.
    before = fake.stats()["total_requests"]
    tasks.connection_test(*args)
    assert fake.stats()["total_requests"] == before
    page = signed_in.get(reverse("run-model-connection", args=[model.pk]))
    assert page.status_code == 200 and b'id="connection-findings"' in page.content
    assert b'data-finding="guided_choice"' in page.content and b"Test again" in page.content
    state = signed_in.get(reverse("run-model-connection-json", args=[model.pk])).json()
    assert state["status"] == "done" and not state["active"] and len(state["findings"]) == 8


def test_a_second_request_while_one_is_queued_is_not_doubled(model, sent, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        first = connection.request_connection_test(model)
        second = connection.request_connection_test(model)
    assert first["job"] == second["job"] and len(sent) == 1


def test_the_models_page_shows_the_button_and_what_was_found(signed_in, model, fake):
    page = signed_in.get(reverse("run-models")).content.decode()
    assert "never tested" in page and reverse("run-model-connection-test", args=[model.pk]) in page
    connection.test_connection(model)
    page = signed_in.get(reverse("run-models")).content.decode()
    assert "choice guided_choice · rank yes · temperature ignored" in page


def test_readers_see_the_findings_but_cannot_start_a_test(client, model, analyst):
    assert client.login(username=analyst.username, password=PASSWORD)
    assert client.get(reverse("run-model-connection", args=[model.pk])).status_code == 200
    assert client.post(reverse("run-model-connection-test", args=[model.pk])).status_code == 403
    assert client.get(reverse("run-model-connection-test", args=[model.pk])).status_code in (403, 405)


# -- the console, the command, the API ------------------------------------------------------------

def test_the_consoles_action_queues_a_test_per_model(client, admin_user, model, sent,
                                                     django_capture_on_commit_callbacks):
    assert client.login(username=admin_user.username, password=PASSWORD)
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(reverse("admin:runs_app_llmmodel_changelist"),
                             {"action": "test_connection", "_selected_action": [model.pk]}, follow=True)
    assert b"Connection test queued for" in answer.content
    assert [task for task, _ in sent] == [connection.TASK]


def test_the_command_prints_the_findings_and_the_verdict(model, fake):
    fake.configure(no_logprobs=True)
    out = io.StringIO()
    call_command("test_connection", "served", stdout=out, stderr=io.StringIO())
    text = out.getvalue()
    assert "Log-probabilities (top_logprobs)" in text and "the server returns no log-probabilities" in text
    assert "choice mode: guided_choice" in text
    assert "choice mode as registered: served at" in text and "cannot work" in text
    with pytest.raises(CommandError, match="no model named 'nope'"):
        call_command("test_connection", "nope", stdout=io.StringIO(), stderr=io.StringIO())
    out = io.StringIO()
    call_command("test_connection", "served", "--json", stdout=out, stderr=io.StringIO())
    assert json.loads(out.getvalue())["findings"]["logprobs"]["ok"] is False


def test_the_api_starts_a_test_and_returns_its_findings(signed_in, client, model, fake, sent, analyst,
                                                        django_capture_on_commit_callbacks):
    url = reverse("api-model-test-connection", args=[model.name])
    assert signed_in.get(url).json()["status"] == "never"
    with django_capture_on_commit_callbacks(execute=True):
        started = signed_in.post(url)
    assert started.status_code == 202 and started.json()["status"] == "queued"
    assert fake.stats()["total_requests"] == 0
    run_worker(sent)
    found = signed_in.get(url).json()
    assert found["status"] == "done" and found["recommended"]["choice"] == "guided_choice"
    assert [row["key"] for row in found["findings"]] == list(connection.capabilities.FINDINGS)
    client.logout()
    assert client.login(username=analyst.username, password=PASSWORD)
    assert client.post(url).status_code == 403 and client.get(url).status_code == 200


# -- the launch: the plan says it, the launch refuses ------------------------------------------------

@pytest.fixture
def benchmark(db):
    benchmark = Benchmark.objects.create(name="t")
    authoring.save_spec(benchmark, escalation_spec(dyads=[("CN", "RU")]))
    return benchmark


def test_the_plan_and_the_launch_refuse_choice_mode_on_a_server_without_log_probabilities(
        signed_in, model, fake, benchmark):
    never = signed_in.post(reverse("api-run-list"), {"benchmark": "t", "models": ["served"], "dry_run": True},
                           content_type="application/json").json()
    assert never["checks"][0]["never_probed"] and "never probed" in never["checks"][0]["text"]
    fake.configure(no_logprobs=True)
    connection.test_connection(model)
    # As transformers serve answers: guided_choice and a grammar refused too (422).
    model.refresh_from_db()
    refused = {"ok": False, "summary": "the server refuses the field", "message": "422 Unexpected fields"}
    model.capabilities["findings"].update(guided_choice=refused, grammar=refused)
    model.save(update_fields=["capabilities"])
    plan = signed_in.post(reverse("api-run-list"), {"benchmark": "t", "models": ["served"], "dry_run": True},
                          content_type="application/json").json()
    [check] = plan["checks"]
    assert check["level"] == "refuse" and check["url"] == reverse("run-model-connection", args=[model.pk])
    assert "choice mode cannot work — the server returns no log-probabilities" in check["text"]
    assert "use generate mode (its answers are coded by the encoder) or rank classification" in check["text"]
    launched = signed_in.post(reverse("api-run-list"), {"benchmark": "t", "models": ["served"]},
                              content_type="application/json")
    assert launched.status_code == 400 and "choice mode cannot work" in launched.json()["models"][0]
    assert not Run.objects.exists()
    form = signed_in.post(reverse("run-launch"), {
        "benchmark": benchmark.pk, "models": [model.pk], "repeats": "1", "qualified_actors": "", "sample": "",
        "seed": "0", "system_prompt": "", "cache": "auto", "note": "", "budget_usd": "", "budget_units": "",
        "difference": "10", "step": "plan"}).content.decode()
    assert 'data-check-level="refuse"' in form and "Cannot launch: served at" in form
    assert 'value="launch"' not in form


def test_run_benchmark_dry_run_says_it_and_the_launch_is_refused(model, fake, benchmark):
    fake.configure(no_logprobs=True)
    connection.test_connection(model)
    model.refresh_from_db()
    refused = {"ok": False, "summary": "the server refuses the field", "message": "422 Unexpected fields"}
    model.capabilities["findings"].update(guided_choice=refused, grammar=refused)
    model.save(update_fields=["capabilities"])
    out = io.StringIO()
    call_command("run_benchmark", "--benchmark", "t", "--models", "served", "--dry-run", stdout=out,
                 stderr=io.StringIO())
    assert "cannot launch: served at" in out.getvalue() and "choice mode cannot work" in out.getvalue()
    with pytest.raises(CommandError, match="choice mode cannot work"):
        call_command("run_benchmark", "--benchmark", "t", "--models", "served", "--no-wait", stdout=io.StringIO(),
                     stderr=io.StringIO())
    assert not Run.objects.exists()


def test_registering_a_model_in_the_console_points_to_its_connection_test(client, admin_user, fake):
    assert client.login(username=admin_user.username, password=PASSWORD)
    answer = client.post(reverse("admin:runs_app_llmmodel_add"), {
        "name": "new-served", "litellm_model": "openai/fake", "api_base": fake.base_url, "notes": "",
        "answer_mode": "generate", "choice_strategy": "logprobs", "top_logprobs": "20", "temperature": "0",
        "max_tokens": "64", "top_p": "", "seed": "", "timeout_seconds": "30", "max_concurrency": "2",
        "requests_per_minute": "", "input_cost_per_token": "", "output_cost_per_token": ""}, follow=True)
    model = LLMModel.objects.get(name="new-served")
    assert reverse("run-model-connection", args=[model.pk]).encode() in answer.content
    assert b"test its connection" in answer.content
    assert fake.stats()["total_requests"] == 0  # nothing asked by registering


def test_a_test_no_worker_took_is_said_so_and_can_be_queued_again(signed_in, model, sent,
                                                                  django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        first = connection.request_connection_test(model)
    # Twenty minutes later (more than 15 and than 11 requests × its 10 s timeout), still queued.
    model.refresh_from_db()
    model.capabilities["requested_at"] = (timezone.now() - timedelta(minutes=20)).isoformat()
    model.save(update_fields=["capabilities"])
    job = connection.job_view(model)
    assert job["stale"] and not job["active"]
    page = signed_in.get(reverse("run-model-connection", args=[model.pk])).content.decode()
    assert "no worker has finished it: is the worker running" in page
    with django_capture_on_commit_callbacks(execute=True):
        second = connection.request_connection_test(model)
    assert second["job"] != first["job"] and len(sent) == 2
    # The first message, delivered late, runs nothing: its job was replaced.
    assert tasks.connection_test(*sent[0][1]) is None
    model.refresh_from_db()
    assert model.capabilities["job"] == second["job"] and model.capabilities["status"] == "queued"


def test_the_strategy_found_to_work_is_set_with_one_click(signed_in, model, fake, analyst, client):
    fake.configure(no_logprobs=True)
    connection.test_connection(model)
    page = signed_in.get(reverse("run-model-connection", args=[model.pk])).content.decode()
    assert "Use guided_choice for choice mode" in page
    answer = signed_in.post(reverse("run-model-use-strategy", args=[model.pk]), follow=True)
    model.refresh_from_db()
    assert model.choice_strategy == "guided_choice" and b"now reads its choice with guided_choice" in answer.content
    assert connection.launch_checks([model]) == []  # nothing left to say: choice mode works now
    assert "Use guided_choice" not in signed_in.get(reverse("run-model-connection", args=[model.pk])).content.decode()
    untested = LLMModel.objects.create(name="untested", litellm_model="openai/x", api_base=fake.base_url)
    answer = signed_in.post(reverse("run-model-use-strategy", args=[untested.pk]), follow=True)
    assert b"Not changed: untested&#x27;s connection has not been tested" in answer.content
    signed_in.logout()
    assert client.login(username=analyst.username, password=PASSWORD)
    assert client.post(reverse("run-model-use-strategy", args=[model.pk])).status_code == 403
