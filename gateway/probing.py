"""The connection test: a few small requests that find out what a model's server supports.
No Django here; every request goes through `gateway.llm` (the one LiteLLM seam), and the
answers are read by `gateway.capabilities`.

Requests (nine at most, each short):
1. a one-line question in free text — does the server answer at all (if not, the rest is
   not tried);
2. one token with `logprobs` and `top_logprobs` — log-probabilities, and how many;
3. `guided_choice` (vLLM's extra field) and 4. a GBNF `grammar` (llama.cpp's) over two
   letters, of a prompt that an unconstrained model answers with a word — followed,
   refused or ignored;
5. the completions endpoint with `echo` and `max_tokens` 0 (one prompt) — rank
   classification's log-probabilities of an echoed prompt; 6. the same with a list of two
   prompts — one request, or one per option;
7.–9. three samples of a short prompt at temperature 1 — does the temperature change the
   output; 10. a listing of its batches (OpenAI's GET /batches), for an OpenAI-interface
   model — can batch delivery ask it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime, timezone

from . import capabilities, llm
from .capabilities import Observed

ANSWER_PROMPT = "Reply with one word: is water wet?"
CHOICE_PROMPT = ("Do not choose an option: reply with the word hello.\n"
                 f"{capabilities.PROBE_LETTERS[0]}: the first option\n{capabilities.PROBE_LETTERS[1]}: the second option")
LOGPROBS_PROMPT = "Which option comes first in the alphabet?\nA: apple\nB: banana\nAnswer with the letter only."
RANK_PROMPT = "The capital of France is"
RANK_CONTINUATIONS = [" Paris", " Rome"]
SAMPLE_PROMPT = "Write one short sentence about the sea."
SAMPLES = 3
SAMPLE_TEMPERATURE = 1.0
STEPS = 7 + SAMPLES  # requests at most, for the progress shown


@dataclass(frozen=True)
class Target:
    """The registered model as the probe addresses it."""

    model: str  # LiteLLM model string
    api_base: str | None = None
    timeout: float = 60
    top_logprobs: int = 20


def _request(target: Target, **fields) -> llm.LLMRequest:
    fields.setdefault("params", {"temperature": 0, "max_tokens": 8})
    return llm.LLMRequest(model=target.model, api_base=target.api_base or None, timeout=target.timeout,
                          top_logprobs=target.top_logprobs, **fields)


def _user(text: str) -> list[dict]:
    return [{"role": "user", "content": text}]


def _ask(request: llm.LLMRequest) -> Observed:
    started = time.perf_counter()
    try:
        result = llm.complete(request)
    except llm.LLMError as error:
        return Observed(error_kind=error.kind, error=error.message)
    return Observed(text=result.text, top=list(result.first_token_logprobs or []),
                    latency_ms=int((time.perf_counter() - started) * 1000))


def _score(target: Target, continuations: list[str]) -> Observed:
    request = _request(target, messages=[], mode="rank")
    try:
        scored = llm.score_continuations(request, RANK_PROMPT, continuations)
    except llm.LLMError as error:
        return Observed(error_kind=error.kind, error=error.message)
    return Observed(text=scored.winner_text, requests=scored.requests, latency_ms=scored.latency_ms)


def _list_batches(target: Target) -> Observed:
    try:
        llm.list_batches(_request(target, messages=[]))
    except llm.LLMError as error:
        return Observed(error_kind=error.kind, error=error.message)
    return Observed()


def probe(target: Target, progress=None) -> dict:
    """Every finding, with the time and the strategies they allow. `progress(step, done,
    total)` is called before each request."""
    done = 0

    def step(name: str):
        nonlocal done
        if progress:
            progress(name, done, STEPS)
        done += 1

    llm.warm_up()  # LiteLLM's import (seconds) is not the first answer's latency
    started = datetime.now(timezone.utc)
    findings: dict[str, dict] = {}
    step("answers")
    answered = _ask(_request(target, messages=_user(ANSWER_PROMPT)))
    findings["answers"] = capabilities.read_answers(answered)
    if answered.failed:
        for name in capabilities.FINDINGS[1:]:
            findings[name] = {"ok": None, "summary": "not tried: the server did not answer the first request",
                              "message": ""}
    else:
        step("logprobs")
        asked = max(1, target.top_logprobs)
        findings["logprobs"] = capabilities.read_logprobs(
            _ask(_request(target, messages=_user(LOGPROBS_PROMPT),
                          params={"temperature": 0, "max_tokens": 1, "logprobs": True, "top_logprobs": asked})),
            asked)
        for strategy in ("guided_choice", "grammar"):
            step(strategy)
            findings[strategy] = capabilities.read_constrained(
                _ask(_request(target, messages=_user(CHOICE_PROMPT), mode="choice", strategy=strategy,
                              letters=list(capabilities.PROBE_LETTERS))), strategy)
        step("echo")
        echoed = _score(target, RANK_CONTINUATIONS[:1])
        if echoed.error_kind == "server":  # once more: a server error twice is its answer to echo
            echoed = _score(target, RANK_CONTINUATIONS[:1])
            echoed.requests = 2
        findings["echo"] = capabilities.read_echo(echoed)
        listed = None
        if findings["echo"]["ok"]:
            step("prompt_list")
            listed = _score(target, RANK_CONTINUATIONS)
        findings["prompt_list"] = capabilities.read_prompt_list(listed, findings["echo"])
        samples = []
        for index in range(SAMPLES):
            step(f"temperature ({index + 1} of {SAMPLES})")
            samples.append(_ask(_request(target, messages=_user(SAMPLE_PROMPT),
                                         params={"temperature": SAMPLE_TEMPERATURE, "max_tokens": 24})))
        findings["temperature"] = capabilities.read_temperature(samples, SAMPLE_TEMPERATURE)
        provider = llm.batch_provider(target.model)
        listed = None
        if provider == "openai":
            step("batches")
            listed = _list_batches(target)
        findings["batches"] = capabilities.read_batches(listed, provider)
    return {"findings": findings, "recommended": capabilities.recommended(findings),
            "probed": {"model": target.model, "api_base": target.api_base or "", "timeout": target.timeout,
                       "started_at": started.isoformat(),
                       "seconds": round((datetime.now(timezone.utc) - started).total_seconds(), 1)}}
