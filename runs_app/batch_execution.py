"""A batch of units asked together: the path of `execution.ask_units` (one claim for
the batch, one write), the models asked together on the process's event loop
(`litellm.acompletion`, each call still holding one of its model's shared slots). The
promises of a unit asked alone hold unit by unit: a unit is asked only under its claim,
its answer written only while the claim is held, a transient failure goes back to
pending with its backoff, a unit of a cancelled run ends cancelled.

Units that must be asked one at a time go through `execution.execute`: those of a run
with a budget (checked before each call), of a bundled model (computed in this process,
not awaited) and in rank mode.
"""

from __future__ import annotations

from functools import partial

from django.conf import settings

import gateway
from gateway import LimitBusy, aslot, get_limiter

from . import batching
from .execution import UNIT_FIELDS, Outcome, Unit, ask_units, call_lease, execute, model_limit, observe, set_infra
from .models import LLMModel, Response, Run


def asked_alone(model: LLMModel, run: Run) -> bool:
    """Units asked one at a time, through `execution.execute` (see `batching.asked_alone`)."""
    return batching.asked_alone(model.is_bundled, model.answer_mode, run.budget_usd, run.budget_units)


def execute_batch(response_ids: list[int], token: str | None = None) -> list[tuple[int, Outcome]]:
    """Ask the units; what the task should do next for each (retry and requeue with a
    countdown; anything else is finished). `token`: see `execution.claim`."""
    responses = list(Response.objects.select_related(*UNIT_FIELDS).filter(pk__in=response_ids).order_by("pk"))
    outcomes: dict[int, Outcome] = {pk: Outcome("skipped") for pk in response_ids}
    together = []
    for response in responses:
        if response.model.is_external:
            continue
        if asked_alone(response.model, response.run):
            outcomes[response.pk] = execute(response.pk, token)
        else:
            together.append(response)
    if together:
        outcomes.update(ask_units(together, ask_together, token))
    return list(outcomes.items())


def ask_together(units: list[Unit]):
    """The units asked together on the process's event loop (`gateway.ask_batch`)."""
    limiter = get_limiter(settings.REDIS_URL)
    gateway.ask_batch([_ask_one(limiter, unit) for unit in units])


async def _ask_one(limiter, unit: Unit):
    model = unit.response.model
    try:
        async with aslot(limiter, f"model-{model.pk}", partial(model_limit, limiter, model),
                         model.requests_per_minute,
                         lease=call_lease(model), wait=settings.CFPD_SLOT_WAIT):
            unit.result = await gateway.ask_async(unit.request)
    except LimitBusy as busy:
        unit.busy = busy
    except gateway.LLMError as error:
        unit.error = error
    except Exception as exc:  # noqa: BLE001 — anything else a provider library raises
        # The limiter's Redis unreachable is no answer of the provider's: the unit waits
        # for it (it had gone through classify as a permanent error, issue 32).
        if unit.result is None and not set_infra(unit, exc):
            unit.error = gateway.classify(exc)
    observe(limiter, unit)
