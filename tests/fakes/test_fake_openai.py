"""The fake OpenAI-compatible server (tests/fakes/fake_openai.py), driven by LiteLLM itself,
so the fake is known to look like OpenAI to the client the run engine uses. No database."""

import json
import math
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"

import litellm  # noqa: E402

from tests.fakes.fake_openai import (choose_letter, fake_tokens, prompt_key,  # noqa: E402
                                     word_logprob)
from tests.fakes.fixtures import fake, server  # noqa: F401  (fixtures)

litellm.suppress_debug_info = True

REPO = Path(__file__).resolve().parents[2]
QUESTION = "Which is better?\nA: tea\nB: coffee\nC: water"


def _user(text):
    return [{"role": "system", "content": "Answer with a letter."}, {"role": "user", "content": text}]


def call(fake, messages=None, **kwargs):
    return litellm.completion(model="openai/fake", api_base=fake.base_url, api_key="x", num_retries=0,
                              messages=messages or _user(QUESTION), **kwargs)


def http(url, data=None):
    """(status, parsed JSON or raw text) of a GET, or a POST when data is given."""
    body = None if data is None else json.dumps(data).encode()
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            status, raw = response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        status, raw = exc.code, exc.read().decode()
    try:
        return status, json.loads(raw)
    except ValueError:
        return status, raw


def test_completion_returns_text_and_usage(fake):
    response = call(fake)
    text = response.choices[0].message.content
    letter = choose_letter(QUESTION, ["A", "B", "C"])
    assert text.startswith(f"{letter}: I would choose option {letter}")
    assert response.choices[0].finish_reason == "stop"
    assert response.model == "fake"
    assert response.usage.prompt_tokens == len("Answer with a letter.".split()) + len(QUESTION.split())
    assert response.usage.completion_tokens == len(text.split())
    assert response.usage.total_tokens == response.usage.prompt_tokens + response.usage.completion_tokens
    assert call(fake).choices[0].message.content == text  # deterministic per prompt
    stats = fake.stats()
    assert stats["total_requests"] == stats["successes"] == 2
    assert stats["requests_per_prompt"] == {prompt_key(_user(QUESTION)): 2}


def test_choice_mode_letter_and_logprobs(fake):
    response = call(fake, max_tokens=1, logprobs=True, top_logprobs=20)
    choice = response.choices[0]
    assert choice.message.content == choose_letter(QUESTION, ["A", "B", "C"])
    assert choice.finish_reason == "length"
    first = choice.logprobs.content[0]
    assert first.token == choice.message.content
    top = {entry.token: entry.logprob for entry in first.top_logprobs}
    assert set(top) == {"A", "B", "C"}
    assert all(lp <= 0 for lp in top.values())
    assert sum(math.exp(lp) for lp in top.values()) <= 1
    assert max(top, key=top.get) == first.token
    assert first.logprob == top[first.token]
    assert response.usage.completion_tokens == 1


def test_constrained_choice_answers_a_letter(fake):
    grammar = call(fake, extra_body={"grammar": 'root ::= "A" | "B" | "C"'})
    guided = call(fake, extra_body={"guided_choice": ["A", "B", "C"]})
    assert grammar.choices[0].message.content == guided.choices[0].message.content
    assert guided.choices[0].message.content in ("A", "B", "C")
    assert guided.choices[0].finish_reason == "stop"
    two_options = call(fake, _user("No option lines here"), max_tokens=1)
    assert two_options.choices[0].message.content in ("A", "B")


def test_429_is_a_rate_limit_error_with_retry_after(fake):
    fake.configure(fault_rate=1, fault_kinds=["429"], retry_after=0.25)
    with pytest.raises(litellm.RateLimitError) as caught:
        call(fake)
    assert caught.value.status_code == 429
    # LiteLLM 1.105 keeps the provider's headers on `litellm_response_headers`;
    # its `.response` is a stand-in httpx.Response without them.
    assert caught.value.litellm_response_headers["retry-after"] == "0.25"
    assert fake.stats()["failures"] == {"429": 1}
    assert fake.stats()["total_requests"] == 1  # num_retries=0: no retry by LiteLLM or the OpenAI SDK


def test_500_is_an_internal_server_error(fake):
    fake.configure(fault_rate=1, fault_kinds=["500"])
    with pytest.raises(litellm.InternalServerError) as caught:
        call(fake)
    assert type(caught.value) is litellm.InternalServerError
    assert caught.value.status_code == 500


def test_400_is_a_bad_request_error(fake):
    fake.configure(fault_rate=1, fault_kinds=["400"])
    with pytest.raises(litellm.BadRequestError) as caught:
        call(fake)
    assert type(caught.value) is litellm.BadRequestError
    assert "injected bad request" in str(caught.value)


def test_malformed_body_is_an_internal_server_error(fake):
    fake.configure(fault_rate=1, fault_kinds=["malformed"])
    with pytest.raises(litellm.InternalServerError) as caught:
        call(fake)
    assert type(caught.value) is litellm.InternalServerError  # LiteLLM reports the JSON error as a 500
    assert caught.value.status_code == 500
    assert "Expecting value" in str(caught.value)
    assert fake.stats()["failures"] == {"malformed": 1}


def test_timeout_fault_makes_the_client_time_out(fake):
    fake.configure(fault_rate=1, fault_kinds=["timeout"], timeout_sleep=2)
    started = time.perf_counter()
    with pytest.raises(litellm.Timeout):
        call(fake, timeout=0.5)
    assert time.perf_counter() - started < 1.5
    deadline = time.time() + 1  # the handler of the client that hung up is cancelled
    while fake.stats()["in_flight"] and time.time() < deadline:
        time.sleep(0.02)
    assert fake.stats()["in_flight"] == 0


def test_fail_first_n_per_prompt(fake):
    fake.configure(fail_first_n_per_prompt=2)
    for _ in range(2):
        with pytest.raises(litellm.InternalServerError):
            call(fake)
    assert call(fake).choices[0].message.content
    with pytest.raises(litellm.InternalServerError):
        call(fake, _user("another prompt"))
    stats = fake.stats()
    assert stats["requests_per_prompt"][prompt_key(_user(QUESTION))] == 3
    assert stats["failures"] == {"fail_first_n": 3}
    assert stats["successes"] == 1


def test_seeded_faults_are_reproducible(fake):
    def run():
        fake.reset_stats()  # re-seeds
        outcomes = []
        for _ in range(40):
            status, body = http(f"{fake.base_url}/chat/completions", {"model": "m", "messages": _user(QUESTION)})
            outcomes.append(status if isinstance(body, dict) else "malformed")
        return outcomes, fake.stats()["failures"]

    fake.configure(fault_rate=0.5, fault_kinds=["429", "500", "400", "malformed"], seed=7)
    first, failures = run()
    assert run() == (first, failures)
    assert 5 < sum(failures.values()) < 35
    fake.configure(seed=8)
    assert run()[0] != first


def test_control_and_models_over_http(fake):
    status, settings = http(f"{fake.url}/control", {"latency": 0.05, "fault_rate": 0.1})
    assert status == 200 and settings["latency"] == 0.05 and settings["fault_rate"] == 0.1
    assert http(f"{fake.url}/control") == (200, settings)
    assert fake.settings == settings
    assert http(f"{fake.url}/control", {"nonsense": 1})[0] == 400
    assert http(f"{fake.url}/control", {"fault_kinds": ["503"]})[0] == 400
    with pytest.raises(ValueError):
        fake.configure(fault_rate=2)
    status, models = http(f"{fake.base_url}/models")
    assert status == 200 and [m["id"] for m in models["data"]] == ["fake"]
    assert http(f"{fake.url}/stats/reset", {})[1]["total_requests"] == 0


def test_concurrent_requests_are_served_in_parallel(fake):
    def one(i):
        return call(fake, _user(f"{QUESTION}\n#{i}"))

    with ThreadPoolExecutor(max_workers=50) as pool:
        call(fake)  # warm LiteLLM (lazy imports, its client cache), then the threads and connections
        fake.configure(latency=0.1)
        list(pool.map(one, range(50)))
        fake.configure(latency=0.3)
        fake.reset_stats()
        started = time.perf_counter()
        results = list(pool.map(one, range(50)))
        elapsed = time.perf_counter() - started
    assert all(r.choices[0].message.content for r in results)
    # One after another they would take 50 x 0.3 = 15 s; in parallel about 0.3 s plus LiteLLM's
    # CPU, which a loaded 2-core machine stretches to seconds: a bound far from both.
    assert elapsed < 50 * 0.3 / 2
    stats = fake.stats()
    assert stats["successes"] == 50 and stats["distinct_prompts"] == 50
    # Served one after another, at most one would be in flight; 50 threads on a loaded 2-core
    # machine start their calls over a few hundred milliseconds (LiteLLM's CPU per call), so not
    # all 50 overlap: 30 seen at load 4 with the suite beside it.
    assert stats["max_in_flight"] >= 20, stats["max_in_flight"]


def test_runs_as_a_separate_process():
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.fakes.fake_openai", "--port", "0", "--latency", "0.01", "--seed", "1",
         "--fault-rate", "0"], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline().strip()
        assert line.startswith("listening on http://127.0.0.1:") and line.endswith("/v1"), line
        base_url = line.removeprefix("listening on ")
        assert int(base_url.rsplit(":", 1)[1].split("/")[0]) > 0
        response = litellm.completion(model="openai/fake", api_base=base_url, api_key="x", num_retries=0,
                                      messages=_user(QUESTION), max_tokens=1)
        assert response.choices[0].message.content == choose_letter(QUESTION, ["A", "B", "C"])
        assert http(base_url.removesuffix("/v1") + "/stats")[1]["successes"] == 1
    finally:
        process.terminate()
        assert process.wait(timeout=5) == 0


# -- /v1/completions (rank classification) ---------------------------------------------------

def text_call(fake, prompt, **kwargs):
    return litellm.text_completion(model="text-completion-openai/fake", api_base=fake.base_url, api_key="x",
                                   num_retries=0, prompt=prompt, **kwargs)


def test_completions_echo_the_prompts_with_their_tokens_log_probabilities(fake):
    fake.configure(word_logprobs={"China": -0.25})
    prompts = ["Whose are the islands? Answer: China", "Whose are the islands? Answer: Vietnam"]
    response = text_call(fake, prompts, echo=True, logprobs=1, max_tokens=0)
    assert [choice.index for choice in response.choices] == [0, 1]
    for choice, prompt in zip(response.choices, prompts):
        assert choice.text == prompt  # max_tokens=0: the prompt alone, as vLLM answers
        logprobs = choice.logprobs
        assert logprobs.tokens == [token for token, _ in fake_tokens(prompt)]
        assert "".join(logprobs.tokens) == prompt
        assert logprobs.text_offset == [offset for _, offset in fake_tokens(prompt)]
        assert logprobs.token_logprobs[0] is None  # nothing came before the first token
        assert logprobs.token_logprobs[1:] == [word_logprob(token) if token.strip() != "China" else -0.25
                                               for token in logprobs.tokens[1:]]
    first = response.choices[0].logprobs
    assert (first.tokens[-1], first.token_logprobs[-1]) == (" China", -0.25)
    # Without the table a word's value comes from sha1: -(1 + (sha1 mod 1000) / 100), in [-10.99, -1].
    assert -10.99 <= word_logprob(" Vietnam") <= -1 and word_logprob(" Vietnam") == word_logprob("Vietnam")
    assert response.usage.prompt_tokens == sum(len(fake_tokens(p)) for p in prompts)
    assert response.usage.completion_tokens == 0


def test_completions_generate_after_the_echo(fake):
    response = text_call(fake, "Answer: China", echo=True, logprobs=1, max_tokens=2)
    choice = response.choices[0]
    assert choice.text == "Answer: China yes yes"
    assert choice.logprobs.text_offset == [0, 7, 13, 17]
    assert choice.logprobs.token_logprobs[2:] == [word_logprob(" yes")] * 2
    plain = text_call(fake, "Answer: China", max_tokens=1).choices[0]
    assert plain.text == " yes" and plain.logprobs is None


def test_completions_can_count_a_bos_marker_in_their_offsets(fake):
    fake.configure(echo_bos="<bos>")
    logprobs = text_call(fake, "Answer: China", echo=True, logprobs=1, max_tokens=0).choices[0].logprobs
    # as vLLM reports Gemma's first token: "<bos>" 0, "Answer:" 5, " China" 12 (not 7)
    assert logprobs.tokens == ["<bos>", "Answer:", " China"]
    assert logprobs.text_offset == [0, 5, 12]
    assert logprobs.token_logprobs[:2] == [None, None]


def test_completions_have_the_same_faults(fake):
    fake.configure(fault_rate=1, fault_kinds=["429"], retry_after=0.25)
    with pytest.raises(litellm.RateLimitError) as caught:
        text_call(fake, "Answer: China", echo=True, logprobs=1, max_tokens=0)
    assert caught.value.litellm_response_headers["retry-after"] == "0.25"
    fake.configure(fault_rate=1, fault_kinds=["malformed"])
    with pytest.raises(litellm.InternalServerError):
        text_call(fake, "Answer: China", echo=True, logprobs=1, max_tokens=0)
    fake.configure(fault_rate=0, fail_first_n_per_prompt=1)
    with pytest.raises(litellm.InternalServerError):
        text_call(fake, "Answer: Vietnam", max_tokens=0)
    assert text_call(fake, "Answer: Vietnam", max_tokens=0).choices[0].text == ""
    assert fake.stats()["failures"] == {"429": 1, "malformed": 1, "fail_first_n": 1}


def test_completions_refuse_a_body_without_prompts(fake):
    assert http(f"{fake.base_url}/completions", {"model": "m"})[0] == 400
    assert http(f"{fake.base_url}/completions", {"model": "m", "prompt": [1, 2]})[0] == 400
    assert http(f"{fake.base_url}/completions", {"model": "m", "prompt": "x", "max_tokens": -1})[0] == 400
    status, body = http(f"{fake.url}/completions", {"model": "m", "prompt": "x y", "max_tokens": 0, "echo": True})
    assert status == 200 and body["choices"][0]["text"] == "x y" and body["object"] == "text_completion"
    assert http(f"{fake.url}/control", {"word_logprobs": {"China": 0.5}})[0] == 400  # a log-probability is <= 0
