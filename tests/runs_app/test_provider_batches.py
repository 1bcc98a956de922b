"""Batch delivery (runs_app.provider_batch) against a fake provider with OpenAI's batch
interface (tests/fakes/fake_batch.py): end to end with real workers on both passes
(SQLite + the file broker, PostgreSQL + Redis), a worker killed with SIGKILL in the middle
of a poll, partial failures, expiry, cancel; and in this process, step by step."""

import pytest

from runs_app import provider_batch, services
from runs_app.models import LLMModel, ProviderBatch, Run
from tests.fakes.fake_batch import FakeBatch
from tests.fakes.fake_openai import FakeOpenAI
from tests.runs_app.test_worker_runs import (  # noqa: F401 — fixtures
    clean_broker, demo, fake_model, run_finished, wait_for, workers)

# serialized_rollback: the flush after each test would otherwise wipe the seeded taxonomy and actors.
pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)

BATCH_ENV = {"CFPD_BATCH_POLL_SECONDS": "1"}


@pytest.fixture
def fake():
    with FakeBatch(seed=7) as server:
        server.configure_batches(delay=0.5)
        yield server


@pytest.fixture
def batch_workers(workers, monkeypatch):
    from tests.runs_app import test_worker_runs

    monkeypatch.setattr(test_worker_runs, "WORKER_ENV", {**test_worker_runs.WORKER_ENV, **BATCH_ENV})
    return workers


def launch(demo, model, sample, seed=3, **kwargs):
    return services.launch_run(demo, [model], services.Selection(sample=sample, seed=seed), delivery="batch",
                               **kwargs)


def answered_once(run, fake):
    """Every unit done, each answered by the provider once, and its answer coded or queued."""
    units = list(run.responses.all())
    answered = fake.batch_stats()["answered"]
    assert {r.status for r in units} == {"done"}, {r.status for r in units}
    assert {str(r.pk): 1 for r in units} == answered  # nothing asked twice, nothing left out
    assert all(r.chosen_letter and r.provider_batch_id for r in units)


def test_a_batch_run_is_answered_and_coded_exactly_once_by_the_workers(demo, fake, batch_workers):
    model = fake_model(fake, max_concurrency=2)
    run = launch(demo, model, sample=12)
    batch_workers.start()
    wait_for(lambda: run_finished(run), 90, "the batch run to finish")
    answered_once(run, fake)
    assert run.status == Run.Status.DONE
    [batch] = ProviderBatch.objects.filter(run=run)
    assert (batch.status, batch.size, batch.counts["written"]) == ("completed", 12, 12)
    assert batch.finished_at is not None and batch.provider_batch_id and batch.output_file_id
    # Coded as any answer: choice-mode answers get their code from the chosen option.
    assert not run.responses.filter(code="").exists()
    # Priced as a batch: the fake is in no price table, so the cost is unknown, not live.
    assert set(run.responses.values_list("cost", flat=True)) == {None}


def test_exactly_one_answer_per_unit_after_a_worker_is_killed_in_the_middle_of_a_poll(demo, fake, batch_workers):
    # Each download of a result file waits 3 s: the worker is killed while it waits.
    fake.configure_batches(delay=0.5, content_delay=3.0)
    run = launch(demo, fake_model(fake), sample=15)
    first = batch_workers.start()
    wait_for(lambda: fake.batch_stats()["content_requests"] >= 1, 90, "a worker downloading the batch's results")
    batch_workers.kill(first)  # SIGKILL mid-poll: the download cut off, nothing written yet
    assert not run.responses.filter(status="done").exists()
    fake.configure_batches(content_delay=0.0)
    batch_workers.start()
    wait_for(lambda: run_finished(run), 90, "the run to finish after the restart")
    answered_once(run, fake)
    assert fake.batch_stats()["created"] == 1  # the batch was polled on, not sent again
    assert ProviderBatch.objects.get(run=run).counts["written"] == 15


def test_lines_that_fail_are_recorded_or_asked_again_in_a_new_batch(demo, fake, batch_workers):
    fake.configure_batches(fail_first={"400": 2, "500": 3})
    run = launch(demo, fake_model(fake), sample=10)
    batch_workers.start()
    wait_for(lambda: run_finished(run), 90, "the run to finish")
    units = list(run.responses.order_by("pk"))
    # The first two lines answered 400: permanent, recorded once with the provider's message.
    assert [(u.status, u.error_kind) for u in units[:2]] == [("failed", "bad_request")] * 2
    assert "Invalid value for 'messages'" in units[0].error_message
    # The next three answered 500: transient, sent again in a second batch and answered.
    assert {(u.status, u.attempts) for u in units[2:5]} == {("done", 2)}
    assert {(u.status, u.attempts) for u in units[5:]} == {("done", 1)}
    first, second = ProviderBatch.objects.filter(run=run).order_by("pk")
    assert (first.size, first.counts["returned"], second.size) == (10, 3, 3)
    assert set(fake.batch_stats()["answered"].values()) == {1}


def test_an_expired_batch_keeps_its_answers_and_sends_the_rest_again(demo, fake, batch_workers):
    fake.configure_batches(expire=2)
    run = launch(demo, fake_model(fake), sample=8)
    batch_workers.start()
    # The first two batches expire with half their lines answered: 8 → 4 → 2 left.
    wait_for(lambda: run_finished(run), 120, "the run to finish")
    answered_once(run, fake)
    sizes = list(ProviderBatch.objects.filter(run=run).order_by("pk").values_list("size", "status"))
    assert sizes == [(8, "expired"), (4, "expired"), (2, "completed")]
    # A unit asked in three batches counts three attempts.
    assert sorted(run.responses.values_list("attempts", flat=True)) == [1] * 4 + [2] * 2 + [3] * 2


def test_cancelling_a_batch_run_cancels_its_provider_batch(demo, fake, batch_workers):
    fake.configure_batches(delay=3600, cancel_answers=2)
    run = launch(demo, fake_model(fake), sample=6)
    batch_workers.start()
    wait_for(lambda: ProviderBatch.objects.filter(run=run).exclude(provider_batch_id="").exists(), 60,
             "the batch to be created")
    services.cancel_run(run)
    wait_for(lambda: run_finished(run) and run.finished_at is not None, 60, "the cancelled run to end")
    batch = ProviderBatch.objects.get(run=run)
    assert (batch.status, batch.cancel_requested) == ("cancelled", True)
    assert fake.batch_stats()["batches"][batch.provider_batch_id]["status"] == "cancelled"
    # What the provider answered before the cancel is kept; the rest ends cancelled.
    statuses = sorted(run.responses.values_list("status", flat=True))
    assert statuses == ["cancelled"] * 4 + ["done"] * 2


# ---------------------------------------------------------------- in this process, step by step

def test_a_collect_seen_twice_writes_nothing_twice(demo, fake):
    fake.configure_batches(delay=0)
    run = launch(demo, fake_model(fake), sample=4)
    [batch] = provider_batch.submit_pending(run)
    assert set(run.responses.values_list("status", "claim_token")) == {("running", f"batch-{batch.pk}")}
    batch.refresh_from_db()
    assert batch.status == "in_progress" and batch.provider_batch_id
    assert provider_batch.poll(batch, force=True)
    answered = dict(run.responses.values_list("pk", "answered_at"))
    assert all(answered.values())
    # The same ended batch read again (a second poller, a restart before finished_at was kept).
    ProviderBatch.objects.filter(pk=batch.pk).update(finished_at=None)
    batch.refresh_from_db()
    provider_batch.collect(batch, "completed")
    assert dict(run.responses.values_list("pk", "answered_at")) == answered
    assert ProviderBatch.objects.get(pk=batch.pk).counts["written"] == 0


def test_a_batch_the_provider_failed_as_a_whole_fails_its_units_with_the_providers_message(demo, fake):
    fake.configure_batches(delay=0, fail_batch=True)
    run = launch(demo, fake_model(fake), sample=3)
    [batch] = provider_batch.submit_pending(run)
    batch.refresh_from_db()
    assert provider_batch.poll(batch, force=True)
    batch.refresh_from_db()
    assert batch.status == "failed" and "invalid_json_line" in batch.message and batch.finished_at
    units = list(run.responses.all())
    assert {(u.status, u.error_kind) for u in units} == {("failed", "bad_request")}
    assert all("not parseable as valid JSON" in u.error_message for u in units)
    run.refresh_from_db()
    assert run.status == Run.Status.DONE  # nothing left to ask: the run ends


def test_a_send_cut_off_after_the_batch_was_created_finds_it_again(demo, fake):
    run = launch(demo, fake_model(fake), sample=3)
    [batch] = provider_batch.submit_pending(run)
    # As if the worker died after create_batch answered and before its id was kept.
    ProviderBatch.objects.filter(pk=batch.pk).update(provider_batch_id="", status="preparing", polled_at=None)
    batch.refresh_from_db()
    provider_batch.poll(batch)
    batch.refresh_from_db()
    assert fake.batch_stats()["created"] == 1 and batch.provider_batch_id
    assert batch.status == "in_progress"


def test_a_server_without_a_batch_interface_fails_the_units_and_is_refused_next_time(demo):
    with FakeOpenAI(seed=1) as plain:
        model = fake_model(plain)
        run = launch(demo, model, sample=2)
        provider_batch.submit_pending(run)
    assert set(run.responses.values_list("status", "error_kind")) == {("failed", "bad_request")}
    model.refresh_from_db()
    assert model.capabilities["batch"] is False
    with pytest.raises(services.LaunchInvalid) as refused:
        launch(demo, model, sample=2)
    assert "no batch interface" in str(refused.value.errors["delivery"])


def test_the_connection_test_finds_out_whether_a_server_has_a_batch_interface(demo, fake):
    from runs_app import connection

    with_batches = fake_model(fake)
    connection.test_connection(with_batches)
    with_batches.refresh_from_db()
    assert with_batches.capabilities["findings"]["batches"]["ok"] is True
    assert provider_batch.refusal(with_batches) == ""
    with FakeOpenAI(seed=1) as plain:
        without = fake_model(plain, name="plain")
        connection.test_connection(without)
    without.refresh_from_db()
    assert without.capabilities["findings"]["batches"]["ok"] is False
    # Refused before anything is sent, with the reason.
    with pytest.raises(services.LaunchInvalid) as refused:
        launch(demo, without, sample=2)
    assert "found no batch interface" in " ".join(refused.value.errors["delivery"])


@pytest.mark.parametrize("changes, reason", [
    (dict(is_bundled=True, litellm_model="cfpd-local/smol"), "bundled model"),
    (dict(answer_mode="rank"), "rank mode"),
    (dict(litellm_model="anthropic/claude-3-5-sonnet-20241022", api_base=""), "anthropic model"),
])
def test_models_without_a_batch_interface_are_refused_with_a_plain_reason(demo, changes, reason):
    fields = dict(name="m", litellm_model="openai/fake", api_base="http://127.0.0.1:9/v1", answer_mode="choice")
    model = LLMModel.objects.create(**{**fields, **changes})
    with pytest.raises(services.LaunchInvalid) as refused:
        launch(demo, model, sample=2)
    assert reason in " ".join(refused.value.errors["delivery"])
    assert not Run.objects.exists()


# ---------------------------------------------------------------- the API, the plan and the run page

def test_the_api_launches_by_batch_and_its_plan_shows_batch_beside_live(client, demo, fake):
    from django.urls import reverse

    from accounts.services import create_user_with_role
    from tests.conftest import PASSWORD

    operator = create_user_with_role("olga", PASSWORD, role="operators")[0]
    assert client.login(username=operator.username, password=PASSWORD)
    fake_model(fake)
    LLMModel.objects.create(name="mini", litellm_model="openai/gpt-4o-mini", answer_mode="choice")
    LLMModel.objects.create(name="claude", litellm_model="anthropic/claude-3-5-sonnet-20241022",
                            answer_mode="choice")
    body = {"benchmark": "demo", "models": ["fake", "mini", "claude"], "sample": 4, "dry_run": True}
    plan = client.post(reverse("api-run-list"), body, content_type="application/json").json()
    by_name = {m["name"]: m for m in plan["models"]}
    # LiteLLM's table has gpt-4o-mini's batch prices: half its live ones (7.5e-8 vs 1.5e-7 per input token).
    mini = by_name["mini"]
    assert mini["batch_price_source"] == "batch price" and abs(mini["batch_cost"] - mini["cost"] / 2) < 1e-12
    assert by_name["fake"]["batch_cost"] is None and by_name["fake"]["batch_refusal"] == ""
    assert "anthropic" in by_name["claude"]["batch_refusal"] and not plan["batch_possible"]
    assert plan["batch_seconds"] == 86400

    refused = client.post(reverse("api-run-list"), {**body, "dry_run": False, "delivery": "batch"},
                          content_type="application/json")
    assert refused.status_code == 400 and "anthropic" in str(refused.json()["delivery"])
    made = client.post(reverse("api-run-list"), {**body, "models": ["fake"], "dry_run": False, "delivery": "batch"},
                       content_type="application/json")
    assert made.status_code == 201, made.content
    assert made.json()["delivery"] == "batch"
    run = Run.objects.get(pk=made.json()["id"])
    provider_batch.submit_pending(run)
    page = client.get(reverse("run-detail", args=[run.pk])).content.decode()
    assert "Provider batches" in page and "In progress" in page and "batch: the providers' batch interfaces" in page
    progress = client.get(reverse("run-progress", args=[run.pk])).json()
    assert [(b["status"], b["size"]) for b in progress["batches"]] == [("in_progress", 4)]


def test_run_benchmark_plans_and_refuses_batch_delivery(demo, fake, capsys):
    from django.core.management import CommandError, call_command

    fake_model(fake)
    LLMModel.objects.create(name="smol", litellm_model="cfpd-local/smol", is_bundled=True, answer_mode="choice")
    call_command("run_benchmark", "--benchmark", "demo", "--models", "fake", "--sample", "3", "--batch", "--dry-run")
    out = capsys.readouterr().out
    assert "batch cost $" in out and "within 24 h" in out and "by batch:" in out
    with pytest.raises(CommandError, match="bundled model"):
        call_command("run_benchmark", "--benchmark", "demo", "--models", "smol", "--sample", "3", "--batch",
                     "--dry-run")
