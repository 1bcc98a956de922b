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
    mode: str = "generate"  # or "choice"
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


class LLMError(Exception):
    def __init__(self, kind: str, message: str, transient: bool, retry_after: float | None = None):
        message = redact(message)
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
    if isinstance(exc, litellm.APIConnectionError):
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
    try:
        return float(_litellm().completion_cost(completion_response=response))
    except Exception:  # no price in LiteLLM's table (local and custom models)
        return None


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
    latency_ms = int((time.perf_counter() - started) * 1000)
    try:
        choice = response.choices[0]
        text = choice.message.content or ""
        usage = getattr(response, "usage", None)
        prompt_tokens = getattr(usage, "prompt_tokens", None)
        completion_tokens = getattr(usage, "completion_tokens", None)
    except (AttributeError, IndexError, TypeError) as exc:
        raise LLMError("malformed", f"unexpected response shape: {exc}", transient=True) from exc
    result = LLMResult(
        text=text, resolved_model=getattr(response, "model", None) or request.model,
        finish_reason=str(getattr(choice, "finish_reason", "") or ""), latency_ms=latency_ms,
        prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
        cost=_cost(request, response, prompt_tokens, completion_tokens),
    )
    if request.mode == "choice":
        logprobs = option_logprobs(_top_logprobs(choice), request.letters)
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
