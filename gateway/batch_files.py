"""A provider's batch interface in plain values (OpenAI's, which LiteLLM speaks for
`openai/…` models and OpenAI-compatible servers): the JSONL file of requests sent up,
and the output and error files read back. No Django, no network: `provider_batch`
does the talking; this shapes and reads the lines.

One request line: {"custom_id": "<unit id>", "method": "POST", "url": "/v1/chat/completions",
"body": {...the chat request the live path sends...}}.
One result line (output or error file): {"custom_id": ..., "response": {"status_code": 200,
"body": {...a chat completion...}}, "error": null} or an error object in either place.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

ENDPOINT = "/v1/chat/completions"
WINDOW = "24h"  # the only completion window OpenAI's batch interface offers

# OpenAI's batch statuses (https://platform.openai.com/docs/api-reference/batch/object).
ACTIVE = ("validating", "in_progress", "finalizing", "cancelling")
TERMINAL = ("completed", "failed", "expired", "cancelled")

# What the live path leaves out of a chat request's body: LiteLLM's own arguments and
# the connection's, never sent to the provider as body fields.
_NOT_BODY = ("model", "timeout", "num_retries", "api_base", "api_key", "extra_body")


def chat_body(call_kwargs: dict, provider_model: str) -> dict:
    """The body of one request line from the live call's arguments (`LLMRequest.call_kwargs`):
    the same messages and parameters; `extra_body` (guided_choice, grammar) merged into the
    body as the OpenAI client merges it; `model` as the provider names it (without LiteLLM's
    `openai/` prefix)."""
    body = {"model": provider_model, **{k: v for k, v in call_kwargs.items() if k not in _NOT_BODY}}
    body.update(call_kwargs.get("extra_body") or {})
    return body


def request_line(custom_id: str, body: dict) -> str:
    return json.dumps({"custom_id": str(custom_id), "method": "POST", "url": ENDPOINT, "body": body},
                      separators=(",", ":"), ensure_ascii=False)


def request_file(lines: list[tuple[str, dict]]) -> bytes:
    """The JSONL file of (custom_id, body) requests, one per line, in the given order."""
    if len({custom_id for custom_id, _ in lines}) != len(lines):
        raise ValueError("every line of a batch file needs its own custom_id")
    return "".join(request_line(custom_id, body) + "\n" for custom_id, body in lines).encode()


@dataclass
class LineError:
    kind: str  # as gateway.llm.classify names kinds: rate_limit, server, bad_request, auth, context, …
    message: str
    transient: bool


@dataclass
class LineResult:
    custom_id: str
    body: dict | None = None  # the chat completion, when the line was answered (status 200)
    error: LineError | None = None


def classify_status(status: int | None, code: str | None, message: str) -> LineError:
    """An error line's kind, as the live path (`llm.classify`) sorts the same HTTP answer:
    429 and 5xx transient; 400/404/422 bad request, 401/403 auth, a context overflow:
    permanent. No status (a batch-level error on the line, e.g. the batch expired before
    the line was run): transient, it is asked again in a new batch."""
    text = f"{code}: {message}" if code else message
    if code == "context_length_exceeded" or "context length" in message.lower():
        return LineError("context", text, transient=False)
    if status is None:
        return LineError("server", text, transient=True)
    if status == 429:
        return LineError("rate_limit", text, transient=True)
    if status in (401, 403):
        return LineError("auth", text, transient=False)
    if status in (400, 404, 422):
        return LineError("bad_request", text, transient=False)
    if status == 408:
        return LineError("timeout", text, transient=True)
    if status >= 500:
        return LineError("server", text, transient=True)
    return LineError("other", text, transient=False)


def _error_of(error: dict | None, status: int | None, body) -> LineError:
    detail = error or (body.get("error") if isinstance(body, dict) and isinstance(body.get("error"), dict) else None)
    detail = detail or {}
    message = str(detail.get("message") or f"the provider answered HTTP {status}")
    code = detail.get("code")
    return classify_status(status, str(code) if code else None, message[:500])


def parse_results(text: str) -> tuple[dict[str, LineResult], list[str]]:
    """The lines of an output or error file, by custom_id, and the problems of lines that
    cannot be read (never an exception: a provider's file is input from outside). A
    custom_id seen twice keeps its first line (an answer is written once)."""
    results: dict[str, LineResult] = {}
    problems: list[str] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            line = json.loads(raw)
        except ValueError as exc:
            problems.append(f"line {number}: not JSON ({exc})")
            continue
        custom_id = line.get("custom_id") if isinstance(line, dict) else None
        if not isinstance(custom_id, str) or not custom_id:
            problems.append(f"line {number}: no custom_id")
            continue
        if custom_id in results:
            problems.append(f"line {number}: custom_id {custom_id} seen before; the first kept")
            continue
        response = line.get("response") if isinstance(line.get("response"), dict) else {}
        status = response.get("status_code")
        status = status if isinstance(status, int) and not isinstance(status, bool) else None
        body = response.get("body")
        error = line.get("error") if isinstance(line.get("error"), dict) else None
        if error is None and status == 200 and isinstance(body, dict) and isinstance(body.get("choices"), list):
            results[custom_id] = LineResult(custom_id, body=body)
        elif error is None and status == 200:
            results[custom_id] = LineResult(custom_id, error=LineError(
                "malformed", "the provider's answer has no choices", transient=True))
        else:
            results[custom_id] = LineResult(custom_id, error=_error_of(error, status, body))
    return results, problems


def unit_of(custom_id: str) -> int | None:
    """The unit's id a custom_id names (the request lines carry the unit's id), or None."""
    return int(custom_id) if custom_id.isdigit() else None
