"""The one function that calls a language model: `complete`, a thin layer over LiteLLM.

Everything model-specific (provider, api_base, keys from the environment, prices) is
LiteLLM's; this module shapes the request for the answer mode, reads the choice, and
sorts failures into transient (retry) and permanent (record). No Django here.
"""

from __future__ import annotations

import functools
import os
import time
from dataclasses import dataclass, field

from . import local_provider
from .choice import chosen_letter, letter_grammar, option_logprobs
from .redaction import redact

# Offline, LiteLLM otherwise spends seconds per process fetching its price table.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@functools.cache
def _litellm():
    """LiteLLM, imported on first use: it takes about 4 s, which every `manage.py`
    command and page process paid at start-up when it was imported here."""
    import litellm

    # The bundled models are a LiteLLM provider of their own (`cfpd-local/<alias>`), run in
    # this process: the engine reaches them through `litellm.completion` like any other.
    if not any(item.get("provider") == local_provider.PROVIDER for item in litellm.custom_provider_map):
        litellm.custom_provider_map = [*litellm.custom_provider_map,
                                       {"provider": local_provider.PROVIDER, "custom_handler": local_provider.handler()}]
    litellm.suppress_debug_info = True
    litellm.drop_params = True  # a parameter a provider does not take (seed, top_p) is dropped, not an error
    return litellm


def warm_up() -> None:
    """Import LiteLLM and the OpenAI client it calls through, once per worker process at
    start: done lazily inside a unit's first call, the imports (seconds on a busy 2-core
    machine) ran down that call's timeout and turned a first answer into a retry."""
    litellm = _litellm()
    from litellm.llms.openai.openai import OpenAIChatCompletion  # noqa: F401
    import openai  # noqa: F401

    litellm.get_llm_provider("openai/warm-up")


def __getattr__(name):  # `llm.litellm` for callers that need LiteLLM itself (PEP 562)
    if name == "litellm":
        return _litellm()
    raise AttributeError(name)


@dataclass
class LLMRequest:
    model: str
    messages: list[dict]
    params: dict = field(default_factory=dict)
    api_base: str | None = None
    timeout: float = 120
    mode: str = "generate"  # or "choice"; "rank" is asked through score_continuations
    letters: list[str] = field(default_factory=list)
    strategy: str = "logprobs"  # choice mode: logprobs, grammar, guided_choice
    top_logprobs: int = 20
    input_cost_per_token: float | None = None
    output_cost_per_token: float | None = None

    def call_kwargs(self) -> dict:
        kwargs = {"model": self.model, "messages": self.messages, "timeout": self.timeout, "num_retries": 0,
                  **self.params}
        if self.api_base:
            kwargs["api_base"] = self.api_base
            kwargs.setdefault("api_key", os.environ.get("CFPD_LOCAL_API_KEY", "no-key-needed"))
        if self.mode == "choice":
            kwargs.update(temperature=0, max_tokens=1, logprobs=True, top_logprobs=self.top_logprobs)
            if self.strategy == "grammar":
                kwargs["extra_body"] = {"grammar": letter_grammar(self.letters)}
            elif self.strategy == "guided_choice":
                kwargs["extra_body"] = {"guided_choice": list(self.letters)}
        return kwargs

    def resolved_params(self) -> dict:
        """The parameters actually sent, for the record (no messages, no keys)."""
        return {k: v for k, v in self.call_kwargs().items() if k not in ("messages", "api_key", "model")}


@dataclass
class LLMResult:
    text: str
    resolved_model: str
    finish_reason: str = ""
    latency_ms: int = 0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost: float | None = None
    option_logprobs: dict | None = None
    chosen_letter: str = ""
    option_mean_logprobs: dict | None = None  # rank classification: per letter, the sum over its tokens / tokens
    # The first token's top log-probabilities as the server sent them, [(token, logprob)];
    # read by the connection test (`probing`), not stored with an answer.
    first_token_logprobs: list | None = None
    # The provider's rate-limit headers of this answer (gateway.adaptive reads them), not stored.
    rate_headers: dict | None = None


def storable(text: str) -> str:
    """`text` as PostgreSQL can store it: a NUL character, which no text or jsonb column
    holds (the whole batch's write failed on one), becomes U+FFFD, the replacement
    character."""
    return text.replace("\x00", "\ufffd")


class LLMError(Exception):
    def __init__(self, kind: str, message: str, transient: bool, retry_after: float | None = None):
        message = storable(redact(message))
        super().__init__(message)
        self.kind, self.message, self.transient, self.retry_after = kind, message, transient, retry_after


def _retry_after(exc) -> float | None:
    # LiteLLM keeps the provider's headers on `litellm_response_headers`; its
    # `.response` is a stand-in without them.
    headers = getattr(exc, "litellm_response_headers", None) or getattr(
        getattr(exc, "response", None), "headers", None) or {}
    value = headers.get("retry-after") if hasattr(headers, "get") else None
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def _cannot_connect(exc: BaseException) -> bool:
    """The provider's server could not be reached (refused, reset, no route): LiteLLM
    reports OpenAI's APIConnectionError as an InternalServerError with status 500, the
    cause kept in its chain (httpx.ConnectError, ConnectionRefusedError)."""
    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, (ConnectionRefusedError, ConnectionResetError)) or type(exc).__name__ in (
                "APIConnectionError", "ConnectError"):
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False


def classify(exc: Exception) -> LLMError:
    """Map a LiteLLM exception to an error kind and whether to retry."""
    # Redacted before it is cut, so that no key is left half-visible at the cut.
    message = redact(f"{exc.__class__.__name__}: {str(exc)[:5000]}")[:500]
    litellm = _litellm()
    if isinstance(exc, litellm.ContextWindowExceededError):
        return LLMError("context", message, transient=False)
    if isinstance(exc, litellm.RateLimitError):
        return LLMError("rate_limit", message, transient=True, retry_after=_retry_after(exc))
    if isinstance(exc, litellm.Timeout):
        return LLMError("timeout", message, transient=True)
    if isinstance(exc, (litellm.AuthenticationError, litellm.PermissionDeniedError)):
        return LLMError("auth", message, transient=False)
    if isinstance(exc, (litellm.BadRequestError, litellm.NotFoundError, litellm.UnprocessableEntityError)):
        return LLMError("bad_request", message, transient=False)
    if isinstance(exc, litellm.APIConnectionError) or _cannot_connect(exc):
        return LLMError("connection", message, transient=True)
    status = getattr(exc, "status_code", None)
    if isinstance(exc, (litellm.InternalServerError, litellm.ServiceUnavailableError)) or (
            isinstance(status, int) and status >= 500):
        return LLMError("server", message, transient=True, retry_after=_retry_after(exc))
    if isinstance(exc, litellm.APIError):
        return LLMError("malformed", message, transient=True)
    return LLMError("other", message, transient=False)


def _cost(request: LLMRequest, response, prompt_tokens, completion_tokens) -> float | None:
    if request.input_cost_per_token is not None or request.output_cost_per_token is not None:
        return ((prompt_tokens or 0) * (request.input_cost_per_token or 0)
                + (completion_tokens or 0) * (request.output_cost_per_token or 0))
    hidden = getattr(response, "_hidden_params", None) or {}
    if "response_cost" in hidden:
        # LiteLLM prices every answer from its table as it logs it (None when the model
        # is not in the table): the same figure as completion_cost, not computed twice.
        cost = hidden["response_cost"]
        return float(cost) if cost is not None else None
    try:
        return float(_litellm().completion_cost(completion_response=response))
    except Exception:  # no price in LiteLLM's table (local and custom models)
        return None


def _rate_headers(response) -> dict | None:
    """The answer's rate-limit headers: LiteLLM keeps them in `_hidden_params`
    ("additional_headers": OpenAI's under their names, every raw one as "llm_provider-<name>")."""
    headers = (getattr(response, "_hidden_params", None) or {}).get("additional_headers") or {}
    if not hasattr(headers, "items"):
        return None
    kept = {str(k).lower(): str(v) for k, v in headers.items() if "ratelimit" in str(k).lower()}
    return kept or None


def _top_logprobs(choice) -> list[tuple[str, float]]:
    logprobs = getattr(choice, "logprobs", None)
    content = getattr(logprobs, "content", None) if logprobs is not None else None
    if not content:
        return []
    first = content[0]
    top = getattr(first, "top_logprobs", None) or []
    pairs = [(entry.token, entry.logprob) for entry in top]
    if not pairs and getattr(first, "token", None) is not None:
        pairs = [(first.token, first.logprob)]
    return pairs


def complete(request: LLMRequest) -> LLMResult:
    """Send one request; raise LLMError (with `.transient`) on failure."""
    started = time.perf_counter()
    try:
        response = _litellm().completion(**request.call_kwargs())
    except Exception as exc:  # LiteLLM wraps provider errors in its own classes
        raise classify(exc) from exc
    return read_completion(request, response, int((time.perf_counter() - started) * 1000))


async def acomplete(request: LLMRequest) -> LLMResult:
    """`complete` on the caller's event loop (`litellm.acompletion`): many calls in flight
    in one thread, each waiting on its socket instead of holding a thread."""
    litellm = _litellm()
    started = time.perf_counter()
    try:
        response = await litellm.acompletion(**request.call_kwargs())
    except Exception as exc:  # LiteLLM wraps provider errors in its own classes
        raise classify(exc) from exc
    return read_completion(request, response, int((time.perf_counter() - started) * 1000))


def batch_provider(model: str) -> str:
    """LiteLLM's provider of a model string ("" when it knows none)."""
    try:
        return _litellm().get_llm_provider(model)[1]
    except Exception:  # noqa: BLE001 — a model string LiteLLM does not know
        return ""


def list_batches(request: LLMRequest) -> int:
    """Ask the model's server for its batches (OpenAI's GET /batches, one at most): whether it
    has a batch interface. How many it listed; LLMError when it refused (a server without
    one answers 404)."""
    kwargs = {"custom_llm_provider": "openai"}
    if request.api_base:
        kwargs.update(api_base=request.api_base, api_key=os.environ.get("CFPD_LOCAL_API_KEY", "no-key-needed"))
    try:
        listed = _litellm().list_batches(limit=1, timeout=request.timeout, **kwargs)
    except Exception as exc:  # the OpenAI client's own errors pass through LiteLLM here
        raise classify(exc) from exc
    return len(getattr(listed, "data", None) or [])


def _mode_parameters(request: LLMRequest) -> str:
    if request.mode != "choice":
        return "the model's own parameters"
    return {"grammar": "a grammar", "guided_choice": "guided_choice"}.get(request.strategy, "logprobs")


def read_completion(request: LLMRequest, response, latency_ms: int) -> LLMResult:
    """The answer of a chat completion as the request's mode reads it; LLMError
    ("malformed", transient) when it has not the expected shape, ("no_choice") when no
    option letter can be read in choice mode."""
    if response is None or getattr(response, "choices", None) is None:
        # LiteLLM returns nothing (not an error) when an OpenAI-compatible server refuses a
        # parameter it does not know (seen: transformers serve's 422 to guided_choice and
        # grammar); asking again gets the same refusal, so it is not retried.
        raise LLMError("bad_request", "the server sent no answer to this request: it refused a parameter this "
                                      f"answer mode sends ({_mode_parameters(request)}). Register the model in "
                                      "generate mode (its answers are coded by the encoder), or serve it with a "
                                      "server that takes these parameters (vLLM, llama.cpp)", transient=False)
    try:
        choice = response.choices[0]
        text = storable(choice.message.content or "")
        usage = getattr(response, "usage", None)
        prompt_tokens = getattr(usage, "prompt_tokens", None)
        completion_tokens = getattr(usage, "completion_tokens", None)
    except (AttributeError, IndexError, TypeError) as exc:
        raise LLMError("malformed", f"unexpected response shape: {exc}", transient=True) from exc
    result = LLMResult(
        text=text, resolved_model=storable(str(getattr(response, "model", None) or request.model)),
        finish_reason=storable(str(getattr(choice, "finish_reason", "") or "")), latency_ms=latency_ms,
        prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
        cost=_cost(request, response, prompt_tokens, completion_tokens),
    )
    top = _top_logprobs(choice)
    result.first_token_logprobs = top or None
    result.rate_headers = _rate_headers(response)
    if request.mode == "choice":
        if request.strategy == "logprobs" and not top:
            raise LLMError("no_choice", f"the server sent no log-probabilities (it answered {text[:40]!r}): choice "
                                          "mode reads the option letter from them. Register the model in generate "
                                          "mode (its answers are coded by the encoder), or serve it with a server "
                                          "that returns top log-probabilities (vLLM, llama.cpp)", transient=False)
        logprobs = option_logprobs(top, request.letters)
        emitted = text.strip()[:1]
        if request.strategy != "logprobs" and emitted in request.letters:
            letter = emitted  # constrained decoding: the letter the server chose among the options
        else:
            letter = chosen_letter(logprobs)
        if letter is None:
            raise LLMError("no_choice", f"no option letter among the first token's top log-probabilities "
                                        f"(output {text[:40]!r}); use a constrained strategy for this model",
                           transient=False)
        result.option_logprobs, result.chosen_letter = logprobs, letter
    return result


# -- rank classification -------------------------------------------------------------------
# The log-probability of each option's text as the continuation of the question, read
# from an OpenAI-compatible completions endpoint that echoes the prompt with its tokens'
# log-probabilities (`echo=True`, `logprobs`, `max_tokens=0`): vLLM since 0.2.4 (for
# `max_tokens == 0` with echo it answers the prompt alone: `echo_without_generation` in
# vllm/entrypoints/openai/serving_completion.py), and the bundled models. Not llama.cpp's
# server (its completions return log-probabilities of generated tokens only, ggml-org/
# llama.cpp#27174) nor OpenAI's chat models: no echoed log-probabilities, error "no_logprobs".


@dataclass
class ContinuationScore:
    text: str
    logprob: float  # sum of the continuation's token log-probabilities
    tokens: int
    mean_logprob: float  # logprob / tokens, the length-normalised variant


@dataclass
class ContinuationScores:
    prompt: str
    scores: list[ContinuationScore]
    winner: int  # index of the highest sum; a tie goes to the first
    resolved_model: str
    params: dict  # the parameters sent, for the record (no prompts, no key)
    latency_ms: int = 0
    prompt_tokens: int | None = None  # every echoed prompt's tokens, as the server counts them
    cost: float | None = None
    requests: int = 1  # one per continuation where the server took no list of prompts

    @property
    def winner_text(self) -> str:
        return self.scores[self.winner].text


def echo_offsets(tokens: list[str] | None, text_offset: list[int], text_chars: int) -> list[int]:
    """The server's `text_offset`, made relative to the text it echoed (`text_chars` long).

    vLLM decodes the first prompt token, which has no log-probability, with its special
    tokens, so a `<bos>` (Gemma) or `<s>` (Llama) that the echoed text does not contain adds
    its length to every later offset (`_create_completion_logprobs` sums the decoded tokens'
    lengths). Recognised narrowly: the tokens' lengths overshoot the text by exactly the
    first token's length, and the first token is such a marker (`<…>`)."""
    offsets = [int(offset) for offset in text_offset]
    if not tokens or not offsets or len(tokens) != len(offsets):
        return offsets
    first = tokens[0] or ""
    overshoot = offsets[-1] + len(tokens[-1] or "") - text_chars
    if first.startswith("<") and first.endswith(">") and overshoot == len(first) > 0:
        return [0] + [offset - overshoot for offset in offsets[1:]]
    return offsets


def continuation_logprobs(text_offset: list[int], token_logprobs: list, start: int, end: int) -> list[float]:
    """The log-probabilities of the tokens that begin in [start, end) of the echoed text:
    the continuation's, when start = len(prompt) and end = start + len(continuation) (a
    token that begins inside the prompt belongs to the prompt; `end` leaves out any
    generated token). ValueError when there are none, or one of them has none."""
    values = [value for offset, value in zip(text_offset, token_logprobs) if start <= offset < end]
    if not values:
        raise ValueError(f"no token begins between characters {start} and {end} of the echoed text")
    if any(value is None for value in values):
        raise ValueError("the server gave no log-probability for a token of the continuation")
    return [float(value) for value in values]


def winner(sums: list[float]) -> int:
    """The index of the highest sum; the first of equal ones."""
    return max(range(len(sums)), key=lambda index: (sums[index], -index))


def rank_call_kwargs(request: LLMRequest, prompt: str, continuations: list[str]) -> dict:
    """`litellm.text_completion`'s arguments: one request, one prompt per continuation.
    The request's messages, mode and sampling parameters do not apply."""
    model = request.model
    if model.startswith("openai/"):
        # LiteLLM's text_completion sends `openai/NAME` to the chat endpoint when NAME is one
        # of OpenAI's chat models (main.text_completion checks open_ai_chat_completion_models),
        # where echo is not a parameter; `text-completion-openai/` always means /v1/completions.
        model = "text-completion-openai/" + model.removeprefix("openai/")
    # LiteLLM passes echo, logprobs and max_tokens=0 through unchanged, and a list of
    # prompts as one request's `prompt` list (llms/openai/completion/utils._transform_prompt);
    # the answer is a TextCompletionResponse whose choices carry OpenAI's completions
    # `logprobs` (tokens, token_logprobs, text_offset): checked against the fake server.
    kwargs = {"model": model, "prompt": [prompt + continuation for continuation in continuations],
              "echo": True, "logprobs": 1, "max_tokens": 0, "temperature": 0,
              "timeout": request.timeout, "num_retries": 0}
    if request.api_base:
        kwargs["api_base"] = request.api_base
        kwargs["api_key"] = os.environ.get("CFPD_LOCAL_API_KEY", "no-key-needed")
    if model.startswith(f"{local_provider.PROVIDER}/"):
        kwargs["extra_body"] = {"logprobs_from": len(_scored_split(prompt)[0])}
    return kwargs


def _scored_split(prompt: str) -> tuple[str, str]:
    """The prompt without its trailing spaces, and those spaces, which are scored with each
    continuation: BPE and SentencePiece tokenizers join a space to the word after it
    (" China"), so a token that began in the prompt would take the continuation's first word."""
    kept = prompt.rstrip(" ")
    return kept, prompt[len(kept):]


def _field(item, name):
    return item.get(name) if isinstance(item, dict) else getattr(item, name, None)


def _read_continuation(choice, prompt: str, continuation: str) -> ContinuationScore:
    logprobs = _field(choice, "logprobs")
    text_offset = _field(logprobs, "text_offset") if logprobs is not None else None
    token_logprobs = _field(logprobs, "token_logprobs") if logprobs is not None else None
    if not text_offset or not token_logprobs:
        raise LLMError("no_logprobs", "the answer has no log-probabilities of the echoed prompt: rank "
                                      "classification needs a completions endpoint that echoes them (vLLM, the "
                                      "bundled models; not llama.cpp's server, not chat models)", transient=False)
    start = len(prompt)
    offsets = echo_offsets(_field(logprobs, "tokens"), text_offset, start + len(continuation))
    try:
        values = continuation_logprobs(offsets, token_logprobs, start, start + len(continuation))
    except ValueError as exc:
        raise LLMError("no_logprobs", f"continuation {continuation!r}: {exc}", transient=False) from exc
    total = sum(values)
    return ContinuationScore(text=continuation, logprob=total, tokens=len(values), mean_logprob=total / len(values))


def score_continuations(request: LLMRequest, prompt: str, continuations: list[str]) -> ContinuationScores:
    """Rank classification: log P(continuation | prompt) for each continuation, in one
    call through LiteLLM; the highest sum wins. Uses the request's model, api_base,
    timeout and prices. Raises LLMError (with `.transient`) on failure, as `complete` does.
    Spaces at the end of the prompt are scored as the start of each continuation: "... of"
    + " China" and "... of " + "China" send the same text and score the same tokens."""
    if not continuations or any(not continuation for continuation in continuations):
        raise LLMError("bad_request", "rank classification needs one or more non-empty continuations",
                       transient=False)
    kwargs = rank_call_kwargs(request, prompt, continuations)
    litellm = _litellm()  # imported before the clock starts: the first import takes seconds
    started = time.perf_counter()
    try:
        responses = [litellm.text_completion(**kwargs)]
    except Exception as exc:  # LiteLLM wraps provider errors in its own classes
        error = classify(exc)
        if error.kind != "bad_request" or len(continuations) == 1:
            raise error from exc
        # A server that takes one prompt string per request (transformers serve, and others)
        # refuses the list with a 400: one request per continuation instead. A 400 to a single
        # prompt is the server's real answer, and is raised.
        responses = []
        for one in kwargs["prompt"]:
            try:
                responses.append(litellm.text_completion(**{**kwargs, "prompt": one}))
            except Exception as single:  # noqa: PERF203 — each continuation is its own request
                raise classify(single) from single
    latency_ms = int((time.perf_counter() - started) * 1000)
    response = responses[0]
    try:
        choices = [choice for answer in responses
                   for choice in sorted(answer.choices, key=lambda choice: _field(choice, "index") or 0)]
        counted = [_field(getattr(answer, "usage", None), "prompt_tokens") if getattr(answer, "usage", None)
                   else None for answer in responses]
        prompt_tokens = None if any(count is None for count in counted) else sum(counted)
    except (AttributeError, TypeError) as exc:
        raise LLMError("malformed", f"unexpected response shape: {exc}", transient=True) from exc
    if len(choices) != len(continuations):
        raise LLMError("malformed", f"{len(choices)} choices for {len(continuations)} prompts", transient=True)
    kept, spaces = _scored_split(prompt)
    scores = [_read_continuation(choice, kept, spaces + continuation)
              for choice, continuation in zip(choices, continuations)]
    for score, continuation in zip(scores, continuations):
        score.text = continuation
    return ContinuationScores(
        prompt=prompt, scores=scores, winner=winner([score.logprob for score in scores]),
        resolved_model=getattr(response, "model", None) or request.model,
        params={k: v for k, v in kwargs.items() if k not in ("prompt", "api_key", "model")},
        latency_ms=latency_ms, prompt_tokens=prompt_tokens, cost=_cost(request, response, prompt_tokens, 0),
        requests=len(responses))


def rank(request: LLMRequest, prompt: str, continuations: list[str]) -> LLMResult:
    """Rank classification as an answer: the continuations are the options in the order
    lettered, and the chosen letter is the one whose text has the highest log-probability
    (summed over its tokens; the length-normalised mean kept beside it)."""
    scored = score_continuations(request, prompt, continuations)
    letters = request.letters or [chr(ord("A") + i) for i in range(len(continuations))]
    return LLMResult(
        text=scored.winner_text.strip(), resolved_model=scored.resolved_model, finish_reason="rank",
        latency_ms=scored.latency_ms, prompt_tokens=scored.prompt_tokens, completion_tokens=0, cost=scored.cost,
        option_logprobs={letter: score.logprob for letter, score in zip(letters, scored.scores)},
        option_mean_logprobs={letter: score.mean_logprob for letter, score in zip(letters, scored.scores)},
        chosen_letter=letters[scored.winner])
