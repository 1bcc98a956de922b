"""What a model's server was found to support, read from the connection test's answers,
and what follows for the answer modes. Pure: no Django, no LiteLLM.

`gateway.probing` sends a few small requests and hands each outcome (an `Observed`) to
the readers here; each reader returns one finding, a plain dict stored on the model
(`LLMModel.capabilities["findings"]`):

    {"ok": True | False | None, "summary": "what was found, in words", "message": "the
     server's own text where it refused", ...figures (top, samples, distinct, latency_ms)}

`ok` None means "not found out" (the server did not answer at all, or the step could not
be tried). `mode_check` turns the stored findings into the launch's verdict for one model
and answer mode: a refusal (the mode cannot work, and why, with what to do instead), a
warning, or a note.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# The steps, in the order they are tried and shown.
FINDINGS = ("answers", "logprobs", "guided_choice", "grammar", "echo", "prompt_list", "temperature", "batches")
LABELS = {
    "answers": "Answers at all",
    "logprobs": "Log-probabilities (top_logprobs)",
    "guided_choice": "Guided choice (vLLM guided_choice)",
    "grammar": "Grammar (llama.cpp GBNF)",
    "echo": "Echoed prompt log-probabilities (rank classification)",
    "prompt_list": "A list of prompts in one request",
    "temperature": "Temperature changes the output",
    "batches": "Batch interface (/files, /batches)",
}
CHOICE_STRATEGIES = ("guided_choice", "grammar", "logprobs")  # preferred first: a letter is guaranteed
# How gateway.llm words LiteLLM's empty answer to a refused parameter.
NO_ANSWER = "the server sent no answer to this request"
PROBE_LETTERS = ["Q", "Z"]  # letters no unconstrained answer to the probe's prompt starts with


@dataclass
class Observed:
    """One probe request's outcome: an error (its kind and message) or an answer."""

    error_kind: str = ""
    error: str = ""
    text: str = ""
    top: list = field(default_factory=list)  # the first token's (token, logprob) pairs
    requests: int = 1
    latency_ms: int | None = None

    @property
    def failed(self) -> bool:
        return bool(self.error_kind)


def _finding(ok, summary: str, message: str = "", **figures) -> dict:
    return {"ok": ok, "summary": summary, "message": (message or "")[:600], **figures}


def _quoted(text: str, limit: int = 40) -> str:
    text = " ".join((text or "").split())
    return repr(text if len(text) <= limit else text[:limit] + "…")


def _untried(observed: Observed, what: str) -> dict:
    return _finding(None, f"not found out: the request failed ({observed.error_kind}), so whether the server "
                          f"supports {what} is unknown", observed.error)


def read_answers(observed: Observed) -> dict:
    if observed.failed:
        return _finding(False, f"the server did not answer a one-line question ({observed.error_kind})",
                        observed.error)
    return _finding(True, f"answered {_quoted(observed.text)} in {observed.latency_ms or 0:,} ms",
                    latency_ms=observed.latency_ms)


def read_logprobs(observed: Observed, asked: int) -> dict:
    """The first token's top log-probabilities: sent at all, and how many of those asked."""
    if observed.failed:
        if observed.error_kind == "bad_request":
            return _finding(False, "the server refuses a request for log-probabilities", observed.error, top=0)
        return _untried(observed, "log-probabilities")
    count = len(observed.top)
    if not count:
        return _finding(False, f"the server returns no log-probabilities (asked for the top {asked}; it answered "
                               f"{_quoted(observed.text)} without them)", top=0)
    fewer = f", fewer than the {asked} asked for" if count < asked else ""
    return _finding(True, f"the server returns the first token's top {count} log-probabilities{fewer}", top=count)


def read_constrained(observed: Observed, name: str, letters: list[str] = PROBE_LETTERS) -> dict:
    """Guided choice or a grammar over `letters`, asked of a prompt that an unconstrained
    model answers with a word: followed (one of the letters), refused, or ignored."""
    field_name = {"guided_choice": "guided_choice", "grammar": "grammar"}[name]
    if observed.failed:
        if observed.error_kind == "bad_request" and observed.error.startswith(NO_ANSWER):
            # LiteLLM (drop_params) answers nothing for the server's 4xx: its text is not passed on.
            return _finding(False, f"the server refuses the {field_name} field (LiteLLM got a 4xx and passed on no "
                                   "answer, so the server's own text is not known)")
        if observed.error_kind == "bad_request":
            return _finding(False, f"the server refuses the {field_name} field", observed.error)
        if observed.error_kind == "no_choice":
            return _finding(False, f"the server takes the {field_name} field but does not follow it (its answer "
                                   f"is none of {', '.join(letters)})", observed.error)
        return _untried(observed, field_name)
    answer = observed.text.strip()
    if answer[:1] in letters:
        return _finding(True, f"the answer is held to the letters given ({_quoted(answer)} of {', '.join(letters)})")
    return _finding(False, f"the server takes the {field_name} field but does not follow it (it answered "
                           f"{_quoted(answer)}, none of {', '.join(letters)})")


def read_echo(observed: Observed) -> dict:
    if observed.failed:
        if observed.error_kind in ("bad_request", "no_logprobs"):
            return _finding(False, "the server returns no log-probabilities of an echoed prompt (its completions "
                                   "endpoint refuses echo or has none)", observed.error)
        if observed.error_kind == "server" and observed.requests > 1:
            return _finding(False, "the server fails a request for an echoed prompt's log-probabilities with a "
                                   "server error, twice (max_tokens 0, echo)", observed.error)
        return _untried(observed, "echo")
    return _finding(True, "the completions endpoint echoes the prompt with its tokens' log-probabilities")


def read_prompt_list(observed: Observed | None, echo: dict) -> dict:
    if not echo.get("ok"):
        return _finding(None, "not tried: rank classification needs echoed log-probabilities first")
    if observed is None or observed.failed:
        return _untried(observed or Observed(error_kind="other"), "a list of prompts")
    if observed.requests > 1:
        return _finding(False, f"the server takes one prompt per request: rank classification sends one request "
                               f"per option ({observed.requests} for {observed.requests} options)",
                        observed.error, requests=observed.requests)
    return _finding(True, "the server takes every option's prompt in one request", requests=1)


def read_temperature(samples: list[Observed], temperature: float) -> dict:
    """Samples of one short prompt at `temperature` (> 0): identical word for word means the
    server decodes greedily and ignores the temperature."""
    answered = [s.text.strip() for s in samples if not s.failed]
    failed = [s for s in samples if s.failed]
    if len(answered) < 2:
        first = failed[0] if failed else Observed(error_kind="other")
        return _untried(first, "sampling")
    distinct = len(set(answered))
    figures = {"samples": len(answered), "distinct": distinct, "temperature": temperature}
    if distinct == 1:
        return _finding(False, f"{len(answered)} samples at temperature {temperature:g} were identical word for "
                               f"word: the server seems to decode greedily (repeated sampling measures nothing)",
                        **figures)
    return _finding(True, f"{distinct} different answers in {len(answered)} samples at temperature {temperature:g}",
                    **figures)


def read_batches(observed: Observed | None, provider: str) -> dict:
    """The server's answer to a listing of its batches (OpenAI's GET /batches): batch
    delivery can ask this model, or not and why. None: not asked (not OpenAI's interface)."""
    if observed is None:
        return _finding(False, f"not asked: batch delivery goes through OpenAI's batch interface, and this is a "
                               f"{provider or 'model LiteLLM does not know'}")
    if not observed.failed:
        return _finding(True, "the server lists its batches: batch delivery can ask this model")
    if observed.error_kind in ("timeout", "connection", "server", "rate_limit"):
        return _untried(observed, "batches")
    return _finding(False, f"the server refused a listing of its batches ({observed.error_kind}): it has no batch "
                           f"interface, so batch delivery cannot ask this model", observed.error)


def choice_strategies(findings: dict) -> list[str]:
    """The choice strategies that worked, preferred first."""
    return [name for name in CHOICE_STRATEGIES if (findings.get(name) or {}).get("ok")]


def recommended(findings: dict) -> dict:
    """The answer strategies the findings allow: {"choice": strategy or None, "rank":
    "one request" | "one request per option" | None, "generate": True/False}."""
    strategies = choice_strategies(findings)
    answers = (findings.get("answers") or {}).get("ok")
    echo = (findings.get("echo") or {}).get("ok")
    listed = (findings.get("prompt_list") or {}).get("ok")
    return {"choice": strategies[0] if strategies and answers else None,
            "rank": (None if not echo else "one request" if listed else "one request per option"),
            "generate": bool(answers)}


# --- the launch's verdict per model ---------------------------------------------------------

@dataclass(frozen=True)
class ModelFacts:
    """What the launch check needs to know of one registered model."""

    name: str
    endpoint: str  # the api_base, or the LiteLLM model string
    mode: str  # choice, rank, generate
    strategy: str  # the registered choice strategy
    temperature: float
    capabilities: dict
    checked_at: str = ""  # when the test ran, as people read it ("12:04"); "" when never
    bundled: bool = False


@dataclass(frozen=True)
class Check:
    level: str  # "refuse": the mode cannot work; "warn"; "note"
    text: str
    never_probed: bool = False


STRATEGY_REASONS = {
    "logprobs": "the server returns no log-probabilities",
    "guided_choice": "the server does not take guided_choice",
    "grammar": "the server does not take a grammar",
}


def _alternatives(findings: dict, mode: str) -> str:
    """What to do instead, from what was found to work."""
    options = []
    if mode != "generate" and (findings.get("answers") or {}).get("ok"):
        options.append("generate mode (its answers are coded by the encoder)")
    if mode != "rank" and (findings.get("echo") or {}).get("ok"):
        options.append("rank classification")
    return " or ".join(options) if options else "a server that supports it (vLLM, llama.cpp)"


def mode_check(model: ModelFacts) -> Check | None:
    """The launch's verdict on asking `model` in its answer mode, from its stored findings;
    None when nothing needs saying. The bundled models run in the worker, which supports
    every mode."""
    if model.bundled:
        return None
    where = f"{model.name} at {model.endpoint}"
    state = model.capabilities or {}
    findings = state.get("findings") or {}
    if not findings:
        if state.get("status") in ("queued", "running"):
            return Check("note", f"{where}: a connection test is under way; plan again once it has finished to "
                                 f"see whether {model.mode} mode can work on it.", never_probed=True)
        return Check("note", f"{where}: its server's capabilities were never probed, so whether {model.mode} mode "
                             f"works on it is not known until a unit is asked. Test connection finds out in a few "
                             f"requests.", never_probed=True)
    found = f"found {model.checked_at} by Test connection" if model.checked_at else "found by Test connection"
    answers = findings.get("answers") or {}
    if answers.get("ok") is False:
        return Check("warn", f"{where}: the server did not answer the last connection test ({found}): "
                             f"{answers.get('message') or answers.get('summary')}. Test the connection again "
                             f"before launching.")
    if model.mode == "choice":
        finding = findings.get(model.strategy) or {}
        working = [name for name in choice_strategies(findings) if name != model.strategy]
        if finding.get("ok") is False:
            reason = STRATEGY_REASONS.get(model.strategy, f"the server does not support {model.strategy}")
            message = finding.get("message")
            reason += f" ({message})" if message and model.strategy != "logprobs" else ""
            if working:
                fix = (f"set its choice strategy to {working[0]} (found to work), or use "
                       f"{_alternatives(findings, 'choice')}")
            else:
                fix = f"use {_alternatives(findings, 'choice')}"
            return Check("refuse", f"{where}: choice mode cannot work — {reason} ({found}); {fix}.")
        if finding.get("ok") is None:
            return Check("warn", f"{where}: whether choice mode with {model.strategy} works was not found out "
                                 f"({found}): {finding.get('summary', 'not tested')}.")
        top = finding.get("top")
        if model.strategy == "logprobs" and isinstance(top, int) and top < 2:
            return Check("warn", f"{where}: the server returns only the top {top} log-probability; an option "
                                 f"letter outside it is read as unknown ({found}).")
        return None
    if model.mode == "rank":
        echo = findings.get("echo") or {}
        if echo.get("ok") is False:
            message = f" ({echo['message']})" if echo.get("message") else ""
            return Check("refuse", f"{where}: rank classification cannot work — the server returns no "
                                   f"log-probabilities of an echoed prompt{message} ({found}); use "
                                   f"{_alternatives(findings, 'rank')}.")
        if (findings.get("prompt_list") or {}).get("ok") is False:
            return Check("note", f"{where}: the server takes one prompt per request, so rank classification "
                                 f"sends one request per option ({found}).")
        return None
    temperature = findings.get("temperature") or {}
    if model.temperature > 0 and temperature.get("ok") is False:
        return Check("warn", f"{where}: the server seems to ignore the temperature — {temperature['summary']} "
                             f"({found}); samples at temperature {model.temperature:g} would all be the same.")
    return None
