"""One call of a registered model outside a run (a translation's draft and its
back-translation, issue 41): the same gateway (`gateway.ask`), the same request built from
the model's row, under one of the model's shared slots, as a run's unit is asked. The
caller is a worker's task: a call may take the model's whole timeout."""

from __future__ import annotations

from django.conf import settings

import gateway
from gateway import LimitBusy, get_limiter, slot

from .execution import call_lease
from .models import LLMModel

SLOT_WAIT = 120.0  # seconds a task waits for one of the model's slots (runs may hold them)


class NotAskable(ValueError):
    """A model that cannot be asked (imported answers only, or no model string)."""


class CallFailed(RuntimeError):
    """The call failed (the gateway's error, or no slot of the model freed in time); the
    message says why, its key redacted by the gateway."""


def check_askable(model: LLMModel):
    if model.is_external:
        raise NotAskable(f"{model.name} only holds imported answers: it cannot be asked")
    if not model.litellm_model:
        raise NotAskable(f"{model.name} has no LiteLLM model string to call")


def ask_text(model: LLMModel, prompt: str, *, max_tokens: int | None = None, system: str | None = None,
             stop: list[str] | None = None, temperature: float = 0, seed: int | None = None) -> gateway.LLMResult:
    """`model`'s free-text answer to one user message (after `system`, when given), at
    temperature 0 unless told (a draft is asked once: the most likely text; a sentence
    asked again is sampled, with `seed`); `stop` as OpenAI's parameter. Raises CallFailed
    or NotAskable."""
    check_askable(model)
    if model.is_bundled:
        gateway.configure_local(settings.CFPD_MODELS_DIR, settings.CFPD_LOCAL_THREADS)
    params = {**model.sampling_params(), "temperature": temperature}
    for name, value in (("max_tokens", max_tokens), ("stop", stop), ("seed", seed)):
        if value is not None:
            params[name] = value
    messages = [{"role": "system", "content": system}] if system else []
    request = gateway.LLMRequest(
        model=model.litellm_model, messages=[*messages, {"role": "user", "content": prompt}], params=params,
        api_base=None if model.is_bundled else (model.api_base or None), timeout=model.timeout_seconds,
        mode="generate")
    limiter = get_limiter(settings.REDIS_URL)
    try:
        with slot(limiter, f"model-{model.pk}", model.max_concurrency, model.requests_per_minute,
                  lease=call_lease(model), wait=SLOT_WAIT):
            return gateway.ask(request)
    except gateway.LLMError as exc:
        raise CallFailed(f"{model.name}: {exc.kind}: {exc.message}") from exc
    except LimitBusy as exc:
        raise CallFailed(f"{model.name}: every slot of the model stayed busy for {SLOT_WAIT:.0f} s; "
                         "ask again when its runs are done") from exc
