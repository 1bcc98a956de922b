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

import logging
import time
from functools import partial

from django.conf import settings

from benchmarks_app.models import Condition

import gateway
from gateway import LimitBusy, aslot, get_limiter, holding

from . import batching
from .execution import (Outcome, Unit, adaptive_on, ask_units, call_lease, execute, model_limit, observe,
                        set_infra)
from .models import LLMModel, Response, Run


def asked_alone(model: LLMModel, run: Run) -> bool:
    """Units asked one at a time, through `execution.execute` (see `batching.asked_alone`)."""
    return batching.asked_alone(model.is_bundled, model.answer_mode, run.budget_usd, run.budget_units)


def execute_batch(response_ids: list[int], token: str | None = None) -> list[tuple[int, Outcome]]:
    """Ask the units; what the task should do next for each (retry and requeue with a
    countdown; anything else is finished). `token`: see `execution.claim`."""
    responses = load_units(response_ids)
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


def load_units(response_ids: list[int]) -> list[Response]:
    """The units with their question and benchmark; their run, model and condition read
    once for the batch and shared by its units (issue 45: a join of the five tables made a
    run's, model's and condition's objects, JSON fields decoded, for every unit: a quarter of
    the worker's database CPU)."""
    responses = list(Response.objects.select_related("question__benchmark").filter(pk__in=response_ids)
                     .order_by("pk"))
    runs = Run.objects.in_bulk({r.run_id for r in responses})
    models = LLMModel.objects.in_bulk({r.model_id for r in responses})
    conditions = Condition.objects.in_bulk({r.condition_id for r in responses if r.condition_id is not None})
    shared = []
    for response in responses:
        run, llm, condition = (runs.get(response.run_id), models.get(response.model_id),
                               conditions.get(response.condition_id))
        if run is None or llm is None or (response.condition_id is not None and condition is None):
            continue  # gone meanwhile (the condition has no constraint): left out, as the join left it out
        response.run, response.model = run, llm
        if condition is not None:
            response.condition = condition
        shared.append(response)
    return shared


# Seconds between two tellings of a batch's plain answers (`Lessons`): told once per batch,
# the adaptive limit climbed once per batch (64 units under a limit of 4 are 16 round trips
# between two lessons: 0.33 of LiteLLM at concurrency 128); told per answer, they cost 14
# Redis commands an answer (bench/round_trips.py).
LESSON_EVERY = 0.05
# ...once the model's limit is at its ceiling, where a success cannot raise it: the lessons
# then only count the run's calls and the pacing's answers, and told every 50 ms they were
# 3.5 % of a worker's CPU at concurrency 128 (issue 45, bench/cpu_split.py).
LESSON_AT_CEILING = 1.0


class Lessons:
    """A batch's plain successes (`_plain`), per model and run, told to the models'
    controllers together (`gateway.learn_successes`) every `every` seconds while a model's
    limit is under its ceiling, every `at_ceiling` seconds once it is there, and at the
    batch's end. Lives on the batch's event loop: no lock."""

    def __init__(self, limiter, every: float = LESSON_EVERY, at_ceiling: float = LESSON_AT_CEILING):
        self.limiter, self.every, self.at_ceiling = limiter, every, at_ceiling
        self.models = {}
        # (model, run) -> for each success, the calls of this process holding the model's
        # slots when it ended, and whether calls waited for a slot around it
        self.waiting: dict[tuple[int, int], list[tuple[int, bool]]] = {}
        self.told_at = time.monotonic()

    def add(self, unit: Unit, limited: bool = False):
        """One plain success, with the calls of this process holding its model's slots now;
        `limited`: calls waited for the model's slots around it (`gateway.async_slots.SlotUse`)."""
        model_id = unit.response.model.pk
        self.models[model_id] = unit.response.model
        self.waiting.setdefault((model_id, unit.response.run_id), []).append(
            (holding(f"model-{model_id}"), limited))
        if time.monotonic() - self.told_at >= self.period(unit.response.model):
            self.tell()

    def period(self, model: LLMModel) -> float:
        """Seconds between tellings for the model: `at_ceiling` while its limit, as this
        process last read it, is at its `max_concurrency`, else `every`."""
        try:
            at_ceiling = model_limit(self.limiter, model) >= model.max_concurrency
        except Exception:  # noqa: BLE001 — the limiter's Redis: told as often as while climbing
            at_ceiling = False
        return self.at_ceiling if at_ceiling else self.every

    def tell(self):
        waiting, self.waiting, self.told_at = self.waiting, {}, time.monotonic()
        for (model_id, run_id), successes in waiting.items():
            model, key = self.models[model_id], f"model-{model_id}"
            try:
                gateway.learn_successes(self.limiter, key, model.max_concurrency, [n for n, _ in successes],
                                        holding(key), run_id, [limited for _, limited in successes])
            except Exception as exc:  # noqa: BLE001 — the limiter's Redis: the answers stand; only the lessons are lost
                logging.getLogger(__name__).warning("adaptive limit of model %s not updated: %s", model.pk, exc)


def ask_together(units: list[Unit]):
    """The units asked together on the process's event loop (`gateway.ask_batch`); the
    lessons of their plain answers told a few at a time (`Lessons`, issue 45)."""
    limiter = get_limiter(settings.REDIS_URL)
    lessons = Lessons(limiter)
    gateway.ask_batch([_ask_one(limiter, unit, lessons) for unit in units])
    lessons.tell()


async def _ask_one(limiter, unit: Unit, lessons: Lessons):
    model = unit.response.model
    use = None
    try:
        async with aslot(limiter, f"model-{model.pk}", partial(model_limit, limiter, model),
                         model.requests_per_minute,
                         lease=call_lease(model), wait=settings.CFPD_SLOT_WAIT) as use:
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
    if _plain(limiter, unit):
        # told with the others' of the next LESSON_EVERY (or LESSON_AT_CEILING) seconds
        lessons.add(unit, limited=use is not None and use.limited)
    else:
        observe(limiter, unit)


def _plain(limiter, unit: Unit) -> bool:
    """A plain answer (`gateway.plain_success`) of a model under its adaptive controller:
    its lesson is told with its batch's."""
    model = unit.response.model
    try:
        return (adaptive_on(model) and unit.busy is None and unit.infra is None
                and gateway.plain_success(limiter, f"model-{model.pk}", unit.result, unit.error))
    except Exception:  # noqa: BLE001 — the limiter's state unreadable: learnt at once, as before
        return False
