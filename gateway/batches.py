"""The provider-batch transport: a run's requests sent through the provider's batch
interface (OpenAI's, through LiteLLM's file and batch API: `create_file`,
`create_batch`, `list_batches`, `retrieve_batch`, `file_content`, `cancel_batch`), the
batch looked at, its results fetched, its cancel asked, its answers read and priced as
batch answers. Plain values in and out: which units a batch holds, and writing their
answers, are the engine's (`runs_app.provider_batch`). No Django.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from decimal import Decimal

from . import batch_files, llm

SUPPORTED_PROVIDERS = ("openai",)  # LiteLLM's provider names whose batch interface is wired here
TERMINAL = batch_files.TERMINAL  # the provider's statuses of a batch that has ended


@dataclass(frozen=True)
class RemoteBatch:
    """A batch as the provider answered about it."""

    id: str
    status: str  # the provider's word: validating, in_progress, finalizing, completed, failed, expired, cancelling, cancelled
    counts: dict = field(default_factory=dict)  # total, completed, failed, when the provider says
    message: str = ""  # the provider's errors about the batch as a whole
    output_file_id: str = ""
    error_file_id: str = ""
    input_file_id: str = ""
    metadata: dict = field(default_factory=dict)


def provider_of(litellm_model: str) -> str:
    """LiteLLM's provider of a model string ("" when it knows none)."""
    return llm.batch_provider(litellm_model)


def connection(api_base: str | None) -> dict:
    """LiteLLM's arguments that reach the model's server: its api_base and the key the live
    path sends it (llm.LLMRequest.call_kwargs); without one, LiteLLM's OpenAI defaults."""
    if api_base:
        return {"custom_llm_provider": "openai", "api_base": api_base,
                "api_key": os.environ.get("CFPD_LOCAL_API_KEY", "no-key-needed")}
    return {"custom_llm_provider": "openai"}


def request_file(litellm_model: str, requests: list[tuple[str, llm.LLMRequest]]) -> bytes:
    """The JSONL file of a batch: one line per (custom id, request), the body the live call
    would send, under the provider's own model name."""
    provider_model = llm.litellm.get_llm_provider(litellm_model)[0]
    return batch_files.request_file([(custom_id, batch_files.chat_body(request.call_kwargs(), provider_model))
                                     for custom_id, request in requests])


def upload(name: str, content, link: dict) -> str:
    """The file uploaded for a batch; its id at the provider."""
    return llm.litellm.create_file(file=(name, content), purpose="batch", **link).id


def create(input_file_id: str, metadata: dict, link: dict) -> RemoteBatch:
    """The provider's batch of the uploaded file, made with our `metadata`."""
    return _remote(llm.litellm.create_batch(completion_window=batch_files.WINDOW, endpoint=batch_files.ENDPOINT,
                                            input_file_id=input_file_id, metadata=metadata, **link))


def created_before(metadata: dict, input_file_id: str, link: dict) -> RemoteBatch | None:
    """The provider's batch made from this file by a send that was cut off before its id
    was kept (found by the metadata it was created with), or None."""
    try:
        listed = llm.litellm.list_batches(limit=100, **link)
    except Exception:  # noqa: BLE001 — no listing: create it (a provider without one cannot have it twice)
        return None
    for remote in getattr(listed, "data", None) or []:
        found = getattr(remote, "metadata", None) or {}
        if all(found.get(key) == value for key, value in metadata.items()) and \
                getattr(remote, "input_file_id", "") == input_file_id:
            return _remote(remote)
    return None


def retrieve(batch_id: str, link: dict) -> RemoteBatch:
    """The provider's batch as it is now."""
    return _remote(llm.litellm.retrieve_batch(batch_id=batch_id, **link))


def cancel(batch_id: str, link: dict) -> RemoteBatch:
    """Ask the provider to cancel the batch; the batch as it answered."""
    return _remote(llm.litellm.cancel_batch(batch_id=batch_id, **link))


def file_text(file_id: str, link: dict) -> str:
    """An output or error file's text ("" for no file)."""
    if not file_id:
        return ""
    answer = llm.litellm.file_content(file_id=file_id, **link)
    content = getattr(answer, "content", answer)
    return content.decode("utf-8", errors="replace") if isinstance(content, bytes) else str(content)


def results(output_file_id: str, error_file_id: str, link: dict) -> tuple[dict, list[str]]:
    """The ended batch's lines by custom id (`batch_files.LineResult`: the output file's,
    then the error file's for an id the output lacks), and the lines that could not be read."""
    found, problems = batch_files.parse_results(file_text(output_file_id, link))
    errors, more = batch_files.parse_results(file_text(error_file_id, link))
    for custom_id, line in errors.items():
        found.setdefault(custom_id, line)
    return found, problems + more


def classify(exc: Exception) -> llm.LLMError:
    """A failed file or batch call: LiteLLM passes the OpenAI client's own errors through
    (openai.NotFoundError, not LiteLLM's class), so an HTTP status is read as a result
    line's is (`batch_files.classify_status`); anything else as the live path reads it."""
    status = getattr(exc, "status_code", None)
    if isinstance(status, int) and not isinstance(status, bool):
        error = batch_files.classify_status(status, None, f"{type(exc).__name__}: {str(exc)[:400]}")
        return llm.LLMError(error.kind, error.message, error.transient)
    return llm.classify(exc)


def read_answer(request: llm.LLMRequest, body: dict) -> llm.LLMResult:
    """A line's chat completion read as the live path reads an answer, priced at the
    batch price (LiteLLM's table: `input_cost_per_token_batches`, else half the live
    price; a model's own prices: half)."""
    litellm = llm.litellm
    try:
        response = litellm.ModelResponse(**body)
    except Exception as exc:  # noqa: BLE001 — a provider's body is input from outside
        raise llm.LLMError("malformed", f"the batch line's answer cannot be read: {exc}", transient=True) from exc
    result = llm.read_completion(request, response, 0)
    result.latency_ms = None  # one call's latency has no meaning in a batch
    result.cost = batch_cost(request, result.prompt_tokens, result.completion_tokens)
    return result


def batch_cost(request: llm.LLMRequest, prompt_tokens, completion_tokens) -> float | None:
    if request.input_cost_per_token is not None or request.output_cost_per_token is not None:
        return ((prompt_tokens or 0) * (request.input_cost_per_token or 0)
                + (completion_tokens or 0) * (request.output_cost_per_token or 0)) / 2
    litellm = llm.litellm
    try:
        litellm.get_model_info(request.model)
    except Exception:  # noqa: BLE001 — not in the price table
        return None
    usage = litellm.Usage(prompt_tokens=prompt_tokens or 0, completion_tokens=completion_tokens or 0,
                          total_tokens=(prompt_tokens or 0) + (completion_tokens or 0))
    prompt_cost, completion_cost = litellm.batch_cost_calculator(usage, request.model)
    return float(Decimal(str(prompt_cost)) + Decimal(str(completion_cost)))


def _remote(remote) -> RemoteBatch:
    return RemoteBatch(id=getattr(remote, "id", None) or "", status=remote.status, counts=_counts(remote), message=_remote_errors(remote),
                       output_file_id=getattr(remote, "output_file_id", None) or "",
                       error_file_id=getattr(remote, "error_file_id", None) or "",
                       input_file_id=getattr(remote, "input_file_id", None) or "",
                       metadata=dict(getattr(remote, "metadata", None) or {}))


def _counts(remote) -> dict:
    counts = getattr(remote, "request_counts", None)
    if counts is None:
        return {}
    return {name: getattr(counts, name, None) for name in ("total", "completed", "failed")}


def _remote_errors(remote) -> str:
    errors = getattr(remote, "errors", None)
    data = getattr(errors, "data", None) or []
    return "; ".join(f"{getattr(e, 'code', '') or ''}: {getattr(e, 'message', '') or ''}".strip(": ")
                     for e in data)[:2000]
