"""The model gateway: everything that talks to a model, behind the few names below. The
engine hands it plain values (a request, a probe's target, a model's limits) made from
its own rows, and gets plain values back; it never sees a provider's details. No Django:
`.importlinter` holds the gateway to importing no app of the house nor Django, and the
house to reaching it through this interface and its public modules (`batches`, the
provider-batch transport; `capabilities`, a connection test's findings read; `local_models`,
the bundled models' registry), never its other modules.

Asking:
* `ask(request)`: one call in this thread (a rank-mode request's options scored as
  continuations of its prompt); `LLMResult`, or `LLMError` with `.transient`;
* `ask_async(request)`: the same on an event loop; `ask_batch(calls)` runs such calls
  together on the process's one event loop;
* `probe(target, progress)`: the connection test's requests and their findings.

Limits shared by every worker: `get_limiter`, `slot` (a thread), `aslot` (an event loop),
`LimitBusy`; `learn` gives a call's outcome to its model's adaptive limit and pacing.
"""

from __future__ import annotations

import asyncio

from . import event_loop, lessons, llm, local_provider
from .adaptive import RATE_LIMITED, TIMEOUT, calls_per_minute
from .async_slots import aslot, holding
from .limits import LimitBusy, get_limiter, slot
from .llm import LLMError, LLMRequest, LLMResult, classify, warm_up
from .probing import STEPS as PROBE_STEPS
from .probing import Target, probe
from .redaction import redact

__all__ = ["LLMError", "LLMRequest", "LLMResult", "LimitBusy", "PROBE_STEPS", "RATE_LIMITED", "TIMEOUT", "Target",
           "ask", "ask_async", "ask_batch", "aslot", "calls_per_minute", "classify", "configure_local", "get_limiter",
           "holding", "key_check", "learn", "learn_successes", "model_info", "plain_success", "probe", "redact", "slot",
           "warm_up"]


def ask(request: LLMRequest) -> LLMResult:
    """One call in this thread, through LiteLLM (`llm.complete`); a rank-mode request's
    options, `params["continuations"]`, scored as continuations of its one message."""
    if request.mode == "rank":
        return llm.rank(request, request.messages[0]["content"], request.params["continuations"])
    return llm.complete(request)


async def ask_async(request: LLMRequest) -> LLMResult:
    """One call on the caller's event loop (`litellm.acompletion`)."""
    return await llm.acomplete(request)


def ask_batch(calls) -> list:
    """Run the calls (coroutines, each awaiting `ask_async` under its `aslot`) together on
    the process's one event loop, from a worker thread that waits for them all."""
    return event_loop.run(_together(calls))


async def _together(calls) -> list:
    return await asyncio.gather(*calls)


def learn(limiter, key: str, ceiling: int, result: LLMResult | None, error: LLMError | None,
          run_id: int | None = None):
    """Give a call's outcome to its model's adaptive limit and pacing (`lessons.learn`)."""
    lessons.learn(limiter, key, ceiling, result, error, run_id)


def learn_successes(limiter, key: str, ceiling: int, here: list[int], here_now: int, run_id: int | None = None,
                    limited: list[bool] | None = None):
    """A batch's plain successes told at once (`lessons.learn_successes`)."""
    lessons.learn_successes(limiter, key, ceiling, here, here_now, run_id, limited)


def plain_success(limiter, key: str, result: LLMResult | None, error: LLMError | None) -> bool:
    """Whether the call's lesson may wait for its batch's (`lessons.plain_success`)."""
    return lessons.plain_success(limiter, key, result, error)


def configure_local(models_dir, threads: int):
    """Where the bundled models' weights are and how many threads they compute with."""
    local_provider.configure(models_dir, threads)


def model_info(litellm_model: str) -> dict:
    """LiteLLM's price-table entry of a model (KeyError-like exceptions when it has none)."""
    return llm.litellm.get_model_info(litellm_model)


def key_check(litellm_model: str) -> dict:
    """LiteLLM's look at the environment for the model's provider key
    (`validate_environment`: {"keys_in_environment", "missing_keys"})."""
    return llm.litellm.validate_environment(model=litellm_model)
