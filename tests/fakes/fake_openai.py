"""A fake OpenAI-compatible server (chat and text completions) for tests and benchmarks.

No Django here; only aiohttp. Two ways to run it:

* in-process, for tests::

      with FakeOpenAI(latency=0.1) as fake:
          litellm.completion(model="openai/fake", api_base=fake.base_url, api_key="x", ...)
          fake.configure(fault_rate=0.5)   # may be changed while requests are in flight
          fake.stats()

* as a separate process (Celery workers, benchmarks)::

      python -m tests.fakes.fake_openai --port 9100 --latency 0.2 --fault-rate 0.2 --seed 1

  prints ``listening on http://127.0.0.1:PORT/v1`` once ready (``--port 0`` picks a free port).

Endpoints:

* ``POST /v1/chat/completions`` (also ``/chat/completions``): a ``chat.completion`` answer.
  In choice mode (``max_tokens == 1`` or a ``grammar`` / ``guided_choice`` field) the
  content is one option letter, otherwise a short sentence naming the letter. The letter
  is sha1(last user message) mod the number of option lines (``A: ...``, ``B: ...``; 2
  when there are none), so it is the same for the same prompt. ``logprobs: true`` adds
  the first token's top log-probabilities over the option letters (the chosen highest).
  With ``replies`` set (``[[needle, reply], ...]``), a free-text answer whose last user
  message contains a needle is that needle's reply (the first found).
* ``POST /v1/completions`` (also ``/completions``): a ``text_completion`` answer, one
  choice per prompt (``prompt`` a string or a list of strings), for rank classification.
  Tokens are the text's words with their leading whitespace (``fake_tokens``), each
  word's log-probability from the ``word_logprobs`` setting (keyed on the bare word) or
  else from sha1(word) (``word_logprob``); the first token of a text has none, as at
  OpenAI. ``echo: true`` puts the prompt's tokens (with ``text_offset``) before the
  generated ones; ``max_tokens: 0`` generates nothing (so ``echo`` returns the prompt
  alone, as vLLM does); otherwise ``max_tokens`` (default 16) words `` yes`` follow.
  ``logprobs: N`` adds ``tokens``, ``token_logprobs``, ``text_offset`` and
  ``top_logprobs`` (each token alone). With ``echo_bos`` set (say ``<bos>``), an echo's
  tokens start with that token, which the text does not contain but every later offset
  counts, as vLLM reports the first token of Gemma and Llama prompts.
* ``GET /v1/models``: one model, ``fake``.
* ``GET /control`` / ``POST /control`` (JSON body): read / change the settings (`DEFAULTS`).
* ``GET /stats`` / ``POST /stats/reset``: the counters.

Faults. For each request, in this order:

1. ``fail_first_n_per_prompt``: the first N requests for each distinct prompt (all message
   contents, or a completion's prompts; counted since the last stats reset) fail with a 500
   (counted as ``fail_first_n``).
2. ``fault_rate``: a seeded ``random.Random(seed)`` decides whether the request fails and
   picks the kind uniformly from ``fault_kinds``: ``"429"`` (with ``Retry-After:
   retry_after``), ``"500"``, ``"400"``, ``"timeout"`` (sleep ``timeout_sleep`` seconds, then
   answer normally; the client should have given up by then), ``"malformed"`` (HTTP 200 whose
   body is not JSON), ``"401_echo"`` (opt-in, never a default: a 401 whose message repeats the
   key the client sent, as careless providers do, to test that keys are redacted). Both
   endpoints draw from the same generator. Draws happen in arrival order, so a sequential run is reproducible;
   setting ``seed`` or resetting the stats re-seeds the generator.

Hidden limits, checked before the faults (a provider's, for bench/adaptive_limits.py):
``limit_in_flight`` requests at once and ``limit_per_minute`` requests answered in any 60 s
(0: none); beyond either a 429 at once (kinds ``429_in_flight``, ``429_per_minute``) with
Retry-After (``retry_after``; for the minute, until a place in it frees); with
``limit_per_minute`` every answer carries ``x-ratelimit-limit-requests`` and
``x-ratelimit-remaining-requests`` as OpenAI's do.

Every request (faulty or not) first waits ``latency`` seconds (``asyncio.sleep``, so many
requests wait in parallel).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import hashlib
import json
import math
import random
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid

from aiohttp import web

FAULT_KINDS = ("429", "500", "timeout", "malformed", "400", "401_echo")
DEFAULT_FAULT_KINDS = ("429", "500", "timeout", "malformed")

DEFAULTS = {
    "latency": 0.0,  # seconds every request waits before it is answered
    "fault_rate": 0.0,  # 0..1, share of requests that fail
    "fault_kinds": list(DEFAULT_FAULT_KINDS),  # drawn uniformly for a failing request
    "seed": 0,  # seeds the fault decisions
    "retry_after": 0.1,  # seconds, the Retry-After header of a 429
    "timeout_sleep": 30.0,  # seconds a "timeout" fault sleeps before answering
    "fail_first_n_per_prompt": 0,  # the first N requests of each prompt fail with a 500
    "model_id": "fake",  # the one model GET /v1/models lists
    "word_logprobs": {},  # /v1/completions: a word's log-probability (bare word -> value <= 0); else sha1
    "echo_bos": "",  # /v1/completions: an echo starts with this unscored token, counted in later offsets (vLLM's <bos>)
    "one_prompt_only": False,  # /v1/completions: a list of prompts is a 400, as at servers that take one string
    "no_logprobs": False,  # chat: log-probabilities asked for are not sent (a server that ignores `logprobs`)
    # A provider's hidden limits (0: none): beyond them a 429 with Retry-After, at once.
    "limit_in_flight": 0,  # requests in flight at once (Retry-After: `retry_after`)
    "limit_per_minute": 0,  # requests answered in any 60 s; answers carry x-ratelimit-*-requests headers
    "no_rate_headers": False,  # ...unless this: the limits stay hidden (a provider that sends none)
    # chat, free text: [[needle, reply], ...]: the first needle found in the last user message
    # gives the answer's content (a translation's draft and back-translation, issue 41)
    "replies": [],
}

_OPTION_LINE = re.compile(r"^([A-Z]): ", re.MULTILINE)
_FREE_TEXT = "{letter}: I would choose option {letter} because it seems the most reasonable of the options given."
_CRISIS_TEXT = "RECOMMENDATIONS: {action} (sample {sample})\nREASONING: it keeps the crisis from escalating."
_CRISIS_ACTIONS = ("Open talks with the adversary at once.", "Send patrol boats to shadow the ship.",
                   "Ask the alliance for consultations.", "Board the ship with the navy.")
_CHOSEN_PROBABILITY = 0.6  # the chosen letter; the others share 0.35, so the total is 0.95 <= 1
_OTHERS_PROBABILITY = 0.35


# -- pure helpers --------------------------------------------------------------------------

def _text(content) -> str:
    """A message's content as text (a string, or a list of {type: text, text} parts)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(part.get("text", "") if isinstance(part, dict) else str(part) for part in content)
    return str(content)


def prompt_text(messages: list) -> str:
    """The text that identifies a prompt: all message contents, one after another."""
    return "\n".join(_text(m.get("content")) if isinstance(m, dict) else str(m) for m in messages)


def prompt_key(messages: list) -> str:
    """The key of a prompt in ``stats()["requests_per_prompt"]``: sha1(prompt)[:12]."""
    return hashlib.sha1(prompt_text(messages).encode("utf-8")).hexdigest()[:12]


def last_user_message(messages: list) -> str:
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            return _text(message.get("content"))
    return ""


def option_letters(text: str) -> list[str]:
    """The letters of the option lines (``A: ...``) in a message; A and B when there are none."""
    letters = list(dict.fromkeys(_OPTION_LINE.findall(text)))
    return letters or ["A", "B"]


def choose_letter(text: str, letters: list[str]) -> str:
    """The deterministic answer: sha1(text) mod the number of options."""
    digest = int.from_bytes(hashlib.sha1(text.encode("utf-8")).digest()[:8], "big")
    return letters[digest % len(letters)]


def letter_logprobs(chosen: str, letters: list[str]) -> list[tuple[str, float]]:
    """(letter, log-probability) over the options, the chosen first and highest; the
    probabilities sum to 0.95 (1 - the mass of tokens that are not letters)."""
    others = [letter for letter in letters if letter != chosen]
    if not others:
        return [(chosen, math.log(_CHOSEN_PROBABILITY + _OTHERS_PROBABILITY))]
    other_lp = math.log(_OTHERS_PROBABILITY / len(others))
    return [(chosen, math.log(_CHOSEN_PROBABILITY))] + [(letter, other_lp) for letter in others]


def _word_count(messages: list) -> int:
    return sum(len(_text(m.get("content")).split()) for m in messages if isinstance(m, dict))


_TOKEN = re.compile(r"\s*\S+|\s+")
_GENERATED_WORD = " yes"


def fake_tokens(text: str) -> list[tuple[str, int]]:
    """The fake tokenizer: (token, character offset) for each word with the whitespace
    before it (" China" is one token, as in byte-level BPE); trailing whitespace is a
    token of its own. The tokens put together give the text back."""
    return [(match.group(), match.start()) for match in _TOKEN.finditer(text)]


def word_logprob(token: str, table: dict | None = None) -> float:
    """A token's log-probability: the table's value for the bare word, else
    -(1 + (sha1(word) mod 1000) / 100), in [-10.99, -1]."""
    word = token.strip()
    if table and word in table:
        return float(table[word])
    digest = int.from_bytes(hashlib.sha1(word.encode("utf-8")).digest()[:8], "big")
    return -(1 + (digest % 1000) / 100)


def text_logprobs(text: str, table: dict | None = None, start: int = 0, after_context: bool = False) -> dict:
    """OpenAI's completions ``logprobs`` object for a text at character offset ``start``
    of the choice's text. The first token of a text with nothing before it (an echoed
    prompt, ``after_context`` false) has no log-probability, as at OpenAI and vLLM."""
    tokens, offsets, values = [], [], []
    for token, offset in fake_tokens(text):
        tokens.append(token)
        offsets.append(start + offset)
        values.append(word_logprob(token, table) if offset or after_context else None)
    return {"tokens": tokens, "token_logprobs": values, "text_offset": offsets,
            "top_logprobs": [None if value is None else {token: value} for token, value in zip(tokens, values)]}


def _validate(settings: dict) -> dict:
    """The settings checked and normalised; ValueError on a bad or unknown one."""
    unknown = set(settings) - set(DEFAULTS)
    if unknown:
        raise ValueError(f"unknown settings: {sorted(unknown)}; known: {sorted(DEFAULTS)}")
    clean = {}
    for name, value in settings.items():
        try:
            if name in ("latency", "retry_after", "timeout_sleep", "fault_rate"):
                value = float(value)
                if value < 0 or (name == "fault_rate" and value > 1):
                    raise ValueError
            elif name in ("fail_first_n_per_prompt", "seed", "limit_in_flight", "limit_per_minute"):
                if isinstance(value, bool) or int(value) != value:
                    raise ValueError
                value = int(value)
                if name != "seed" and value < 0:
                    raise ValueError
            elif name == "fault_kinds":
                if isinstance(value, str):
                    value = [kind.strip() for kind in value.split(",") if kind.strip()]
                value = [str(kind) for kind in value]
                if not value or any(kind not in FAULT_KINDS for kind in value):
                    raise ValueError
            elif name in ("model_id", "echo_bos"):
                value = str(value)
            elif name in ("one_prompt_only", "no_logprobs"):
                if not isinstance(value, bool):
                    raise ValueError
            elif name == "no_rate_headers":
                if not isinstance(value, bool):
                    raise ValueError
            elif name == "word_logprobs":
                if not isinstance(value, dict):
                    raise ValueError
                value = {str(word): float(lp) for word, lp in value.items()}
                if any(lp > 0 or math.isnan(lp) for lp in value.values()):
                    raise ValueError
            elif name == "replies":
                if not isinstance(value, list) or not all(isinstance(pair, (list, tuple)) and len(pair) == 2
                                                          for pair in value):
                    raise ValueError
                value = [[str(needle), str(reply)] for needle, reply in value]
        except (TypeError, ValueError):
            raise ValueError(f"bad value for {name}: {value!r}") from None
        clean[name] = value
    return clean


def _error_body(message: str, type_: str, code: str | None = None) -> str:
    return json.dumps({"error": {"message": message, "type": type_, "param": None, "code": code}})


# -- the server ----------------------------------------------------------------------------

class FakeState:
    """Settings and counters. Only touched from the server's event loop."""

    def __init__(self, **settings):
        self.settings = dict(DEFAULTS, fault_kinds=list(DEFAULTS["fault_kinds"]), word_logprobs={})
        self.settings.update(_validate(settings))
        self.rng = random.Random(self.settings["seed"])
        self.reset_stats()

    def configure(self, settings: dict) -> dict:
        clean = _validate(settings)
        self.settings.update(clean)
        if "seed" in clean:
            self.rng = random.Random(clean["seed"])
        return dict(self.settings)

    def reset_stats(self) -> None:
        self.rng = random.Random(self.settings["seed"])
        self.total = 0
        self.successes = 0
        self.failures: dict[str, int] = {}
        self.per_prompt: dict[str, int] = {}
        self.in_flight = 0
        self.max_in_flight = 0
        self.started = time.time()
        self.admitted: collections.deque = collections.deque()  # times of answers counted by limit_per_minute

    def stats(self) -> dict:
        return {
            "total_requests": self.total,
            "successes": self.successes,
            "failures": dict(self.failures),
            "failed": sum(self.failures.values()),
            "requests_per_prompt": dict(self.per_prompt),
            "distinct_prompts": len(self.per_prompt),
            "in_flight": self.in_flight,
            "max_in_flight": self.max_in_flight,
            "since": self.started,
        }

    def fail(self, kind: str) -> None:
        self.failures[kind] = self.failures.get(kind, 0) + 1


STATE = web.AppKey("state", FakeState)


def _json(data, status: int = 200, headers=None) -> web.Response:
    return web.Response(text=json.dumps(data), status=status, content_type="application/json", headers=headers)


def _error(state: FakeState, kind: str, status: int, message: str, type_: str, code=None, headers=None):
    state.fail(kind)
    return web.Response(text=_error_body(message, type_, code), status=status, content_type="application/json",
                        headers=headers)


def _over_hidden_limit(state: FakeState) -> web.Response | None:
    """A 429 (kinds "429_in_flight", "429_per_minute") when the request passes a hidden
    limit; else None, the request counted in the minute's window."""
    settings, now = state.settings, time.monotonic()
    if settings["limit_in_flight"] and state.in_flight > settings["limit_in_flight"]:
        return _error(state, "429_in_flight", 429, "Too many requests in flight", "requests",
                      code="rate_limit_exceeded", headers={"Retry-After": f"{settings['retry_after']:g}"})
    if settings["limit_per_minute"]:
        while state.admitted and state.admitted[0] <= now - 60:
            state.admitted.popleft()
        if len(state.admitted) >= settings["limit_per_minute"]:
            wait = max(0.1, round(state.admitted[0] + 60 - now, 1))
            return _error(state, "429_per_minute", 429, "Rate limit reached for requests per minute", "requests",
                          code="rate_limit_exceeded", headers={"Retry-After": f"{wait:g}"})
        state.admitted.append(now)
    return None


def _rate_headers(state: FakeState) -> dict | None:
    limit = state.settings["limit_per_minute"]
    if not limit:
        return None
    if state.settings["no_rate_headers"]:
        return None
    return {"x-ratelimit-limit-requests": str(limit),
            "x-ratelimit-remaining-requests": str(max(0, limit - len(state.admitted))),
            # Until the oldest answer counted leaves the window (a place frees), as a duration.
            "x-ratelimit-reset-requests": f"{max(0.0, state.admitted[0] + 60 - time.monotonic()) if state.admitted else 0.0:.3f}s"}


def _completion(body: dict, messages: list, replies: list | None = None) -> dict:
    user_text = last_user_message(messages)
    guided = body.get("guided_choice")
    if isinstance(guided, list) and guided and all(isinstance(choice, str) for choice in guided):
        letters = list(dict.fromkeys(guided))
    else:
        letters = option_letters(user_text)
    letter = choose_letter(user_text, letters)
    limit = body.get("max_tokens", body.get("max_completion_tokens"))
    choice_mode = limit == 1 or "grammar" in body or "guided_choice" in body
    canned = next((reply for needle, reply in replies or () if needle in user_text), None)
    if choice_mode:
        content = letter
    elif canned is not None:
        content = canned
    elif "RECOMMENDATIONS:" in user_text:  # a free-form crisis prompt: a sampled answer, new each time
        content = _CRISIS_TEXT.format(action=random.choice(_CRISIS_ACTIONS), sample=uuid.uuid4().hex[:8])
    else:
        content = _FREE_TEXT.format(letter=letter)
    completion_tokens = 1 if choice_mode else len(content.split())
    prompt_tokens = _word_count(messages)
    choice = {"index": 0, "message": {"role": "assistant", "content": content},
              "finish_reason": "length" if limit == 1 else "stop"}
    if body.get("logprobs"):
        ranked = letter_logprobs(letter, letters)
        chosen_lp = ranked[0][1]
        top_n = body.get("top_logprobs")
        if isinstance(top_n, int) and not isinstance(top_n, bool) and top_n >= 0:
            ranked = ranked[:top_n]
        choice["logprobs"] = {"content": [{
            "token": letter, "logprob": chosen_lp, "bytes": None,
            "top_logprobs": [{"token": token, "logprob": lp, "bytes": None} for token, lp in ranked],
        }]}
    return {
        "id": f"chatcmpl-fake-{uuid.uuid4().hex[:24]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": str(body.get("model") or "fake"),
        "system_fingerprint": "fake",
        "choices": [choice],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }


def _text_completion(body: dict, prompts: list[str], table: dict, bos: str = "") -> dict:
    limit = body.get("max_tokens")
    limit = 16 if limit is None else min(limit, 256)
    echo = bool(body.get("echo"))
    choices, prompt_tokens, completion_tokens = [], 0, 0
    for index, prompt in enumerate(prompts):
        generated = _GENERATED_WORD * limit
        choice = {"index": index, "text": (prompt if echo else "") + generated, "logprobs": None,
                  "finish_reason": "length"}
        if body.get("logprobs") is not None:
            logprobs = text_logprobs(prompt, table) if echo else {
                "tokens": [], "token_logprobs": [], "text_offset": [], "top_logprobs": []}
            after = text_logprobs(generated, table, start=len(prompt) if echo else 0, after_context=True)
            for name in logprobs:
                logprobs[name] += after[name]
            if echo and bos:
                logprobs = {"tokens": [bos, *logprobs["tokens"]], "token_logprobs": [None, *logprobs["token_logprobs"]],
                            "text_offset": [0, *(offset + len(bos) for offset in logprobs["text_offset"])],
                            "top_logprobs": [None, *logprobs["top_logprobs"]]}
            choice["logprobs"] = logprobs
        choices.append(choice)
        prompt_tokens += len(fake_tokens(prompt))
        completion_tokens += limit
    return {
        "id": f"cmpl-fake-{uuid.uuid4().hex[:24]}",
        "object": "text_completion",
        "created": int(time.time()),
        "model": str(body.get("model") or "fake"),
        "choices": choices,
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }


def _read_chat(body) -> tuple[str, object]:
    messages = body.get("messages") if isinstance(body, dict) else None
    if not isinstance(messages, list):
        raise ValueError
    return prompt_key(messages), messages


def _read_completion(body) -> tuple[str, object]:
    prompt = body.get("prompt") if isinstance(body, dict) else None
    prompts = [prompt] if isinstance(prompt, str) else prompt
    if not isinstance(prompts, list) or not prompts or not all(isinstance(p, str) for p in prompts):
        raise ValueError
    limit = body.get("max_tokens")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
        raise ValueError
    return hashlib.sha1("\n".join(prompts).encode("utf-8")).hexdigest()[:12], prompts


async def _chat_completions(request: web.Request) -> web.StreamResponse:
    def answer(body, messages, state):
        if state.settings["no_logprobs"]:
            body = {key: value for key, value in body.items() if key not in ("logprobs", "top_logprobs")}
        return _completion(body, messages, state.settings["replies"])

    return await _answer(request, _read_chat, answer, "the body must be JSON with a 'messages' list")


async def _completions(request: web.Request) -> web.StreamResponse:
    return await _answer(request, _read_completion,
                         lambda body, prompts, state: _text_completion(body, prompts, state.settings["word_logprobs"],
                                                                       state.settings["echo_bos"]),
                         "the body must be JSON with a 'prompt' string or list of strings and a whole "
                         "'max_tokens' >= 0")


async def _answer(request: web.Request, read, make_answer, invalid: str) -> web.StreamResponse:
    """Count, inject the configured fault or answer: the same for both endpoints."""
    state: FakeState = request.app[STATE]
    settings = state.settings
    state.total += 1
    state.in_flight += 1
    if state.in_flight > state.max_in_flight:
        state.max_in_flight = state.in_flight
    try:
        try:
            body = await request.json()
            key, prompt = read(body)
        except (ValueError, KeyError, TypeError):
            return _error(state, "invalid_request", 400, invalid, "invalid_request_error")
        if body.get("stream"):
            return _error(state, "invalid_request", 400, "the fake server does not support stream=true",
                          "invalid_request_error")
        if settings["one_prompt_only"] and isinstance(body.get("prompt"), list) and len(body["prompt"]) > 1:
            return _error(state, "invalid_request", 400, "Input should be a valid string: 'prompt'",
                          "invalid_request_error")

        limited = _over_hidden_limit(state)
        if limited is not None:
            return limited
        seen = state.per_prompt[key] = state.per_prompt.get(key, 0) + 1

        kind = None
        if seen <= settings["fail_first_n_per_prompt"]:
            kind = "fail_first_n"
        elif settings["fault_rate"] > 0 and state.rng.random() < settings["fault_rate"]:
            kind = state.rng.choice(settings["fault_kinds"])

        if settings["latency"] > 0:
            await asyncio.sleep(settings["latency"])

        if kind is None:
            state.successes += 1
            return _json(make_answer(body, prompt, state), headers=_rate_headers(state))
        if kind == "fail_first_n":
            return _error(state, kind, 500, f"injected failure {seen} of the first "
                          f"{settings['fail_first_n_per_prompt']} for this prompt", "server_error")
        if kind == "500":
            return _error(state, kind, 500, "injected internal server error", "server_error")
        if kind == "429":
            retry_after = settings["retry_after"]
            return _error(state, kind, 429, "Rate limit reached (injected by the fake server)", "requests",
                          code="rate_limit_exceeded", headers={"Retry-After": f"{retry_after:g}"})
        if kind == "400":
            return _error(state, kind, 400, "injected bad request", "invalid_request_error")
        if kind == "401_echo":
            sent = request.headers.get("Authorization", "")
            key = sent.removeprefix("Bearer ").strip()
            return _error(state, kind, 401, f"Incorrect API key provided: {key}. Header was "
                          f"'Authorization: {sent}'; api_key={key}", "invalid_request_error",
                          code="invalid_api_key")
        if kind == "malformed":
            state.fail(kind)
            return web.Response(text='{"choices": [', status=200, content_type="application/json")
        # "timeout": the client gives up first; if it is still there, it gets a normal answer
        state.fail(kind)
        await asyncio.sleep(settings["timeout_sleep"])
        return _json(make_answer(body, prompt, state))
    finally:
        state.in_flight -= 1


async def _models(request: web.Request) -> web.Response:
    model_id = request.app[STATE].settings["model_id"]
    return _json({"object": "list", "data": [
        {"id": model_id, "object": "model", "created": 0, "owned_by": "fake-openai"}]})


async def _get_control(request: web.Request) -> web.Response:
    return _json(request.app[STATE].settings)


async def _post_control(request: web.Request) -> web.Response:
    try:
        settings = await request.json() if request.can_read_body else {}
        if not isinstance(settings, dict):
            raise ValueError("the body must be a JSON object")
        return _json(request.app[STATE].configure(settings))
    except ValueError as exc:
        return _json({"error": {"message": str(exc), "type": "invalid_request_error"}}, status=400)


async def _get_stats(request: web.Request) -> web.Response:
    return _json(request.app[STATE].stats())


async def _reset_stats(request: web.Request) -> web.Response:
    state = request.app[STATE]
    state.reset_stats()
    return _json(state.stats())


def make_app(state: FakeState) -> web.Application:
    app = web.Application()
    app[STATE] = state
    app.router.add_post("/v1/chat/completions", _chat_completions)
    app.router.add_post("/chat/completions", _chat_completions)
    app.router.add_post("/v1/completions", _completions)
    app.router.add_post("/completions", _completions)
    app.router.add_get("/v1/models", _models)
    app.router.add_get("/models", _models)
    app.router.add_get("/control", _get_control)
    app.router.add_post("/control", _post_control)
    app.router.add_get("/stats", _get_stats)
    app.router.add_post("/stats/reset", _reset_stats)
    return app


def _listening_socket(host: str, port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.setblocking(False)
    return sock


async def _start(state: FakeState, host: str, port: int, app_factory=None) -> tuple[web.AppRunner, int]:
    # No access log (it costs more than the answer); handlers of clients that hung up are
    # cancelled (a "timeout" fault does not sleep on); a short grace period on shutdown.
    runner = web.AppRunner((app_factory or make_app)(state), access_log=None, handler_cancellation=True, shutdown_timeout=0.5)
    await runner.setup()
    sock = _listening_socket(host, port)
    site = web.SockSite(runner, sock, backlog=2048)
    await site.start()
    return runner, sock.getsockname()[1]


# -- the Python API ------------------------------------------------------------------------

class FakeOpenAI:
    """The fake server in a background thread with its own event loop."""

    app_factory = None  # make_app; a subclass serves more routes (tests/fakes/fake_batch.py)

    def __init__(self, host: str = "127.0.0.1", port: int = 0, **settings):
        self.host, self.port = host, port
        self._state = FakeState(**settings)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def base_url(self) -> str:
        """The api_base for LiteLLM / the OpenAI SDK: http://127.0.0.1:PORT/v1"""
        return f"{self.url}/v1"

    def start(self) -> "FakeOpenAI":
        if self._thread is not None:
            raise RuntimeError("already started")
        ready = threading.Event()
        failure: list[BaseException] = []

        def run():
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            self._loop = loop
            try:
                self._runner, self.port = loop.run_until_complete(_start(self._state, self.host, self.port,
                                                                         self.app_factory))
            except BaseException as exc:  # reported to start()
                failure.append(exc)
                ready.set()
                loop.close()
                return
            ready.set()
            try:
                loop.run_forever()
            finally:
                loop.close()

        self._thread = threading.Thread(target=run, name="fake-openai", daemon=True)
        self._thread.start()
        ready.wait()
        if failure:
            self._thread.join()
            self._thread = self._loop = None
            raise failure[0]
        return self

    def stop(self) -> None:
        if self._thread is None:
            return
        loop = self._loop
        try:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), loop).result(timeout=10)
        finally:
            loop.call_soon_threadsafe(loop.stop)
            self._thread.join(timeout=10)
            self._thread = self._loop = self._runner = None

    def _call(self, fn, *args):
        """Run fn in the server's loop (the only thread that touches the state)."""
        if self._thread is None:
            return fn(*args)

        async def call():
            return fn(*args)

        return asyncio.run_coroutine_threadsafe(call(), self._loop).result(timeout=10)

    def configure(self, **settings) -> dict:
        """Change settings (also while requests are in flight); returns all settings."""
        return self._call(self._state.configure, settings)

    @property
    def settings(self) -> dict:
        return self._call(lambda: dict(self._state.settings))

    def stats(self) -> dict:
        return self._call(self._state.stats)

    def reset_stats(self) -> dict:
        def reset():
            self._state.reset_stats()
            return self._state.stats()
        return self._call(reset)

    def __enter__(self) -> "FakeOpenAI":
        return self.start()

    def __exit__(self, *exc_info) -> None:
        self.stop()


# -- the command line ----------------------------------------------------------------------

async def _serve(args) -> None:
    state = FakeState(latency=args.latency, fault_rate=args.fault_rate, fault_kinds=args.fault_kinds,
                      seed=args.seed, retry_after=args.retry_after, timeout_sleep=args.timeout_sleep,
                      fail_first_n_per_prompt=args.fail_first_n_per_prompt, model_id=args.model_id)
    runner, port = await _start(state, args.host, args.port)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(signum, stop.set)
        except (NotImplementedError, RuntimeError):
            pass
    print(f"listening on http://{args.host}:{port}/v1", flush=True)
    try:
        await stop.wait()
    finally:
        await runner.cleanup()


def spawn(latency: float, cwd) -> tuple[subprocess.Popen, str]:
    """This server in its own process (as workers see a provider), started from the project
    folder `cwd` with `--port 0`: (process, base URL), once it is listening."""
    process = subprocess.Popen([sys.executable, "-m", "tests.fakes.fake_openai", "--port", "0", "--latency",
                                str(latency)], cwd=cwd, stdout=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    if not line.startswith("listening on "):
        process.kill()
        raise RuntimeError(f"the fake server did not start: {line!r}")
    return process, line.strip().rsplit(" ", 1)[1]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.fakes.fake_openai",
                                     description="A fake OpenAI-compatible chat-completions server.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=9100, help="0 picks a free port")
    parser.add_argument("--latency", type=float, default=DEFAULTS["latency"])
    parser.add_argument("--fault-rate", type=float, default=DEFAULTS["fault_rate"])
    parser.add_argument("--fault-kinds", default=",".join(DEFAULTS["fault_kinds"]),
                        help=f"comma-separated, of {','.join(FAULT_KINDS)}")
    parser.add_argument("--seed", type=int, default=DEFAULTS["seed"])
    parser.add_argument("--retry-after", type=float, default=DEFAULTS["retry_after"])
    parser.add_argument("--timeout-sleep", type=float, default=DEFAULTS["timeout_sleep"])
    parser.add_argument("--fail-first-n-per-prompt", type=int, default=DEFAULTS["fail_first_n_per_prompt"])
    parser.add_argument("--model-id", default=DEFAULTS["model_id"])
    args = parser.parse_args(argv)
    try:
        asyncio.run(_serve(args))
    except ValueError as exc:
        parser.error(str(exc))
    except KeyboardInterrupt:
        pass
    sys.exit(0)


if __name__ == "__main__":
    main()
