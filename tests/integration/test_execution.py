"""One unit of work in-process (no broker): cache, permutation, modes, error records."""

import pytest
from django.conf import settings as django_settings

from runs_app import execution, services
from runs_app.models import LLMModel
from scenarios_app import services as authoring
from scenarios_app.models import Benchmark
from tests.factories import three_option_spec
from tests.fakes.fake_openai import FakeOpenAI, prompt_key

pytestmark = pytest.mark.django_db


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
    monkeypatch.setattr(services, "enqueue", lambda ids: None)
    monkeypatch.setattr(services, "schedule_sweep", lambda run_id: None)
    return services.launch_run(benchmark, models, **kwargs)


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
    assert execution.claim(unit.pk, 60) is not None
    assert execution.execute(unit.pk).action == "skipped"
    assert fake.stats()["total_requests"] == 0


def test_a_model_without_a_free_slot_gives_the_unit_back_without_counting_an_attempt(
        benchmark, fake, monkeypatch):
    chooser = model(fake, max_concurrency=1)
    run = launch(benchmark, [chooser], monkeypatch)
    limiter = execution.get_limiter(django_settings.REDIS_URL)
    token = limiter.try_acquire(f"model-{chooser.pk}", 1, lease=60)
    monkeypatch.setattr(execution, "slot", _no_wait_slot)
    try:
        unit = run.responses.first()
        assert execution.execute(unit.pk).action == "requeue"
        unit.refresh_from_db()
        assert (unit.status, unit.attempts) == ("pending", 0)
    finally:
        limiter.release(f"model-{chooser.pk}", token)


def _no_wait_slot(limiter, model, limit, per_minute, lease):
    from runs_app.limits import slot

    return slot(limiter, model, limit, per_minute, lease, wait=0.01)


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
