"""The real bundled local models, served by llama.cpp and reached through LiteLLM."""

import socket

import pytest
from django.conf import settings as django_settings

from runs_app import execution
from runs_app.local_models import BUNDLED, start_server
from runs_app.models import LLMModel, Response, Run
from scenarios_app import services as authoring
from scenarios_app.models import Benchmark
from tests.factories import three_option_spec


def free_port_pair():
    for _ in range(50):
        with socket.socket() as a, socket.socket() as b:
            a.bind(("127.0.0.1", 0))
            port = a.getsockname()[1]
            try:
                b.bind(("127.0.0.1", port + 1))
            except OSError:
                continue
            return port
    raise RuntimeError("no two adjacent free ports")


@pytest.fixture(scope="session")
def local_servers(tmp_path_factory):
    port = free_port_pair()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    processes = [start_server(b, django_settings.CFPD_MODELS_DIR, "127.0.0.1", port, log) for b in BUNDLED]
    yield port
    for process in processes:
        if process is not None:
            process.terminate()
            process.wait(timeout=20)


@pytest.fixture
def unit(db, local_servers, settings):
    settings.CFPD_LOCAL_LLM_PORT = local_servers

    def make(model_name, **model_changes):
        model = LLMModel.objects.get(name=model_name)
        for name, value in model_changes.items():
            setattr(model, name, value)
        model.save()
        benchmark, _ = Benchmark.objects.get_or_create(name="t")
        scenario = authoring.save_spec(benchmark, three_option_spec(dyads=[("CN", "JP")])).scenario
        question = scenario.questions.get(variant="full")
        run = Run.objects.create(benchmark=benchmark, use_cache=False)
        return Response.objects.create(run=run, question=question, model=model, option_order=[0, 1, 2])

    return make


@pytest.mark.parametrize("model_name", ["local-smollm2", "local-gemma3"])
def test_choice_mode_returns_a_letter_and_every_options_log_probability(unit, model_name):
    response = unit(model_name)
    assert execution.execute(response.pk).action == "done"
    response.refresh_from_db()
    assert response.status == "done" and response.chosen_letter in {"A", "B", "C"}
    assert set(response.option_logprobs) == {"A", "B", "C"}
    assert all(value is not None and value < 0 for value in response.option_logprobs.values())
    assert response.messages[1]["content"].endswith("C: Announce live-fire drills near Japan's convoy\nAnswer:")
    assert response.params["extra_body"] == {"grammar": 'root ::= "A" | "B" | "C"'}
    assert response.resolved_model and response.prompt_tokens > 50 and response.latency_ms > 0


def test_generate_mode_returns_text(unit):
    response = unit("local-smollm2", answer_mode="generate", temperature=0.7, max_tokens=24)
    assert execution.execute(response.pk).action == "done"
    response.refresh_from_db()
    assert response.status == "done" and response.raw_output.strip()
    assert response.chosen_letter == "" and response.option_logprobs is None
    assert response.params["temperature"] == 0.7 and response.completion_tokens >= 1
