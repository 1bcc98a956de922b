"""The model gateway's interface (gateway/__init__.py) and its provider-batch transport's plain
values (gateway/batches.py), without Django, a database or a model server."""

import asyncio
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import gateway
from gateway import batches
from gateway.limits import LocalLimiter

ROOT = Path(__file__).resolve().parents[2]


def test_the_gateway_and_its_public_modules_import_without_django_or_litellm():
    code = ("import sys, gateway, gateway.batches, gateway.capabilities, gateway.local_models; "
            "print(sorted(name for name in ('django', 'litellm') if name in sys.modules))")
    found = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert found.stdout.strip() == "[]", found.stdout + found.stderr


def test_ask_scores_a_rank_request_as_continuations_and_completes_any_other(monkeypatch):
    calls = []
    monkeypatch.setattr(gateway.llm, "complete", lambda request: calls.append(("complete", request.mode)) or "said")
    monkeypatch.setattr(gateway.llm, "rank", lambda request, prompt, continuations: calls.append(
        ("rank", prompt, continuations)) or "scored")
    ranked = gateway.LLMRequest(model="m", messages=[{"role": "user", "content": "The capital is"}], mode="rank",
                                params={"mode": "rank", "continuations": [" Paris", " Rome"]})
    assert gateway.ask(ranked) == "scored"
    assert gateway.ask(gateway.LLMRequest(model="m", messages=[], mode="choice")) == "said"
    assert calls == [("rank", "The capital is", [" Paris", " Rome"]), ("complete", "choice")]


def test_ask_batch_runs_the_calls_together_on_one_loop_and_keeps_their_order():
    loops = []

    async def call(n):
        loops.append(asyncio.get_running_loop())
        await asyncio.sleep(0.2)
        return n

    started = time.monotonic()
    assert gateway.ask_batch([call(n) for n in range(5)]) == [0, 1, 2, 3, 4]
    # Five calls of 0.2 s together take about 0.2 s; one after another they would take 1 s.
    assert time.monotonic() - started < 0.8
    assert len(set(map(id, loops))) == 1


def test_learn_gives_a_429_to_the_models_limit_and_pause_and_counts_it_for_its_run():
    limiter = LocalLimiter()
    error = gateway.LLMError("rate_limit", "429", transient=True, retry_after=7)
    gateway.learn(limiter, "model-1", 16, None, error, run_id=3)
    # The limit starts at 4 (adaptive.Policy.start) and halves on a 429: 4 / 2 = 2.
    assert limiter.adaptive_limit("model-1", 16) == 2
    assert 6 < limiter.paused_for("model-1") <= 7
    assert limiter.run_calls(3) == {"model-1": {"calls": 1, gateway.RATE_LIMITED: 1, gateway.TIMEOUT: 0}}


def test_learn_takes_nothing_from_a_call_that_brought_neither_answer_nor_error():
    limiter = LocalLimiter()
    gateway.learn(limiter, "model-1", 16, None, None, run_id=3)
    assert limiter.run_calls(3) == {}


def test_the_batch_connection_carries_the_key_only_to_a_server_of_its_own(monkeypatch):
    monkeypatch.setenv("CFPD_LOCAL_API_KEY", "local-key")
    assert batches.connection("") == batches.connection(None) == {"custom_llm_provider": "openai"}
    assert batches.connection("http://127.0.0.1:8000/v1") == {
        "custom_llm_provider": "openai", "api_base": "http://127.0.0.1:8000/v1", "api_key": "local-key"}


def test_a_providers_batch_is_read_into_plain_values():
    remote = SimpleNamespace(
        id="batch_1", status="completed", output_file_id=None, error_file_id="file_e", input_file_id="file_i",
        metadata={"cfpd_batch": "7"}, request_counts=SimpleNamespace(total=3, completed=2, failed=1),
        errors=SimpleNamespace(data=[SimpleNamespace(code="invalid", message="line 2"),
                                     SimpleNamespace(code=None, message="late")]))
    assert batches._remote(remote) == batches.RemoteBatch(
        id="batch_1", status="completed", counts={"total": 3, "completed": 2, "failed": 1},
        message="invalid: line 2; late", output_file_id="", error_file_id="file_e", input_file_id="file_i",
        metadata={"cfpd_batch": "7"})
    bare = batches._remote(SimpleNamespace(id="batch_2", status="in_progress"))
    assert (bare.counts, bare.message, bare.output_file_id) == ({}, "", "")


def test_a_failed_file_or_batch_call_with_a_status_is_sorted_as_a_result_line_is():
    class Refused(Exception):
        def __init__(self, status_code):
            super().__init__("refused")
            self.status_code = status_code

    missing, busy = batches.classify(Refused(404)), batches.classify(Refused(429))
    assert (missing.kind, missing.transient) == ("bad_request", False)
    assert (busy.kind, busy.transient) == ("rate_limit", True)
    assert missing.message == "Refused: refused"


def test_a_batch_answer_is_half_the_models_own_price():
    request = gateway.LLMRequest(model="m", messages=[], input_cost_per_token=0.002, output_cost_per_token=0.004)
    # (100 x 0.002 + 10 x 0.004) / 2 = (0.2 + 0.04) / 2 = 0.12
    assert abs(batches.batch_cost(request, 100, 10) - 0.12) < 1e-12
