"""The operators' run pages: who may read and act, launching, cancelling, resuming,
live progress, escaping of model output, and key presence on the models page."""

import re

import pytest
from django.db import connection
from django.urls import reverse

from accounts.services import create_user_with_role
from runs_app import services
from runs_app.models import LLMModel, Response, Run
from scenarios_app.models import Benchmark
from scenarios_app.services import save_spec
from tests.conftest import PASSWORD
from tests.factories import escalation_spec

pytestmark = pytest.mark.django_db

LIST = reverse("run-list")
MODELS = reverse("run-models")
LAUNCH = reverse("run-launch")


def login(client, user):
    assert client.login(username=user.username, password=PASSWORD)
    return client


@pytest.fixture
def operator(db):
    user, _ = create_user_with_role("olga", PASSWORD, role="operators")
    return user


@pytest.fixture
def benchmark(db):
    benchmark = Benchmark.objects.create(name="t")
    save_spec(benchmark, escalation_spec())  # two questions: (CN,RU) and (US,MX)
    return benchmark


@pytest.fixture
def bundled(db):
    return list(LLMModel.objects.filter(name__in=["local-smollm2", "local-gemma3"]).order_by("name"))


@pytest.fixture
def run(benchmark, bundled, operator):
    return services.launch_run(benchmark, bundled, launched_by=operator)


def launch_data(benchmark, models, **changes):
    data = {"benchmark": benchmark.pk, "models": [m.pk for m in models], "repeats": "1", "qualified_actors": "",
            "sample": "", "seed": "0", "system_prompt": "", "cache": "auto", "note": ""}
    data.update(changes)
    return data


def actions_shown(page):
    """The run actions the page shows (rendered hidden ones are toggled live by the script)."""
    return {name for name, tag in re.findall(r'<(?:a|form)[^>]*data-action="(\w+)"([^>]*)>', page)
            if " hidden" not in tag}


def urls_of(run):
    return {name: reverse(f"run-{name}", args=[run.pk]) for name in ("detail", "progress", "cancel", "resume")}


# --- who may do what ---------------------------------------------------------------------

def test_anonymous_visitors_are_sent_to_sign_in(client, run):
    for url in (LIST, MODELS, LAUNCH, *urls_of(run).values()):
        response = client.get(url)
        assert response.status_code == 302 and "login" in response["Location"], url


def test_an_outsider_is_refused_every_page(client, outsider, run):
    login(client, outsider)
    for url in (LIST, MODELS, LAUNCH, urls_of(run)["detail"], urls_of(run)["progress"]):
        assert client.get(url).status_code == 403, url
    for url in (LAUNCH, urls_of(run)["cancel"], urls_of(run)["resume"]):
        assert client.post(url).status_code == 403, url


@pytest.mark.parametrize("persona", ["analyst", "reviewer"])
def test_analysts_and_reviewers_read_but_cannot_act(client, request, persona, run, benchmark, bundled):
    login(client, request.getfixturevalue(persona))
    for url in (LIST, MODELS, urls_of(run)["detail"], urls_of(run)["progress"]):
        assert client.get(url).status_code == 200, url
    detail = client.get(urls_of(run)["detail"]).content.decode()
    assert "Cancel run" not in detail and "Resume run" not in detail
    assert "Launch a run" not in client.get(LIST).content.decode()
    assert client.get(LAUNCH).status_code == 403
    assert client.post(LAUNCH, launch_data(benchmark, bundled)).status_code == 403
    assert client.post(urls_of(run)["cancel"]).status_code == 403
    services.cancel_run(run)
    assert client.post(urls_of(run)["resume"]).status_code == 403
    assert Run.objects.count() == 1
    assert not run.responses.filter(status=Response.Status.PENDING).exists()


def test_an_operator_sees_the_actions(client, operator, run):
    login(client, operator)
    assert "Launch a run" in client.get(LIST).content.decode()
    assert client.get(LAUNCH).status_code == 200
    detail = client.get(urls_of(run)["detail"]).content.decode()
    assert actions_shown(detail) == {"cancel"}
    assert 'name="csrfmiddlewaretoken"' in detail


def test_the_navigation_shows_runs_to_readers_only(client, analyst, outsider):
    assert 'href="/runs/"' in login(client, analyst).get(reverse("home")).content.decode()
    client.logout()
    assert 'href="/runs/"' not in login(client, outsider).get(reverse("home")).content.decode()


# --- launching ---------------------------------------------------------------------------

def test_launching_creates_one_response_per_question_model_and_repeat(client, operator, benchmark, bundled):
    sampler = LLMModel.objects.create(name="sampler", litellm_model="openai/gpt-4o", answer_mode="generate",
                                      temperature=0.7)
    data = launch_data(benchmark, bundled + [sampler], repeats="3", note="smoke test", permute_options="on", seed="7")
    response = login(client, operator).post(LAUNCH, data)
    run = Run.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("run-detail", args=[run.pk])
    # 2 questions: each choice-mode model once (temperature 0), the sampling model 3 times.
    assert run.responses.count() == 2 * 1 + 2 * 1 + 2 * 3
    assert run.responses.filter(model=sampler).count() == 6
    assert (run.launched_by, run.repeats, run.note, run.permute_options, run.use_cache) == (
        operator, 3, "smoke test", True, None)
    assert run.selection["seed"] == 7
    page = client.get(response["Location"]).content.decode()
    assert f"Run {run.pk} launched: 10 units queued." in page


def test_the_selection_filters_reach_the_run(client, operator, benchmark, bundled):
    data = launch_data(benchmark, bundled[:1], domains=["escalation"], choice_counts=["2"],
                       qualified_actors="us, cn", cache="off", system_prompt="Answer with one letter.")
    login(client, operator).post(LAUNCH, data)
    run = Run.objects.get()
    assert run.selection["domains"] == ["escalation"] and run.selection["choice_counts"] == [2]
    assert run.selection["qualified_actors"] == ["US", "CN"]
    assert (run.use_cache, run.system_prompt, run.responses.count()) == (False, "Answer with one letter.", 2)


def test_a_run_error_is_shown_on_the_form_and_nothing_is_created(client, operator, benchmark):
    response = login(client, operator).post(LAUNCH, launch_data(benchmark, []))
    assert response.status_code == 200
    assert "Choose at least one model." in response.content.decode()
    assert Run.objects.count() == 0 and Response.objects.count() == 0


def test_a_selection_matching_nothing_is_a_form_error(client, operator, benchmark, bundled):
    response = login(client, operator).post(LAUNCH, launch_data(benchmark, bundled, qualified_actors="JP"))
    assert "no questions of benchmark" in response.content.decode()
    assert Run.objects.count() == 0


def test_unknown_actor_codes_are_named(client, operator, benchmark, bundled):
    response = login(client, operator).post(LAUNCH, launch_data(benchmark, bundled, qualified_actors="US,QQ"))
    assert "Unknown actor code(s): QQ." in response.content.decode()
    assert Run.objects.count() == 0


def test_external_models_are_not_offered(client, operator, benchmark):
    imported = LLMModel.objects.create(name="imported-gpt", is_external=True)
    page = login(client, operator).get(LAUNCH).content.decode()
    assert "local-smollm2" in page and "imported-gpt" not in page
    response = client.post(LAUNCH, launch_data(benchmark, [imported]))
    assert response.status_code == 200 and Run.objects.count() == 0


# --- cancel, resume, progress ------------------------------------------------------------

def test_cancel_then_resume(client, operator, run):
    login(client, operator)
    response = client.post(urls_of(run)["cancel"], {"confirm": "yes"}, follow=True)
    run.refresh_from_db()
    assert run.status == Run.Status.CANCELLED
    assert set(run.responses.values_list("status", flat=True)) == {Response.Status.CANCELLED}
    page = response.content.decode()
    assert f"Run {run.pk} cancelled: 4 pending units will not be asked." in page
    assert actions_shown(page) == {"resume"}

    response = client.post(urls_of(run)["resume"], follow=True)
    run.refresh_from_db()
    assert run.status == Run.Status.RUNNING
    assert set(run.responses.values_list("status", flat=True)) == {Response.Status.PENDING}
    assert f"Run {run.pk} resumed: 4 units queued again." in response.content.decode()


def test_cancelling_a_finished_run_says_why(client, operator, run):
    Run.objects.filter(pk=run.pk).update(status=Run.Status.DONE)
    page = login(client, operator).post(urls_of(run)["cancel"], {"confirm": "yes"}, follow=True).content.decode()
    assert "Not cancelled: run" in page and "nothing to cancel" in page


def test_a_done_run_with_failures_offers_resume(client, operator, run):
    run.responses.update(status=Response.Status.DONE)
    run.responses.filter(pk=run.responses.first().pk).update(status=Response.Status.FAILED, error_kind="timeout")
    Run.objects.filter(pk=run.pk).update(status=Run.Status.DONE)
    page = login(client, operator).get(urls_of(run)["detail"]).content.decode()
    assert actions_shown(page) == {"resume"}


def test_cancel_asks_for_confirmation_and_resume_takes_posts_only(client, operator, run):
    login(client, operator)
    for response in (client.get(urls_of(run)["cancel"]), client.post(urls_of(run)["cancel"])):
        page = response.content.decode()
        assert response.status_code == 200 and f"Cancel run {run.pk}?" in page
        assert '<input type="hidden" name="confirm" value="yes">' in page
    run.refresh_from_db()
    assert run.status == Run.Status.QUEUED and not run.responses.exclude(status=Response.Status.PENDING).exists()
    assert client.get(urls_of(run)["resume"]).status_code == 405


def test_progress_json_counts(client, analyst, run):
    responses = list(run.responses.order_by("pk"))
    Response.objects.filter(pk=responses[0].pk).update(status=Response.Status.DONE, prompt_tokens=100,
                                                       completion_tokens=1, cache_hit=True)
    Response.objects.filter(pk=responses[1].pk).update(status=Response.Status.FAILED, error_kind="auth")
    Response.objects.filter(pk=responses[2].pk).update(status=Response.Status.RUNNING)
    data = login(client, analyst).get(urls_of(run)["progress"]).json()
    assert {k: data[k] for k in ("total", "pending", "running", "done", "failed", "cancelled", "cached",
                                 "prompt_tokens", "completion_tokens", "finished")} == {
        "total": 4, "pending": 1, "running": 1, "done": 1, "failed": 1, "cancelled": 0, "cached": 1,
        "prompt_tokens": 100, "completion_tokens": 1, "finished": 2}
    # 1 of 4 units done = 25 % (the failed one is finished but not done); 1 pending + 1 running open
    assert data["percent"] == 25.0 and data["open"] == 2
    assert data["status"] == "queued" and data["active"] is True
    assert data["cost"] is None
    per_model = {m["name"]: m for m in data["models"]}
    assert set(per_model) == {"local-gemma3", "local-smollm2"}
    assert sum(m["total"] for m in per_model.values()) == 4
    assert sum(m["done"] for m in per_model.values()) == 1


# --- rendering -----------------------------------------------------------------------------

def test_model_output_and_error_text_are_escaped(client, analyst, run):
    first, second = run.responses.order_by("pk")[:2]
    Response.objects.filter(pk=first.pk).update(status=Response.Status.DONE, raw_output="<script>alert(1)</script>")
    Response.objects.filter(pk=second.pk).update(status=Response.Status.FAILED, error_kind="other",
                                                 error_message='<img src=x onerror="alert(2)">')
    page = login(client, analyst).get(urls_of(run)["detail"]).content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<script>alert(1)" not in page
    assert "&lt;img src=x onerror=&quot;alert(2)&quot;&gt;" in page and "<img src=x" not in page


def test_the_detail_page_shows_settings_errors_and_answers(client, analyst, run):
    Response.objects.filter(pk=run.responses.first().pk).update(
        status=Response.Status.DONE, chosen_letter="B", latency_ms=1234, raw_output="B")
    page = login(client, analyst).get(urls_of(run)["detail"]).content.decode()
    assert "the paper's (appendix A.4)" in page and "No errors<span data-so-far> so far</span>." in page
    assert "1,234 ms" in page and "esc-test" in page
    assert 'data-url="/runs/%d/progress.json"' % run.pk in page and "js/run_progress.js" in page


def test_the_list_shows_runs_and_progress(client, analyst, run):
    run.responses.filter(pk=run.responses.first().pk).update(status=Response.Status.DONE)
    page = login(client, analyst).get(LIST).content.decode()
    assert reverse("run-detail", args=[run.pk]) in page
    # Both models, in order, each a link to its profile (an analyst reads profiles).
    assert ('<span class="nowrap"><a class="model-link" href="/models/local-gemma3/">local-gemma3</a></span>, '
            '<span class="nowrap"><a class="model-link" href="/models/local-smollm2/">local-smollm2</a></span>') in page
    assert "olga" in page
    assert "1 / 4" in page


def test_an_empty_list_says_how_to_start(client, operator, analyst):
    assert "No runs yet — <a" in login(client, operator).get(LIST).content.decode()
    client.logout()
    assert "operators launch them" in login(client, analyst).get(LIST).content.decode()


def test_the_list_is_paginated(client, analyst, benchmark, bundled):
    for _ in range(26):
        services.launch_run(benchmark, bundled[:1])
    page = login(client, analyst).get(LIST).content.decode()
    assert "Page 1 of 2" in page and page.count('class="status status-queued"') == 25
    assert client.get(LIST + "?page=2").content.decode().count('class="status status-queued"') == 1


def test_the_models_page_says_whether_the_key_is_there_never_what_it_is(client, analyst, monkeypatch):
    LLMModel.objects.create(name="gpt-4o", litellm_model="openai/gpt-4o")
    LLMModel.objects.create(name="imported", is_external=True)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    page = login(client, analyst).get(MODELS).content.decode()
    assert "key missing: OPENAI_API_KEY" in page
    assert "bundled (runs in the worker)" in page and "external (imported answers)" in page and "no key needed" in page

    secret = "sk-dummy-value-that-must-not-leak-42"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    page = client.get(MODELS).content.decode()
    assert "key present" in page and "key missing" not in page
    assert secret not in page and "sk-dummy" not in page


def test_the_run_page_says_how_often_each_model_was_asked(client, operator, benchmark):
    # A choice-mode model is asked once whatever the run's repeats; a generate-mode model
    # once per repeat: 2 questions x 1 = 2 units and 2 questions x 5 = 10 units.
    chooser = LLMModel.objects.create(name="chooser", litellm_model="openai/x", answer_mode="choice")
    sampler = LLMModel.objects.create(name="sampler", litellm_model="openai/x", answer_mode="generate")
    run = services.launch_run(benchmark, [chooser, sampler], repeats=5, launched_by=operator)
    html = login(client, operator).get(reverse("run-detail", args=[run.pk])).content.decode()
    plan = html.split('id="run-plan"')[1].split("</p>")[0]
    assert "<strong>chooser</strong> 2 questions × 1 repeat = 2 units" in plan
    assert "<strong>sampler</strong> 2 questions × 5 repeats = 10 units" in plan
    row = html.split('data-model="chooser"')[1].split("</tr>")[0]
    assert '<td class="num nowrap" data-col="asked">2 × 1 = 2</td>' in row and "choice" in row
    assert "5 requested; planned per model: chooser 1, sampler 5" in html


def test_a_paused_run_shows_spent_against_budget_and_resumes_with_a_raised_one(client, operator, benchmark, bundled):
    run = services.launch_run(benchmark, bundled, budget_usd="0.5", launched_by=operator)
    first = run.responses.first()
    run.responses.filter(pk=first.pk).update(status=Response.Status.DONE, cost="0.6")
    Run.objects.filter(pk=run.pk).update(status=Run.Status.PAUSED)
    page = login(client, operator).get(urls_of(run)["detail"]).content.decode()
    assert "spent <strong>US$ 0.6000</strong> of US$ 0.5000" in page and "The run is paused" in page
    assert 'name="budget_usd"' in page and "Resume run" in page and "Cancel run" in page
    page = client.post(urls_of(run)["resume"], {"budget_usd": "0.5"}, follow=True).content.decode()
    assert "Not resumed: run" in page and "raise the budget to resume it" in page
    page = client.post(urls_of(run)["resume"], {"budget_usd": "ten"}, follow=True).content.decode()
    assert "Not resumed: budget_usd: must be an amount in US dollars" in page
    page = client.post(urls_of(run)["resume"], {"budget_usd": "2"}, follow=True).content.decode()
    run.refresh_from_db()
    assert run.status == Run.Status.RUNNING and str(run.budget_usd) == "2.0000"
    assert f"Run {run.pk} resumed: 3 units queued again." in page


def test_the_latest_rows_are_the_latest_answered_then_the_unanswered(run):
    from datetime import timedelta

    from django.utils import timezone

    from runs_app.views import latest_rows

    units = list(run.responses.order_by("pk"))  # 2 questions x 2 bundled models = 4 units
    now = timezone.now()
    # Answered out of id order: the latest answer first, whatever its id.
    Response.objects.filter(pk=units[0].pk).update(status="done", answered_at=now - timedelta(minutes=5))
    Response.objects.filter(pk=units[2].pk).update(status="done", answered_at=now)
    rows = latest_rows(run)
    assert [r["id"] for r in rows[:2]] == [units[2].pk, units[0].pk]
    assert {r["id"] for r in rows[2:]} == {units[1].pk, units[3].pk} and len(rows) == 4
    assert [r["status"] for r in rows] == ["done", "done", "pending", "pending"]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the index is PostgreSQL's (runs_app 0019)")
def test_the_latest_answered_are_read_through_an_index_of_answered_units_only(run):
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'response_run_latest'")
        [definition] = cursor.fetchone()
    assert "WHERE (answered_at IS NOT NULL)" in definition
