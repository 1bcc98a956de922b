"""A server that ignores the temperature is named on the run page once the run is done:
its samples at temperature 1 are identical question after question (runs_app.sampling)."""

import pytest
from django.urls import reverse

from accounts.services import create_user_with_role
from runs_app import sampling
from runs_app.models import LLMModel, Response, Run
from scenarios_app import services as authoring
from scenarios_app.models import Benchmark
from tests.factories import escalation_spec

pytestmark = pytest.mark.django_db


@pytest.fixture
def run():
    benchmark = Benchmark.objects.create(name="t")
    authoring.save_spec(benchmark, escalation_spec(dyads=[("CN", "RU"), ("US", "MX"), ("MX", "US")]))
    greedy = LLMModel.objects.create(name="tserve-smol", litellm_model="openai//tmp/smol", api_base="http://x/v1")
    sampled = LLMModel.objects.create(name="sampler", litellm_model="openai/x")
    run = Run.objects.create(benchmark=benchmark, status=Run.Status.DONE, repeats=3)
    run.llm_models.set([greedy, sampled])
    questions = list(benchmark.questions.order_by("pk")[:3])
    for question in questions:
        for repeat in range(3):
            Response.objects.create(run=run, question=question, model=greedy, repeat=repeat, status="done",
                                    params={"temperature": 1.0}, raw_output=f"The same answer to {question.pk}.")
            Response.objects.create(run=run, question=question, model=sampled, repeat=repeat, status="done",
                                    params={"temperature": 1.0}, raw_output=f"Answer {repeat} to {question.pk}.")
    return run


def test_the_greedy_servers_samples_are_named_and_the_sampling_ones_are_not(run):
    groups = sampling.sample_groups(run)
    # 3 questions × 2 models, 3 samples each; the greedy server's have 1 distinct answer, the other's 3.
    assert sorted((g.model, g.samples, g.distinct, g.temperature) for g in groups) == (
        [("sampler", 3, 3, 1.0)] * 3 + [("tserve-smol", 3, 1, 1.0)] * 3)
    warnings = sampling.temperature_warnings(run)
    assert len(warnings) == 1 and warnings[0].startswith("tserve-smol: at temperature 1, each of the 3 questions")


def test_the_run_page_shows_it_once_the_run_is_done(run, client):
    user, _ = create_user_with_role("olga", "persona-pass-123", role="operators")
    client.force_login(user)
    page = client.get(reverse("run-detail", args=[run.pk])).content.decode()
    assert page.count("data-temperature-warning") == 1 and "seems to ignore the temperature" in page
    Run.objects.filter(pk=run.pk).update(status=Run.Status.RUNNING)  # the first repeats may not all be in yet
    assert "data-temperature-warning" not in client.get(reverse("run-detail", args=[run.pk])).content.decode()
