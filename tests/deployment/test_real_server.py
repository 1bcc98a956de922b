"""The product against a real OpenAI-compatible server that no one here wrote:
`transformers serve` (transformers' own server, FastAPI + uvicorn from the test
requirements) on the bundled SmolLM2 weights, converted once into the models folder as
the bundled runtime converts them (`local_runtime.prepare`, which also names the
architecture the server needs). One server per module: it starts in tens of seconds, more
under load.

What it shows: generate mode end to end (a small run, every answer coded or queued for a
reviewer); the connection test finds no log-probabilities, guided choice and a grammar
refused, and the launch refuses choice mode saying why; a long answer is waited for, and a
call to the server stalled past a tiny timeout is a transient timeout, retried, not a
failure."""

import os
import signal
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from django.conf import settings
from django.urls import reverse

from accounts.services import create_user_with_role
from encoding_app.models import ReviewTask
from runs_app import connection, execution, queueing, services
from gateway.local_runtime import LocalModelError, prepare
from runs_app.models import LLMModel, Response, Run
from runs_app.selection import Selection
from scenarios_app import services as authoring
from scenarios_app.models import Benchmark
from tests.conftest import PASSWORD
from tests.factories import escalation_spec

# Runs once, in the PostgreSQL + Redis pass (tests/passes.py): its subject is the model gateway against a
# real OpenAI-compatible server, as a lab deploys one beside PostgreSQL and Redis; the run engine and
# data layer under it are tested in both passes (test_worker_runs, test_provider_batches, test_crisis_runs).
pytestmark = pytest.mark.services

START_SECONDS = 600  # under a loaded 2-core machine the server takes minutes to import and load


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """(folder, api_base, process) of `transformers serve` pinned to the converted SmolLM2."""
    try:
        folder = prepare("smollm2", Path(settings.CFPD_MODELS_DIR))
    except LocalModelError as exc:
        pytest.skip(f"the bundled SmolLM2 weights are absent ({exc}): nothing to serve")
    port = _free_port()
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    serve = Path(sys.executable).with_name("transformers")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_VERBOSITY": "error"}
    with open(log, "wb") as out:
        process = subprocess.Popen([str(serve), "serve", "--host", "127.0.0.1", "--port", str(port),
                                    "--device", "cpu", str(folder)], stdout=out, stderr=subprocess.STDOUT, env=env,
                                   start_new_session=True)
    try:
        deadline = time.monotonic() + START_SECONDS
        while True:
            if process.poll() is not None:
                pytest.fail(f"transformers serve ended with {process.returncode}: {log.read_text()[-3000:]}")
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"transformers serve did not start in {START_SECONDS} s: {log.read_text()[-3000:]}")
            time.sleep(1)
        yield folder, f"http://127.0.0.1:{port}/v1", process
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture
def smol(served, db):
    folder, api_base, _ = served
    # As an operator registers it: openai/<the name the server answers to> at its api_base.
    return LLMModel.objects.create(name="smol-served", litellm_model=f"openai/{folder}", api_base=api_base,
                                   answer_mode="generate", temperature=0, max_tokens=24, timeout_seconds=300,
                                   max_concurrency=1)


@pytest.fixture
def benchmark(db):
    benchmark = Benchmark.objects.create(name="t")
    authoring.save_spec(benchmark, escalation_spec(dyads=[("CN", "RU"), ("US", "MX")]))
    return benchmark


@pytest.fixture
def no_broker(monkeypatch):
    """Units are asked here, one by one, as a worker would: nothing is sent to a queue."""
    monkeypatch.setattr(queueing, "_send", lambda *args, **kwargs: None)
    monkeypatch.setattr(queueing, "publish", lambda *args, **kwargs: None)


def test_generate_mode_end_to_end(smol, benchmark, no_broker, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        run = services.launch_run(benchmark, [smol], Selection(sample=2, seed=1), repeats=1)
    units = list(run.responses.order_by("pk"))
    assert len(units) == 2
    for unit in units:
        with django_capture_on_commit_callbacks(execute=True):
            assert execution.execute(unit.pk).action == "done"
    for unit in Response.objects.filter(run=run):
        assert unit.status == "done" and unit.raw_output.strip() and unit.completion_tokens
        assert unit.resolved_model  # what the server said it was
        # Coded by the encoder, or queued for a reviewer: never left without either.
        assert unit.code or ReviewTask.objects.filter(response=unit, status="open").exists()
    run.refresh_from_db()
    assert run.status == Run.Status.DONE


def test_the_probe_finds_what_the_server_supports_and_the_launch_refuses_choice_mode(
        smol, benchmark, client, no_broker):
    state = connection.test_connection(smol)
    smol.refresh_from_db()
    found = smol.capabilities["findings"]
    assert state["status"] == "done" and smol.capabilities_checked_at is not None
    assert found["answers"]["ok"] is True
    # transformers serve ignores `logprobs` (its chat handler lists it as unused)...
    assert found["logprobs"]["ok"] is False and found["logprobs"]["top"] == 0
    # ...answers 422 to guided_choice and grammar (unexpected fields), which LiteLLM turns into no answer...
    assert found["guided_choice"]["ok"] is False and found["grammar"]["ok"] is False
    # ...fails echo with max_tokens 0 (its completions generate at least one token, and ignore echo)...
    assert found["echo"]["ok"] is False
    # ...and decodes greedily whatever the temperature.
    assert found["temperature"]["ok"] is False and found["temperature"]["distinct"] == 1
    assert smol.capabilities["recommended"] == {"choice": None, "rank": None, "generate": True}

    LLMModel.objects.filter(pk=smol.pk).update(answer_mode="choice", choice_strategy="logprobs")
    smol.refresh_from_db()
    operator = create_user_with_role("olga", PASSWORD, role="operators")[0]
    assert client.login(username=operator.username, password=PASSWORD)
    plan = client.post(reverse("api-run-list"), {"benchmark": "t", "models": ["smol-served"], "dry_run": True},
                       content_type="application/json").json()
    [check] = plan["checks"]
    assert check["level"] == "refuse"
    assert check["text"].startswith(f"smol-served at {smol.api_base}: choice mode cannot work — the server returns "
                                    "no log-probabilities (found ")
    assert check["text"].endswith("by Test connection); use generate mode (its answers are coded by the encoder).")
    launched = client.post(reverse("api-run-list"), {"benchmark": "t", "models": ["smol-served"]},
                           content_type="application/json")
    assert launched.status_code == 400 and "choice mode cannot work" in launched.json()["models"][0]
    # Rank classification is refused the same way, with the server's own words.
    LLMModel.objects.filter(pk=smol.pk).update(answer_mode="rank")
    plan = client.post(reverse("api-run-list"), {"benchmark": "t", "models": ["smol-served"], "dry_run": True},
                       content_type="application/json").json()
    assert plan["checks"][0]["level"] == "refuse" and "rank classification cannot work" in plan["checks"][0]["text"]


@contextmanager
def _stalled(process: subprocess.Popen):
    """The server stopped (SIGSTOP) for the duration: it still accepts connections (the
    kernel's backlog) but answers nothing, as a stuck server does, whatever the machine's
    speed; then continued (SIGCONT)."""
    os.kill(process.pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(process.pid, signal.SIGCONT)


def test_a_long_answer_is_waited_for_and_a_tiny_timeout_is_a_transient_timeout(served, smol, benchmark, no_broker):
    run = services.launch_run(benchmark, [smol], Selection(sample=1, seed=2), repeats=1)
    [unit] = run.responses.all()
    # A long answer (up to 160 tokens) under a 300-second timeout: waited for, however long
    # the machine takes (no bound on its time: a fast machine answers in a fraction of a second).
    LLMModel.objects.filter(pk=smol.pk).update(max_tokens=160, timeout_seconds=300)
    assert execution.execute(unit.pk).action == "done"
    unit.refresh_from_db()
    assert unit.status == "done" and unit.latency_ms > 0 and unit.completion_tokens > 0 and unit.raw_output.strip()

    # A 1-second timeout while the server answers nothing (stopped; a fast machine answers a
    # short question within the second, so the stall is made, not hoped for): the call is
    # abandoned, recorded as a timeout and given back for a retry with backoff
    # (transient), not failed.
    second = services.launch_run(benchmark, [smol], Selection(sample=1, seed=2), repeats=1, use_cache=False)
    [unit] = second.responses.all()
    LLMModel.objects.filter(pk=smol.pk).update(max_tokens=400, timeout_seconds=1)
    with _stalled(served[2]):
        started = time.monotonic()
        outcome = execution.execute(unit.pk)
        waited = time.monotonic() - started
    unit.refresh_from_db()
    # The backoff is fully jittered (Celery's: a whole number of seconds from 0 to the step).
    assert outcome.action == "retry" and 0 <= outcome.countdown <= 2 * settings.CFPD_BACKOFF_FACTOR
    assert unit.status == "pending" and unit.error_kind == "timeout" and unit.attempts == 1
    assert "Timeout" in unit.error_message
    assert waited >= 1  # the call waited its timeout out
