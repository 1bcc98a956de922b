"""One unit of work in-process (no broker): cache, permutation, modes, error records."""

from contextlib import contextmanager
from datetime import timedelta
from decimal import Decimal

import pytest
from django.conf import settings as django_settings
from django.urls import reverse
from django.utils import timezone

import gateway
from runs_app import execution, queueing, services, sweeping
from runs_app.models import LLMModel, Response, Run
from runs_app.signals import responses_answered
from scenarios_app import services as authoring
from scenarios_app.models import Benchmark
from tests.conftest import PASSWORD
from tests.factories import three_option_spec
from tests.fakes.fake_openai import FakeOpenAI, prompt_key

pytestmark = pytest.mark.django_db


@contextmanager
def answers_announced():
    """The ids `responses_answered` announces inside the block (the coding's signal)."""
    ids = []

    def receiver(sender, response_ids, **kwargs):
        ids.extend(response_ids)

    responses_answered.connect(receiver)
    try:
        yield ids
    finally:
        responses_answered.disconnect(receiver)


@pytest.fixture
def fake():
    with FakeOpenAI(seed=1) as server:
        yield server


@pytest.fixture
def benchmark():
    benchmark = Benchmark.objects.create(name="t")
    authoring.save_spec(benchmark, three_option_spec(dyads=[("CN", "JP"), ("US", "CU")]))
    return benchmark


def model(fake, **fields):
    defaults = dict(name="fake", litellm_model="openai/fake", api_base=fake.base_url, answer_mode="choice",
                    timeout_seconds=5)
    return LLMModel.objects.create(**{**defaults, **fields})


def launch(benchmark, models, monkeypatch, **kwargs):
    monkeypatch.setattr(queueing, "enqueue", lambda ids: None)
    monkeypatch.setattr(queueing, "schedule_sweep", lambda run_id: None)
    return services.launch_run(benchmark, models, **kwargs)


def claim_unit(response_id):
    """Another worker's claim of one unit: its token, or None if the unit was not taken."""
    token, taken = execution.claim([Response.objects.select_related("model").get(pk=response_id)])
    return token if taken else None


def run_all(run):
    return [execution.execute(pk).action for pk in run.responses.order_by("pk").values_list("pk", flat=True)]


def test_a_second_run_at_temperature_0_is_answered_from_the_cache(benchmark, fake, monkeypatch):
    chooser = model(fake)
    first = launch(benchmark, [chooser], monkeypatch)
    assert run_all(first) == ["done"] * 4
    second = launch(benchmark, [chooser], monkeypatch)
    assert run_all(second) == ["done"] * 4
    assert fake.stats()["total_requests"] == 4  # the second run called nothing
    assert set(second.responses.values_list("cache_hit", flat=True)) == {True}
    assert sorted(second.responses.values_list("chosen_letter", flat=True)) == sorted(
        first.responses.values_list("chosen_letter", flat=True))
    first.refresh_from_db()
    assert first.status == "done" and first.finished_at is not None


def test_repeated_sampling_never_uses_the_cache(benchmark, fake, monkeypatch):
    sampler = model(fake, answer_mode="generate", temperature=0.8, max_tokens=30)
    run = launch(benchmark, [sampler], monkeypatch, repeats=3)
    assert run_all(run) == ["done"] * 12  # 4 questions x 3 repeats
    assert fake.stats()["total_requests"] == 12
    response = run.responses.first()
    assert response.raw_output.startswith(("A:", "B:", "C:")) and not response.cache_hit
    assert response.params["temperature"] == 0.8 and response.chosen_letter == ""


def test_a_permuted_option_order_is_stored_and_the_letter_maps_back(benchmark, fake, monkeypatch):
    run = launch(benchmark, [model(fake)], monkeypatch, permute_options=True)
    run_all(run)
    orders = {tuple(r.option_order) for r in run.responses.all()}
    assert len(orders) > 1  # the units are lettered differently
    for response in run.responses.all():
        lettered = [line[3:] for line in response.messages[1]["content"].splitlines() if line[:3] in ("A: ", "B: ", "C: ")]
        canonical = response.question.option_texts()
        assert lettered == [canonical[i] for i in response.option_order]
        assert canonical[response.chosen_option] == lettered["ABC".index(response.chosen_letter)]


def test_every_option_log_probability_and_what_produced_the_answer_are_stored(benchmark, fake, monkeypatch):
    run = launch(benchmark, [model(fake)], monkeypatch)
    run_all(run)
    response = run.responses.select_related("question").first()
    assert set(response.option_logprobs) == {"A", "B", "C"}
    assert response.chosen_letter == max(response.option_logprobs, key=response.option_logprobs.get)
    assert response.resolved_model and response.finish_reason and response.latency_ms is not None
    assert response.prompt_tokens and response.completion_tokens == 1 and response.attempts == 1
    assert response.params["top_logprobs"] == 20 and response.params["max_tokens"] == 1
    assert prompt_key(response.messages) in fake.stats()["requests_per_prompt"]


def test_a_transient_error_asks_for_a_retry_after_at_least_retry_after(benchmark, fake, monkeypatch, settings):
    fake.configure(fault_rate=1.0, fault_kinds=["429"], retry_after=7)
    # The unit's own countdown: with the adaptive limit on, the 429 would also pause the
    # model's calls for 7 s (tests/gateway/test_adaptive_limits.py).
    settings.CFPD_ADAPTIVE = False
    run = launch(benchmark, [model(fake)], monkeypatch)
    unit = run.responses.first()
    outcome = execution.execute(unit.pk)
    assert outcome.action == "retry" and outcome.countdown >= 7
    unit.refresh_from_db()
    assert (unit.status, unit.error_kind, unit.attempts) == ("pending", "rate_limit", 1)
    settings.CFPD_MAX_ATTEMPTS = 2
    assert execution.execute(unit.pk).action == "failed"
    unit.refresh_from_db()
    assert (unit.status, unit.error_kind, unit.attempts) == ("failed", "rate_limit", 2)


def test_a_unit_already_taken_is_skipped(benchmark, fake, monkeypatch):
    run = launch(benchmark, [model(fake)], monkeypatch)
    unit = run.responses.first()
    assert claim_unit(unit.pk) is not None
    assert execution.execute(unit.pk).action == "skipped"
    assert fake.stats()["total_requests"] == 0


def test_a_model_without_a_free_slot_gives_the_unit_back_without_counting_an_attempt(
        benchmark, fake, monkeypatch):
    chooser = model(fake, max_concurrency=1)
    run = launch(benchmark, [chooser], monkeypatch)
    limiter = execution.get_limiter(django_settings.REDIS_URL)
    token = limiter.try_acquire(f"model-{chooser.pk}", 1, lease=60)
    monkeypatch.setattr(django_settings, "CFPD_SLOT_WAIT", 0.01)  # no wait for the slot
    try:
        unit = run.responses.first()
        assert execution.execute(unit.pk).action == "requeue"
        unit.refresh_from_db()
        assert (unit.status, unit.attempts) == ("pending", 0)
    finally:
        limiter.release(f"model-{chooser.pk}", token)


def test_answers_are_coded_as_they_arrive(benchmark, fake, monkeypatch):
    chooser, writer = model(fake), model(fake, name="writer", answer_mode="generate", max_tokens=30)
    run = launch(benchmark, [chooser, writer], monkeypatch, permute_options=True)
    run_all(run)
    for response in run.responses.select_related("model"):
        expected = "ABC"[response.chosen_option] if response.model == chooser else None
        assert response.code and response.code_source == ("choice" if response.model == chooser else "auto")
        if expected:
            assert response.code == expected  # canonical, though the options were shown permuted
        else:  # the fake writes "B: <option text>": the letter as shown, mapped back
            shown = response.raw_output[0]
            assert response.code == "ABC"[response.option_order["ABC".index(shown)]]


# --- edge cases of the engine ------------------------------------------------------------

def test_a_unit_that_fails_transiently_after_its_run_was_cancelled_ends_cancelled(benchmark, fake, monkeypatch):
    fake.configure(fault_rate=1.0, fault_kinds=["500"])
    run = launch(benchmark, [model(fake)], monkeypatch)
    unit = run.responses.first()
    real_complete = gateway.llm.complete

    def cancelled_while_in_flight(request):
        services.cancel_run(Run.objects.get(pk=run.pk))
        return real_complete(request)

    monkeypatch.setattr(gateway.llm, "complete", cancelled_while_in_flight)
    outcome = execution.execute(unit.pk)
    unit.refresh_from_db()
    # Before: back to pending with a retry that the cancelled run refuses, so pending forever.
    assert (unit.status, outcome.action) == ("cancelled", "cancelled")
    assert set(run.responses.values_list("status", flat=True)) == {"cancelled"}


def test_a_cached_answer_whose_row_was_not_written_reports_nothing_done(benchmark, fake, monkeypatch):
    chooser = model(fake)
    run_all(launch(benchmark, [chooser], monkeypatch))
    second = launch(benchmark, [chooser], monkeypatch)
    unit = second.responses.first()
    real_claim = execution.claim

    def claimed_then_taken_over(responses, token=None):
        token, taken = real_claim(responses, token)
        Response.objects.filter(pk__in=[r.pk for r in taken]).update(claim_token="another-worker")  # lease ran out
        return token, taken

    monkeypatch.setattr(execution, "claim", claimed_then_taken_over)
    with answers_announced() as answered:
        outcome = execution.execute(unit.pk)
    unit.refresh_from_db()
    assert outcome.action == "skipped" and answered == []  # before: "done", and coded
    assert (unit.status, unit.cache_hit, unit.claim_token) == ("running", False, "another-worker")


def test_a_run_pauses_when_its_budget_is_spent_and_a_raised_budget_continues_it(benchmark, fake, monkeypatch):
    priced = model(fake, input_cost_per_token=Decimal("0.001"), output_cost_per_token=Decimal("0.001"))
    run = launch(benchmark, [priced], monkeypatch, budget_usd="0.01")
    # The fake counts prompt tokens as words (about 100 here): one call costs about US$ 0.1.
    # The first answer spends the budget: the run pauses at once, and the other units'
    # tasks find it paused and leave their units pending.
    assert run_all(run) == ["done", "skipped", "skipped", "skipped"]
    run.refresh_from_db()
    spent_usd, spent_units = execution.spent(run.pk)
    assert run.status == Run.Status.PAUSED and spent_units == 1 and spent_usd >= Decimal("0.01")
    assert sorted(run.responses.values_list("status", "attempts")) == [
        ("done", 1), ("pending", 0), ("pending", 0), ("pending", 0)]
    assert fake.stats()["total_requests"] == 1
    with pytest.raises(services.RunError, match="raise the budget to resume it"):
        services.resume_run(run)
    assert services.resume_run(run, budget_usd="1000") == 3
    assert run_all(run)[1:] == ["done"] * 3
    run.refresh_from_db()
    assert run.status == Run.Status.DONE and fake.stats()["total_requests"] == 4


def test_a_units_budget_counts_finished_units(benchmark, fake, monkeypatch):
    run = launch(benchmark, [model(fake)], monkeypatch, budget_units=2)
    assert run_all(run) == ["done", "done", "skipped", "skipped"]
    run.refresh_from_db()
    assert run.status == Run.Status.PAUSED and services.budget_state(run)["spent_units"] == 2
    assert services.resume_run(run, budget_units="") == 2  # an empty budget removes it
    assert run_all(run)[2:] == ["done", "done"]


def test_the_sweeper_leaves_a_backlog_that_is_being_worked_through(benchmark, fake, monkeypatch):
    run = launch(benchmark, [model(fake)], monkeypatch)
    sent = []
    monkeypatch.setattr(queueing, "enqueue", lambda ids: sent.extend(ids))
    an_hour_ago = timezone.now() - timedelta(hours=1)
    run.responses.update(enqueued_at=an_hour_ago)  # queued long ago, behind a long backlog
    first, *waiting = run.responses.order_by("pk").values_list("pk", flat=True)
    assert execution.execute(first).action == "done"  # ... and the queue is moving
    assert services.sweep_run(run.pk) == (0, True) and sent == []  # before: all 3 sent again
    # The run stalls: its last answer an hour ago, nothing running. Its messages are lost:
    # they are sent again, the oldest first, a bounded batch per sweep.
    run.responses.filter(pk=first).update(answered_at=an_hour_ago)
    Response.objects.filter(pk=waiting[0]).update(enqueued_at=an_hour_ago - timedelta(minutes=1))
    monkeypatch.setattr(sweeping, "SWEEP_BATCH", 2)
    assert services.sweep_run(run.pk) == (2, True) and sent == waiting[:2]


def test_the_sweeper_goes_on_once_the_queue_has_passed_the_lost_units(benchmark, fake, monkeypatch):
    # Many messages lost at once: while the batch sent again is answered, the units sent
    # before it are still lost, and the next sweep sends the next batch.
    run = launch(benchmark, [model(fake)], monkeypatch)
    sent = []
    monkeypatch.setattr(queueing, "enqueue", lambda ids: sent.extend(ids))
    an_hour_ago = timezone.now() - timedelta(hours=1)
    run.responses.update(enqueued_at=an_hour_ago)
    resent, *older = run.responses.order_by("pk").values_list("pk", flat=True)
    Response.objects.filter(pk=resent).update(enqueued_at=timezone.now() - timedelta(minutes=20))
    assert execution.execute(resent).action == "done"  # answered now, but sent 40 minutes after the others
    assert services.sweep_run(run.pk) == (3, True) and sorted(sent) == sorted(older)


def test_the_sweeper_resends_a_unit_whose_worker_died(benchmark, fake, monkeypatch):
    run = launch(benchmark, [model(fake)], monkeypatch)
    sent = []
    monkeypatch.setattr(queueing, "enqueue", lambda ids: sent.extend(ids))
    run.responses.update(enqueued_at=timezone.now())
    unit = run.responses.first()
    claim_unit(unit.pk)
    assert services.sweep_run(run.pk) == (0, True)
    Response.objects.filter(pk=unit.pk).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    assert services.sweep_run(run.pk) == (1, True) and sent == [unit.pk]


def test_a_key_a_provider_echoes_back_is_never_stored_nor_shown(benchmark, fake, monkeypatch, client, analyst):
    key = "sk-proj-Zx9" + "a1B2c3D4e5" * 4
    monkeypatch.setenv("CFPD_LOCAL_API_KEY", key)  # sent as "Authorization: Bearer <key>"
    fake.configure(fault_rate=1.0, fault_kinds=["401_echo"])
    run = launch(benchmark, [model(fake)], monkeypatch)
    unit = run.responses.first()
    assert execution.execute(unit.pk).action == "failed"
    unit.refresh_from_db()
    assert unit.error_kind == "auth" and "Incorrect API key provided: [redacted]" in unit.error_message
    assert key[:12] not in unit.error_message
    assert client.login(username=analyst.username, password=PASSWORD)
    page = client.get(reverse("run-detail", args=[run.pk])).content.decode()
    api = client.get(reverse("api-response-list"), {"run": run.pk}).content.decode()
    assert "[redacted]" in page and "[redacted]" in api
    assert key[:12] not in page and key[:12] not in api


def test_a_unit_claimed_when_the_budget_is_already_spent_is_not_asked(benchmark, fake, monkeypatch):
    # Another worker's answer spent the budget while this unit was being claimed.
    run = launch(benchmark, [model(fake)], monkeypatch, budget_units=1)
    first, second = run.responses.order_by("pk").values_list("pk", flat=True)[:2]
    Response.objects.filter(pk=first).update(status=Response.Status.DONE)
    assert execution.execute(second).action == "paused"
    assert Response.objects.get(pk=second).status == "pending" and fake.stats()["total_requests"] == 0
    assert Run.objects.get(pk=run.pk).status == Run.Status.PAUSED


def test_error_text_stored_before_redaction_is_redacted_by_the_migration(benchmark, fake, monkeypatch):
    import importlib

    from django.apps import apps

    migration = importlib.import_module("runs_app.migrations.0006_run_budget")
    run = launch(benchmark, [model(fake)], monkeypatch)
    unit = run.responses.first()
    Response.objects.filter(pk=unit.pk).update(
        error_message="AuthenticationError: Incorrect API key provided: sk-proj-AbC123xyz456DEF")
    migration.redact_stored_errors(apps, None)
    assert Response.objects.get(pk=unit.pk).error_message == (
        "AuthenticationError: Incorrect API key provided: [redacted]")


@pytest.fixture
def ranked_family(monkeypatch):
    """A family whose rank prompt is the question text and whose continuations are the
    option texts in the order lettered (as BorderLines scores claimant names)."""
    from benchmarks_app import families

    family = families.Family(
        name="ranked", render=lambda q, order, condition, system: [{"role": "user", "content": q.text}],
        rank_prompt=lambda q, order, condition, system: (f"{q.text} Answer:",
                                                         [" " + q.options[i]["text"] for i in order]),
        permutable=False)
    monkeypatch.setitem(families._registry, "ranked", family)
    return family


def test_rank_mode_scores_each_option_and_codes_the_highest(ranked_family, fake, monkeypatch):
    from benchmarks_app.models import Question

    benchmark = Benchmark.objects.create(name="r", family="ranked")
    Question.objects.create(benchmark=benchmark, key="r/1", text="Is Atlantis a territory of A) Oz or B) Utopia?",
                            options=[{"text": "Oz"}, {"text": "Utopia"}], option_order=[0, 1], choice_count=2)
    # word log-probabilities: " Oz" -1.5, " Utopia" -0.5: B wins (sum over its one token).
    fake.configure(word_logprobs={"Oz": -1.5, "Utopia": -0.5})
    ranker = model(fake, name="ranker", answer_mode="rank")
    run = launch(benchmark, [ranker], monkeypatch, repeats=3)
    assert run_all(run) == ["done"]  # rank mode is deterministic: asked once whatever the repeats
    response = run.responses.get()
    assert response.option_logprobs == {"A": -1.5, "B": -0.5} and response.chosen_letter == "B"
    assert response.option_mean_logprobs == {"A": -1.5, "B": -0.5}
    assert response.messages == [{"role": "user", "content": "Is Atlantis a territory of A) Oz or B) Utopia? Answer:"}]
    assert response.params["mode"] == "rank" and response.params["continuations"] == [" Oz", " Utopia"]
    assert (response.code, response.code_source) == ("B", "choice")
    assert response.codes.get(is_current=True).rule == "rank-classification"


def test_rank_mode_on_a_family_without_a_rank_prompt_fails_once_with_a_reason(benchmark, fake, monkeypatch):
    run = launch(benchmark, [model(fake, name="ranker", answer_mode="rank")], monkeypatch)
    assert set(run_all(run)) == {"failed"}
    response = run.responses.first()
    assert response.error_kind == "bad_request" and "rank classification is not defined for cfpd" in response.error_message
    assert fake.stats()["total_requests"] == 0
