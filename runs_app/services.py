"""Run workflows: launch, cancel, resume, recover, progress; registering models and
importing answers collected elsewhere. Views, commands, the API and tasks call these."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal

from django.conf import settings
from django.db import connection as db_connection
from django.db import transaction
from django.db.models import Count, F, Max, Min, Q, Sum
from django.utils import timezone

from benchmarks_app import families
from benchmarks_app import services as questions_service
from benchmarks_app.models import DEFAULT_CONDITION_ID, Benchmark, Condition, Question

from . import (
    connection, infra, launch_plan, llm, option_design, progress_counts, provider_batch, queueing, response_import,
    unit_rows,
)
from .execution import finish_run_if_complete, spent
from .models import LLMModel, Response, Run, RunProgress
from .planning import option_order, sample_ids
from .selection import Selection, listed, read_family_keys
from .signals import responses_answered, run_finished


class RunError(ValueError):
    """A launch, cancel or resume that cannot go ahead; the message says why."""


class LaunchInvalid(launch_plan.LaunchInvalid, RunError):
    """Launch input that cannot be used; `errors` maps each field to its messages."""


def select_questions(benchmark: Benchmark, selection: Selection) -> list[int]:
    questions = questions_service.current_questions(benchmark)
    if selection.choice_counts:
        questions = questions.filter(choice_count__in=selection.choice_counts)
    questions = families.family(benchmark.family).filter_questions(questions, selection)
    return sample_ids(list(questions.values_list("id", flat=True)), selection.sample, selection.seed)


def queue_new_units(run: Run, response_ids: list[int]):
    """Send the units of a run just created once the transaction commits (in batches, see
    `queueing`), and start the run's sweep."""
    queueing.enqueue(response_ids)
    queueing.schedule_sweep(run.pk)


def create_run(kind: str, benchmark: Benchmark, models, conditions=(), *, selection: dict | None = None,
               repeats: int = 1, note: str = "", launched_by=None, **fields) -> Run:
    """The one place a run is made, of every kind (`Run.Kind`): launched and judge runs
    start queued, their units asked by the engine; imported and synthetic runs hold
    answers written with them, and are done from the start. `fields` are the launch's
    settings (system prompt, permutation, cache, budget)."""
    if kind not in Run.Kind.values:
        raise ValueError(f"no run kind {kind!r} (kinds: {', '.join(Run.Kind.values)})")
    if kind in (Run.Kind.IMPORT, Run.Kind.SYNTHETIC):
        now = timezone.now()
        fields.update(status=Run.Status.DONE, started_at=now, finished_at=now)
    else:
        life = _broker_life_at_launch()
        if life is not None:
            # The life its units are sent in (a watcher that sees another says the broker lost them).
            fields.setdefault("service_wait", {"broker_life": life})
    run = Run.objects.create(kind=kind, benchmark=benchmark, selection=selection or {}, repeats=repeats,
                             note=note, launched_by=launched_by, **fields)
    # A new run: nothing to replace (set() would read the links first).
    run.llm_models.add(*models)
    if conditions:
        run.conditions.add(*conditions)
    return run


def _broker_life_at_launch() -> str | None:
    """The marker of the broker's life now (`queueing.broker_life`); None on the embedded
    default or when Redis cannot be reached (the launch's sends fail too: the watchers
    send its units once it is back)."""
    try:
        life = queueing.broker_life()
    except Exception as exc:
        if infra.service_of(exc) is None:
            raise
        return None
    return life[0] if life else None


DETERMINISTIC_MODES = (LLMModel.AnswerMode.CHOICE, LLMModel.AnswerMode.RANK)
SAMPLING_REPEATS = 5  # section 3.7: five runs of each sampling (closed) model, mean and spread reported


def repeats_for(model: LLMModel, repeats: int) -> int:
    """Choice mode is deterministic (temperature 0, the most probable letter): asked once.
    Generate mode samples: asked `repeats` times."""
    return 1 if model.answer_mode in DETERMINISTIC_MODES else repeats


# --- launching: one reading of the input, one plan, one launch ------------------------

def launch_limits() -> launch_plan.Limits:
    return launch_plan.Limits(max_repeats=settings.CFPD_MAX_REPEATS, max_units=settings.CFPD_MAX_UNITS_PER_RUN,
                              max_prompt_chars=settings.CFPD_MAX_PROMPT_CHARS)


@dataclass
class LaunchRequest:
    """A launch once read and checked: what `plan_launch` prices and `start_run` makes."""

    benchmark: Benchmark
    models: list[LLMModel]
    selection: Selection
    conditions: list[Condition] = field(default_factory=list)  # empty: the default condition
    repeats: int = SAMPLING_REPEATS
    system_prompt: str = ""
    permute_options: bool = False
    balanced_options: bool = False  # rotations: each option at each position equally often per balance group
    use_cache: bool | None = None
    budget_usd: Decimal | None = None
    budget_units: int | None = None
    note: str = ""
    difference: int = 10  # points: what the plan's power figures are for (`Family.power`)
    delivery: str = Run.Delivery.LIVE  # or batch: the providers' batch interfaces (`provider_batch`)


def read_launch(data: dict) -> LaunchRequest:
    """The one reading of a launch, for the form, the API and `run_benchmark` alike.

    `data` holds benchmark (a Benchmark or its name), models (LLMModel objects or names),
    repeats, sample, seed, choice_counts, the benchmark's family's own keys (CFPD: domains, qualified_actors),
    conditions (Condition objects or names; none means the default), system_prompt, permute_options,
    balanced_options (the balanced option-order design; it wins over permute_options), use_cache,
    budget_usd, budget_units, note and
    difference (the points the plan's power figures are for, 1–100, default 10), as the
    caller had them (strings, numbers). Every problem is reported at once in
    LaunchInvalid.errors, keyed by field, with the limits of settings (CFPD_MAX_*)."""
    errors: dict[str, list[str]] = {}
    try:
        checked = launch_plan.check_settings(data, launch_limits())  # the numbers, the prompt, the budget
    except launch_plan.LaunchInvalid as exc:
        errors.update(exc.errors)
        checked = None
    benchmark = data.get("benchmark")
    if not isinstance(benchmark, Benchmark):
        name = benchmark
        benchmark = Benchmark.objects.filter(name=name).first() if isinstance(name, str) and name else None
        if benchmark is None:
            errors["benchmark"] = [f"no benchmark named {launch_plan._show(name)}" if name else "is required"]
    models = []
    wanted = listed(data.get("models"))
    names = [m for m in wanted if isinstance(m, str)]
    found = {m.name: m for m in LLMModel.objects.filter(name__in=names)} if names else {}
    unknown = [str(item)[:80] for item in wanted if not isinstance(item, LLMModel) and item not in found]
    if unknown:
        errors["models"] = [f"unknown model(s): {', '.join(unknown[:20])}"]
    external = []
    for item in wanted:
        model = item if isinstance(item, LLMModel) else found.get(item)
        if model is not None and model.is_external:
            external.append(model.name)
        elif model is not None and model not in models:
            models.append(model)
    if external:
        errors.setdefault("models", []).append(
            f"{', '.join(external)} only hold imported answers and cannot be called")
    if not wanted:
        errors["models"] = ["choose at least one model"]
    family_keys = read_family_keys(benchmark, data, errors)  # read and checked by the benchmark's family
    conditions = _conditions(listed(data.get("conditions")), errors)
    note = data.get("note") or ""
    if not isinstance(note, str) or len(note) > 200:
        errors["note"] = ["must be text of at most 200 characters"]
    use_cache = data.get("use_cache")
    if use_cache not in (None, True, False):
        errors["use_cache"] = ["must be true, false or null (auto)"]
    balanced = data.get("balanced_options")
    if balanced not in (None, True, False):
        errors["balanced_options"] = ["must be true or false"]
    delivery = _delivery(data.get("delivery"), models, checked, errors)
    if errors:
        raise LaunchInvalid(errors)
    selection = Selection(choice_counts=checked.choice_counts, sample=checked.sample, seed=checked.seed,
                          family_keys=family_keys)
    return LaunchRequest(benchmark=benchmark, models=models, selection=selection, conditions=conditions,
                         repeats=checked.repeats,
                         system_prompt=checked.system_prompt, permute_options=checked.permute_options,
                         balanced_options=bool(balanced), use_cache=use_cache, budget_usd=checked.budget_usd,
                         budget_units=checked.budget_units,
                         note=note, difference=checked.difference, delivery=delivery)


def _delivery(value, models: list[LLMModel], checked, errors: dict) -> str:
    """live (the default) or batch; batch only for models whose provider has a batch
    interface, and without a budget (a budget is checked before each call, and a batch
    sends all its calls at once)."""
    if value in (None, ""):
        return Run.Delivery.LIVE
    if value not in Run.Delivery.values:
        errors["delivery"] = [f"must be one of {', '.join(Run.Delivery.values)}; got {launch_plan._show(value)}"]
        return Run.Delivery.LIVE
    if value == Run.Delivery.BATCH:
        refused = [reason for model in models if (reason := provider_batch.refusal(model))]
        if refused:
            errors["delivery"] = [f"batch delivery is not possible: {reason}" for reason in refused]
        if checked is not None and (checked.budget_usd is not None or checked.budget_units is not None):
            errors.setdefault("delivery", []).append(
                "batch delivery takes no budget (a budget is checked before each call; a batch sends its calls "
                "at once): leave the budget empty or deliver live")
    return value


def _conditions(wanted: list, errors: dict) -> list[Condition]:
    """The conditions named (objects or names), in the order given, once each."""
    names = [c for c in wanted if isinstance(c, str)]
    found = {c.name: c for c in Condition.objects.filter(name__in=names)} if names else {}
    unknown = [str(c)[:80] for c in wanted if not isinstance(c, Condition) and c not in found]
    if unknown:
        known = ", ".join(Condition.objects.values_list("name", flat=True)[:30])
        errors["conditions"] = [f"unknown condition(s): {', '.join(unknown[:20])} (known: {known})"]
    chosen = []
    for item in wanted:
        condition = item if isinstance(item, Condition) else found.get(item)
        if condition is not None and condition not in chosen:
            chosen.append(condition)
    return chosen


def conditions_of(request: LaunchRequest) -> list[Condition]:
    return request.conditions or [questions_service.default_condition()]


def _selected_questions(request: LaunchRequest) -> list[int]:
    """The questions asked, with the units they make checked against CFPD_MAX_UNITS_PER_RUN."""
    question_ids = select_questions(request.benchmark, request.selection)
    if not question_ids:
        raise RunError(f"no questions of benchmark {request.benchmark.name!r} match the selection")
    try:
        launch_plan.check_units(len(question_ids) * len(conditions_of(request))
                                * sum(repeats_for(m, request.repeats) for m in request.models), launch_limits())
    except launch_plan.LaunchInvalid as exc:
        raise LaunchInvalid(exc.errors) from None
    return question_ids


def model_prices(model: LLMModel) -> tuple[float | None, float | None, str]:
    """Per-token US$ prices (input, output) and where they come from: the model's own
    (as `llm` charges them), LiteLLM's table, free for the bundled local models, or unknown."""
    if model.input_cost_per_token is not None or model.output_cost_per_token is not None:
        return (float(model.input_cost_per_token or 0), float(model.output_cost_per_token or 0), "model")
    if model.is_bundled:
        return 0.0, 0.0, "local"
    try:
        info = llm.litellm.get_model_info(model.litellm_model)
        prices = info.get("input_cost_per_token"), info.get("output_cost_per_token")
    except Exception:  # not in LiteLLM's table (self-hosted and custom models)
        return None, None, "unknown"
    if prices[0] is None and prices[1] is None:
        return None, None, "unknown"
    return float(prices[0] or 0), float(prices[1] or 0), "litellm"


def batch_table_prices(model: LLMModel) -> tuple[float | None, float | None]:
    """The batch prices of LiteLLM's table for the model (per token, US$), None where it has none."""
    if model.input_cost_per_token is not None or model.output_cost_per_token is not None or model.is_bundled:
        return None, None  # the model's own prices (halved for a batch) or free
    try:
        info = llm.litellm.get_model_info(model.litellm_model)
    except Exception:  # not in the table
        return None, None
    return info.get("input_cost_per_token_batches"), info.get("output_cost_per_token_batches")


def observed_latency_ms(model: LLMModel, recent: int = 200) -> float | None:
    """The model's mean latency over its latest answered calls (not cache hits), or None."""
    latest = (Response.objects.filter(model=model, cache_hit=False, latency_ms__isnull=False)
              .order_by("-id").values_list("latency_ms", flat=True)[:recent])
    values = list(latest)
    return sum(values) / len(values) if values else None


def plan_launch(request: LaunchRequest) -> launch_plan.RunPlan:
    """What a launch would ask and cost, writing nothing: units per model, estimated
    tokens, money and time at each model's limits (see `launch_plan`)."""
    question_ids = _selected_questions(request)
    conditions = conditions_of(request)
    family = families.family(request.benchmark.family)
    questions = Question.objects.filter(pk__in=question_ids).select_related("benchmark")
    prompt_chars = []
    for q in questions.iterator(chunk_size=2000):
        for condition in conditions:
            if not family.applies(q, condition):
                continue
            chars = _prompt_chars(q, condition, request.system_prompt)
            prompt_chars.append(chars)
            # Units a family asks after this one's answer (the crisis family's move 2): the
            # earlier conversation is part of their prompt (its answer is not counted).
            for follow_up in _follow_up_questions(family, q):
                prompt_chars.append(chars + _prompt_chars(follow_up, condition, request.system_prompt))
    specs = []
    for model in request.models:
        input_price, output_price, source = model_prices(model)
        latency = observed_latency_ms(model)
        batch_input, batch_output = batch_table_prices(model)
        specs.append(launch_plan.ModelSpec(
            name=model.name, mode=model.answer_mode, repeats=repeats_for(model, request.repeats),
            max_tokens=model.max_tokens, max_concurrency=model.max_concurrency,
            requests_per_minute=model.requests_per_minute, input_cost_per_token=input_price,
            output_cost_per_token=output_price, price_source=source,
            latency_seconds=latency / 1000 if latency else launch_plan.ASSUMED_LATENCY_SECONDS,
            latency_source="observed" if latency else "assumed",
            input_cost_per_token_batches=batch_input, output_cost_per_token_batches=batch_output,
            batch_refusal=provider_batch.refusal(model)))
    plan = launch_plan.plan_run(specs, prompt_chars)
    plan.checks = connection.launch_checks(request.models)  # what each model's connection test found
    if family.power is not None and request.models and question_ids:
        # Choice-mode models answer once: the fewest answers per question any model gives.
        repeats = min(repeats_for(model, request.repeats) for model in request.models)
        plan.power = family.power(request.benchmark, list(question_ids), repeats, len(request.models),
                                  difference=request.difference / 100)
    return plan


def _prompt_chars(question: Question, condition: Condition, system_prompt: str) -> int:
    return sum(len(m["content"]) for m in questions_service.render_messages(
        question, question.option_order or None, condition, system_prompt))


def _follow_up_questions(family: families.Family, question: Question) -> list[Question]:
    if family.follow_ups is None:
        return []
    return list(Question.objects.filter(pk__in=family.follow_ups(question)).select_related("benchmark"))


def plan_as_dict(plan: launch_plan.RunPlan) -> dict:
    return asdict(plan)


@transaction.atomic
def start_run(request: LaunchRequest, launched_by=None) -> Run:
    """Create the run and one response row per (question, model, repeat), freeze the
    scenario versions asked, and queue the work. `repeats` applies to generate-mode models."""
    question_ids = _selected_questions(request)
    refused = connection.refusals(request.models)  # a mode its connection test found cannot work
    if refused:
        raise LaunchInvalid({"models": refused})
    selection = request.selection
    models = request.models
    conditions = conditions_of(request)
    family = families.family(request.benchmark.family)
    run = create_run(Run.Kind.LAUNCH, request.benchmark, models, conditions, selection=selection.as_dict(),
                     repeats=request.repeats, note=request.note, launched_by=launched_by,
                     system_prompt=request.system_prompt, permute_options=request.permute_options,
                     balanced_options=request.balanced_options and family.permutable,
                     permutation_seed=selection.seed, use_cache=request.use_cache, budget_usd=request.budget_usd,
                     budget_units=request.budget_units, delivery=request.delivery)
    permute = request.permute_options and family.permutable
    questions = Question.objects.filter(pk__in=question_ids).select_related("benchmark")
    if family.asks_every_condition:  # three columns, not 20,000 question objects
        asked = [(pk, key, choice_count, conditions) for pk, key, choice_count
                 in Question.objects.filter(pk__in=question_ids).values_list("pk", "key", "choice_count")]
    else:
        asked = [(q.pk, q.key, q.choice_count, [c for c in conditions if family.applies(q, c)])
                 for q in questions.iterator(chunk_size=5000)]
    def unit_key(key, m, c, r):
        return f"{key}/{m.pk}/{r}" if c.pk == DEFAULT_CONDITION_ID else f"{key}/{m.pk}/{c.name}/{r}"

    if run.balanced_options:
        units = _balanced_units(family, asked, models, request.repeats, selection.seed, unit_key)
    elif not permute and db_connection.vendor == "postgresql":  # the canonical orders: made by the server
        units = None
    else:  # a generator: a paper-scale launch's 2.66 million units are written a slice at a time
        units = ((pk, m.pk, c.pk, r, option_order(choice_count, permute, selection.seed, unit_key(key, m, c, r)))
                 for pk, key, choice_count, applying in asked for c in applying
                 for m in models for r in range(repeats_for(m, request.repeats)))
    if units is None:
        written = unit_rows.insert_unit_grid(
            run.pk, [(pk, c.pk) for pk, _, _, applying in asked for c in applying],
            [(m.pk, repeats_for(m, request.repeats)) for m in models], timezone.now())
    else:
        written = unit_rows.insert_units(run.pk, units, timezone.now())
    if family.follow_ups is None:  # no unit is added later: the run page reads what was planned
        Run.objects.filter(pk=run.pk).update(planned=_planned(asked, models, request.repeats))
    family.mark_asked(question_ids)
    # Marked as sent when written: the messages go once the transaction commits.
    queueing.send_launch(run.pk, written)
    queueing.schedule_sweep(run.pk)
    return run


def _planned(asked, models, repeats: int) -> dict[str, dict]:
    """Per model id: the questions asked (those with a condition that applies), the repeats
    and the units, as `views.planned_per_model` would count them from the units."""
    questions = sum(1 for *_, applying in asked if applying)
    pairs = sum(len(applying) for *_, applying in asked)
    return {str(m.pk): {"questions": questions, "repeats": repeats_for(m, repeats),
                        "units": pairs * repeats_for(m, repeats)} for m in models if pairs}


def _balanced_units(family: families.Family, asked, models, repeats: int, seed: int, unit_key):
    """The units (question, model, condition, repeat, option order) under the balanced
    design, one balance group at a time (so that no order is held for the whole launch):
    per balance group of the family (CFPD: a scenario's form; by default a question alone)
    and choice count, the cyclic rotations dealt over each model's units in turn
    (`option_design.balanced_orders`)."""
    # Read here, before the units are: they are written while the COPY holds the connection.
    groups = family.balance_groups([pk for pk, *_ in asked]) if family.balance_groups else {}
    grouped: dict[tuple[str, int], list] = {}
    for pk, key, choice_count, applying in asked:
        grouped.setdefault((groups.get(pk, f"question {pk}"), choice_count), []).append((pk, key, applying))
    return _dealt_units(grouped, models, repeats, seed, unit_key)


def _dealt_units(grouped: dict, models, repeats: int, seed: int, unit_key):
    for (group, count), questions in grouped.items():
        questions.sort(key=lambda q: q[1])
        blocks = [[(pk, m.pk, c.pk, r, unit_key(key, m, c, r)) for pk, key, applying in questions
                   for c in applying for r in range(repeats_for(m, repeats))] for m in models]
        dealt = option_design.balanced_orders(count, [[unit[-1] for unit in block] for block in blocks], seed,
                                              f"{group}/{count}")
        for block, block_orders in zip(blocks, dealt):
            for unit, order in zip(block, block_orders):
                yield (*unit[:4], order)


def launch_run(benchmark: Benchmark, models: list[LLMModel], selection: Selection | None = None,
               repeats: int = SAMPLING_REPEATS, conditions: list | None = None,
               system_prompt: str = "", permute_options: bool = False, use_cache: bool | None = None,
               launched_by=None, note: str = "", budget_usd=None, budget_units=None,
               balanced_options: bool = False, delivery: str = "live") -> Run:
    """`start_run` for callers holding objects (tests, scripts): read through `read_launch`
    like every other launch, so the same limits hold."""
    selection = selection or Selection()
    request = read_launch({
        "benchmark": benchmark, "models": list(models), "repeats": repeats, "sample": selection.sample,
        "seed": selection.seed, **selection.family_keys, "choice_counts": selection.choice_counts,
        "conditions": list(conditions or []),
        "system_prompt": system_prompt,
        "permute_options": permute_options, "balanced_options": balanced_options, "use_cache": use_cache,
        "note": note,
        "budget_usd": budget_usd, "budget_units": budget_units, "delivery": delivery})
    return start_run(request, launched_by=launched_by)


@dataclass
class Cancellation:
    """What a cancel did: pending units cancelled (or, `later`, to be cancelled by a
    worker), and units a worker had already taken."""

    pending: int
    in_flight: int
    later: bool = False


@transaction.atomic
def cancel_run(run: Run) -> Cancellation:
    """Stop new calls. Pending units are cancelled at once. A unit a worker has already
    taken (running) is left to end by itself: an answer that arrives is kept; a call that
    fails transiently, or that still waits for its model's slot after CFPD_SLOT_WAIT,
    ends cancelled, not retried (see `execution._give_back`); a permanent error fails it.
    The run is finished (finished_at) only when its last such unit ends
    (`execution.finish_run_if_complete`, or the sweep if that worker died)."""
    if run.status in (Run.Status.DONE, Run.Status.CANCELLED):
        raise RunError(f"run {run.pk} is {run.status}; nothing to cancel")
    Run.objects.filter(pk=run.pk).update(status=Run.Status.CANCELLED, finished_at=None)
    pending_units = run.responses.filter(status=Response.Status.PENDING)
    at_once = settings.CFPD_CANCEL_AT_ONCE
    later = pending_units.order_by().values("pk")[:at_once + 1].count() > at_once
    if later:
        # Too many to mark in this request (2.66 million took 2.5 minutes): no unit of a
        # cancelled run is claimed any more, so none is asked; a worker marks them
        # cancelled a chunk at a time (`cancel_pending_units`), starting now, and the
        # watchers go on at each tick should that worker stop.
        pending = progress(run).pending
        transaction.on_commit(lambda: queueing.publish(queueing.SWEEP, [run.pk]))
    else:
        pending = pending_units.update(status=Response.Status.CANCELLED)
    in_flight = run.responses.filter(status=Response.Status.RUNNING).count()
    if run.delivery == Run.Delivery.BATCH:
        # Its provider batches cancelled by a worker (a call to the provider), now and at every watcher tick.
        transaction.on_commit(lambda: queueing.publish(queueing.PROVIDER_BATCHES, [run.pk]))
    if in_flight:
        queueing.schedule_sweep(run.pk)  # ends the run should the worker holding a unit die
    elif not later:
        Run.objects.filter(pk=run.pk).update(finished_at=timezone.now())
    return Cancellation(pending=pending, in_flight=in_flight, later=later)


CANCEL_CHUNK = 100_000  # ids of a run's units marked cancelled per transaction


def cancel_pending_units(run_id: int, seconds: float | None = None) -> int:
    """Mark the pending units of a cancelled run cancelled, by ranges of CANCEL_CHUNK ids
    (a run's units have mostly consecutive ids), each range in its own transaction under
    the run's row lock, for about `seconds` (CFPD_CANCEL_SECONDS); how many it marked.
    Stops when the run is no longer cancelled (resumed) or another sweep holds its row."""
    seconds = settings.CFPD_CANCEL_SECONDS if seconds is None else seconds
    pending = Response.objects.filter(run_id=run_id, status=Response.Status.PENDING)
    span = pending.aggregate(lo=Min("id"), hi=Max("id"))
    if span["lo"] is None:
        return 0
    deadline = time.monotonic() + seconds
    low, marked = span["lo"], 0
    while low <= span["hi"]:
        with transaction.atomic():
            if not Run.objects.select_for_update(skip_locked=True).filter(
                    pk=run_id, status=Run.Status.CANCELLED).exists():
                break
            marked += pending.filter(id__gte=low, id__lt=low + CANCEL_CHUNK).update(
                status=Response.Status.CANCELLED)
        low += CANCEL_CHUNK
        if time.monotonic() > deadline:
            break
    return marked


UNCHANGED = object()


def read_budget(budget_usd, budget_units) -> dict:
    """New budget values for `resume_run`, checked like a launch's; UNCHANGED is left out,
    an empty value removes that budget."""
    errors, changes = {}, {}
    if budget_usd is not UNCHANGED:
        changes["budget_usd"] = launch_plan.money(budget_usd, "budget_usd", errors)
    if budget_units is not UNCHANGED:
        changes["budget_units"] = launch_plan.whole_number(budget_units, "budget_units", 1, launch_plan.MAX_WHOLE,
                                                           errors)
    if errors:
        raise LaunchInvalid(errors)
    return changes


def budget_state(run: Run) -> dict | None:
    """What the run spent against its budget, for the run page and the API; None without one."""
    if run.budget_usd is None and run.budget_units is None:
        return None
    spent_usd, spent_units = spent(run.pk)
    return {"budget_usd": float(run.budget_usd) if run.budget_usd is not None else None,
            "budget_units": run.budget_units, "spent_usd": float(spent_usd), "spent_units": spent_units,
            "reached": launch_plan.budget_reached(run.budget_usd, run.budget_units, spent_usd, spent_units)}


@transaction.atomic
def resume_run(run: Run, budget_usd=UNCHANGED, budget_units=UNCHANGED) -> int:
    """Ask again only what is missing: every unit that is not done. A paused run (its
    budget reached) continues only once the budget is raised above what it spent.
    The run's row is locked first, as `execution.finish_run_if_complete` locks it before
    it counts the open units: a worker finishing the cancelled run's last unit cannot mark
    it done between this making units pending and its commit."""
    Run.objects.select_for_update().filter(pk=run.pk).values_list("pk").first()
    if run.llm_models.filter(is_external=True).exists():
        raise RunError(f"run {run.pk} holds imported answers; it cannot be resumed")
    changes = read_budget(budget_usd, budget_units)
    if changes:
        Run.objects.filter(pk=run.pk).update(**changes)
        for name, value in changes.items():
            setattr(run, name, value)
    spent_usd, spent_units = spent(run.pk)
    if launch_plan.budget_reached(run.budget_usd, run.budget_units, spent_usd, spent_units):
        raise RunError(f"run {run.pk} has spent US$ {spent_usd:.4f} and {spent_units} units of its budget "
                       f"({_budget_text(run)}); raise the budget to resume it")
    missing = run.responses.exclude(status__in=[Response.Status.DONE, Response.Status.RUNNING])
    ids = list(missing.values_list("id", flat=True))
    missing.update(status=Response.Status.PENDING, attempts=0, error_kind="", error_message="")
    running = run.responses.filter(status=Response.Status.RUNNING).exists()
    if not ids and not running:
        Run.objects.filter(pk=run.pk).update(status=Run.Status.DONE, finished_at=run.finished_at or timezone.now())
        run_finished.send_robust(sender=Run, run_id=run.pk)
        return 0
    Run.objects.filter(pk=run.pk).update(status=Run.Status.RUNNING, finished_at=None)
    queueing.enqueue(ids)
    queueing.schedule_sweep(run.pk)
    return len(ids)


def _budget_text(run: Run) -> str:
    parts = []
    if run.budget_usd is not None:
        parts.append(f"US$ {run.budget_usd}")
    if run.budget_units is not None:
        parts.append(f"{run.budget_units} units")
    return " or ".join(parts) or "none"


SWEEP_BATCH = 500  # units one sweep re-sends at most


def sweep_run(run_id: int, requeue_after: float | None = None, everything: bool = False) -> tuple[int, bool]:
    """Re-send the units of an active run whose message is really lost, oldest first, at
    most SWEEP_BATCH at a time:

    * running under an expired lease (its worker died);
    * pending and never sent;
    * pending, last sent more than `requeue_after` seconds ago, and passed by the queue:
      no unit sent at the same time or earlier is being worked on (running, or answered
      within `requeue_after`). Messages are taken about in the order they were sent, so
      while units sent with this one are still being answered, its message is waiting
      in the queue: re-sending a long run's backlog would only double the queue, again
      every `requeue_after` seconds. Once only units sent later are answered (or nothing
      is), the queue went past it: its message was lost.

    `everything` (a worker starting after a crash) re-sends every open unit, unbounded.
    Returns (how many were re-sent, whether the run is still active)."""
    run = Run.objects.filter(pk=run_id).first()
    if run is not None and run.status == Run.Status.CANCELLED and run.finished_at is None:
        return 0, _sweep_cancelled(run)
    if run is None or run.status not in (Run.Status.QUEUED, Run.Status.RUNNING):
        return 0, False
    now = timezone.now()
    requeue_after = settings.CFPD_REQUEUE_AFTER if requeue_after is None else requeue_after
    before = now - timedelta(seconds=requeue_after)
    lost = Q(status=Response.Status.RUNNING, lease_expires_at__lt=now) | Q(status=Response.Status.PENDING,
                                                                             enqueued_at__isnull=True)
    if everything:
        lost |= Q(status=Response.Status.PENDING)
    else:
        # The queue's front: the earliest send among the units being worked on now.
        front = run.responses.filter(Q(status=Response.Status.RUNNING, lease_expires_at__gte=now)
                                     | Q(answered_at__gt=before)).aggregate(m=Min("enqueued_at"))["m"]
        passed = Q(enqueued_at__lte=before) & (Q(enqueued_at__lt=front) if front is not None else Q())
        lost |= Q(status=Response.Status.PENDING) & passed
    stale = run.responses.filter(lost).order_by(F("enqueued_at").asc(nulls_first=True), "id")
    progress_counts.compact(run_id)  # the counters' rows appended since the last sweep, folded
    ids = list(stale.values_list("id", flat=True) if everything else stale.values_list("id", flat=True)[:SWEEP_BATCH])
    if ids:
        with transaction.atomic():
            queueing.enqueue(ids)
    finish_run_if_complete(run_id)
    run.refresh_from_db(fields=["status"])
    return len(ids), run.status in (Run.Status.QUEUED, Run.Status.RUNNING)


def _sweep_cancelled(run: Run) -> bool:
    """A cancelled run whose units in flight have not all ended: a unit whose worker died
    (its lease ran out) ends cancelled, pending units left by the cancel are marked, and
    the run is finished once none is left. Whether some unit is still open (so the
    sweep looks again later)."""
    run.responses.filter(status=Response.Status.RUNNING, lease_expires_at__lt=timezone.now()).update(
        status=Response.Status.CANCELLED, claim_token="", lease_expires_at=None)
    cancel_pending_units(run.pk)  # those `cancel_run` left to a worker (a very large run)
    finish_run_if_complete(run.pk)
    return run.responses.filter(status__in=[Response.Status.PENDING, Response.Status.RUNNING]).exists()


@dataclass
class Progress:
    total: int
    pending: int
    running: int
    done: int
    failed: int
    cancelled: int
    cached: int
    prompt_tokens: int
    completion_tokens: int
    cost: float | None
    mean_latency_ms: float | None

    @property
    def finished(self):
        """Units asked to the end: answered (done) or given up on (failed). Cancelled
        units were not asked to the end and are not counted."""
        return self.done + self.failed

    @property
    def open(self):
        """Units still to end: waiting (pending) or with a worker (running)."""
        return self.pending + self.running

    @property
    def percent(self):
        """Percent of the units done (answered); failed and cancelled ones are not."""
        return round(100 * self.done / self.total, 1) if self.total else 100.0


def progress(run: Run, model: LLMModel | None = None) -> Progress:
    """The run's progress, or one model's."""
    whole, per_model = progress_by_model(run)
    return whole if model is None else per_model.get(model.pk) or _progress_of([])


def progress_by_model(run: Run) -> tuple[Progress, dict[int, Progress]]:
    """The run's progress and each model's, from its counters (`RunProgress`, kept by the
    database's triggers on every write to a unit): a paper-scale run's page reads a few
    rows, not 2.66 million units. Equal to `recounted_progress`."""
    rows = (RunProgress.objects.filter(run_id=run.pk).values("model_id", "status")
            .annotate(units=Sum("n"), cached_n=Sum("cached"), prompt=Sum("prompt_tokens"),
                      completion=Sum("completion_tokens"), cost_sum=Sum("cost"), priced_n=Sum("priced"),
                      latency=Sum("latency_sum"), latency_count=Sum("latency_n"))
            .order_by())
    return _by_model(run, [{"model_id": row["model_id"], "status": row["status"], "n": row["units"],
                            "cached": row["cached_n"], "prompt": row["prompt"], "completion": row["completion"],
                            "cost": row["cost_sum"] if row["priced_n"] else None, "latency_sum": row["latency"],
                            "latency_n": row["latency_count"]} for row in rows if row["units"]])


def recounted_progress(run: Run) -> tuple[Progress, dict[int, Progress]]:
    """`progress_by_model` counted from the units themselves, grouped by model and status
    (what the counters must equal; the tests compare them)."""
    rows = (run.responses.values("model_id", "status").order_by()
            .annotate(n=Count("id"), cached=Count("id", filter=Q(cache_hit=True)), prompt=Sum("prompt_tokens"),
                      completion=Sum("completion_tokens"), cost=Sum("cost"),
                      latency_sum=Sum("latency_ms", filter=Q(cache_hit=False)),
                      latency_n=Count("latency_ms", filter=Q(cache_hit=False))))
    return _by_model(run, list(rows))


def _by_model(run: Run, rows: list[dict]) -> tuple[Progress, dict[int, Progress]]:
    grouped: dict[int | None, list[dict]] = {}
    for row in rows:
        grouped.setdefault(row["model_id"], []).append(row)
        grouped.setdefault(None, []).append(row)
    made = {key: _progress_of(found) for key, found in grouped.items()}
    for model_id in run.llm_models.values_list("pk", flat=True):  # a model with no unit yet: zeros
        made.setdefault(model_id, _progress_of([]))
    return made.pop(None, _progress_of([])), made


def _progress_of(rows: list[dict]) -> Progress:
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["status"]] = counts.get(row["status"], 0) + row["n"]
    costs = [row["cost"] for row in rows if row["cost"] is not None]
    latency_n = sum(row["latency_n"] for row in rows)
    return Progress(
        total=sum(counts.values()), pending=counts.get("pending", 0), running=counts.get("running", 0),
        done=counts.get("done", 0), failed=counts.get("failed", 0), cancelled=counts.get("cancelled", 0),
        cached=sum(row["cached"] for row in rows), prompt_tokens=sum(row["prompt"] or 0 for row in rows),
        completion_tokens=sum(row["completion"] or 0 for row in rows),
        cost=float(sum(costs)) if costs else None,
        mean_latency_ms=sum(row["latency_sum"] or 0 for row in rows) / latency_n if latency_n else None,
    )


def error_breakdown(run: Run) -> list[dict]:
    """Failed and retried units by model and error kind, with one example message each."""
    rows = (run.responses.exclude(error_kind="").values("model__name", "error_kind", "status")
            .annotate(n=Count("id")).order_by("model__name", "-n"))
    result = []
    for row in rows:
        example = (run.responses.filter(model__name=row["model__name"], error_kind=row["error_kind"],
                                        status=row["status"])
                   .values_list("error_message", flat=True).first())
        result.append({**row, "example": example})
    return result


def key_status(model: LLMModel) -> dict:
    """Whether the environment has the key the model needs; never the key itself."""
    if model.is_bundled or model.is_external:
        return {"needed": False, "present": True, "missing": []}
    if model.api_base and model.litellm_model.startswith(("openai/", "hosted_vllm/", "ollama/")):
        return {"needed": False, "present": True, "missing": []}
    report = llm.litellm.validate_environment(model=model.litellm_model)
    return {"needed": True, "present": bool(report.get("keys_in_environment")),
            "missing": list(report.get("missing_keys") or [])}


# --- answers produced elsewhere ----------------------------------------------------

# Read as a stream in two passes, in bounded memory (issue 32): runs_app.response_import.
IMPORT_COLUMNS = response_import.IMPORT_COLUMNS
ResponseImport = response_import.ResponseImport


def import_responses(text: str, benchmark_name: str | None = None, imported_by=None,
                     progress=None) -> ResponseImport:
    """Answers collected outside the tool, by the keys `export_questions` wrote. Atomic:
    any bad row and nothing is written. Unknown models become external models."""
    return response_import.import_text(text, create_run, imported_by=imported_by, progress=progress)


def import_response_file(path, imported_by=None, progress=None) -> ResponseImport:
    """The same from the file at `path`, read as a stream: memory does not grow with its
    rows beyond a few integers each (TableError: not UTF-8 text; OSError: unreadable)."""
    return response_import.import_file(path, create_run, imported_by=imported_by, progress=progress)


def unknown_runs_and_models(runs, models) -> str:
    """What a report command was given that does not exist ("" when all exist)."""
    unknown_runs = sorted(set(runs) - set(Run.objects.filter(pk__in=runs).values_list("pk", flat=True)))
    unknown_models = sorted(set(models) - set(LLMModel.objects.filter(name__in=models).values_list("name", flat=True)))
    return "; ".join(filter(None, [unknown_runs and f"no run {', '.join(map(str, unknown_runs))}",
                                   unknown_models and f"no model {', '.join(unknown_models)}"]))


def recover_active_runs() -> int:
    """When a worker starts: queue again every open unit of every active run, since
    messages a killed worker had taken may be lost. Duplicates are harmless: a unit is
    claimed once. Returns how many units were queued."""
    total = 0
    # A cancelled run not yet finished still has units with a worker (see `cancel_run`).
    unfinished = Q(status__in=[Run.Status.QUEUED, Run.Status.RUNNING]) | Q(status=Run.Status.CANCELLED,
                                                                        finished_at__isnull=True)
    for run_id in Run.objects.filter(unfinished).values_list("pk", flat=True):
        count, active = sweep_run(run_id, everything=True)
        total += count
        if active:
            queueing.sweep_later(run_id)
    return total


# --- services failing under a run (issue 32): the watcher's writer -------------------

BROKERS = ("redis", "queue")  # runs_app.infra.REDIS, QUEUE: an outage whose messages may be lost


def watch_services(down: dict, ended: dict | None = None, now=None, broker_life: tuple | None = None,
                   refusing: dict | None = None, uncoded_from=False) -> dict:
    """The one writer of `Run.service_wait`, called by each worker's watcher
    (`runs_app.watcher`) every CFPD_SWEEP_SECONDS with the services it finds failing
    (`down`: service -> since) and the outages it saw end since its last look (`ended`).
    Each active run is taken under its row lock (skipped when another watcher holds
    it; on SQLite the transaction's IMMEDIATE start serialises the watchers):

    * while a service is down the run says which, since when and how many units wait
      (pending or running), and nothing is sent;
    * once none is, a run that waited on the broker, or whose broker outage this
      watcher saw and no watcher has recovered since, has every pending unit sent again
      (the broker may have lost them: no persistence, a send that failed), its notice
      cleared and the recovery time kept, so that a second watcher does not send them
      twice; after a database outage or a full disk the notice is cleared (the tasks
      met it and were retried through the broker);
    * the broker's life (`broker_life`: (marker, born), see `queueing.broker_life`),
      when it is not the one the run recorded (or was born after the run started), means
      the broker lost its messages though no watcher saw it down (a flush, a restart
      within a period): every pending unit is sent again, once, and the run says so;
    * the models of the run whose provider refuses connections (`refusing`: model id ->
      since) are recorded for the run page while its units wait;
    * then the run is swept (`sweep_run`: units whose worker died, never sent, passed by
      the queue).
    Answers whose coding was lost are coded (`code_uncoded_answers`, the answers written
    from `uncoded_from`, see `uncoded_since`; False: not looked for).
    What it did: runs noted, units sent again after an outage, units swept."""
    now = now or timezone.now()
    ended = ended or {}
    noted = requeued = swept = 0
    uncoded = code_uncoded_answers(now, since=uncoded_from) if uncoded_from is not False else 0
    unfinished = Q(status__in=[Run.Status.QUEUED, Run.Status.RUNNING]) | Q(status=Run.Status.CANCELLED,
                                                                        finished_at__isnull=True)
    # A run that finished while it waited (its last units written once the disk had room)
    # has its notice cleared too.
    watched = unfinished | Q(service_wait__has_key="waiting") | Q(service_wait__has_key="refusing")
    for run_id in list(Run.objects.filter(watched).values_list("pk", flat=True)):
        with transaction.atomic():
            run = Run.objects.select_for_update(skip_locked=True).filter(watched, pk=run_id).first()
            if run is None:
                continue
            state = dict(run.service_wait or {})
            waiting = state.get("waiting")
            if not Run.objects.filter(unfinished, pk=run.pk).exists():
                refused = state.pop("refusing", None) is not None  # its units no longer wait
                if not down and waiting is not None:
                    state.pop("waiting", None)
                    state.update(recovered_at=now.isoformat(), requeued=0, last=waiting)
                    Run.objects.filter(pk=run.pk).update(service_wait=state)
                elif refused:
                    Run.objects.filter(pk=run.pk).update(service_wait=state)
                continue
            open_units = run.responses.filter(status__in=[Response.Status.PENDING, Response.Status.RUNNING])
            if down and run.status != Run.Status.CANCELLED:
                service, since = min(down.items(), key=lambda item: item[1])
                # An outage this watcher saw begin before the last recovery was that one.
                recovered_at = state.get("recovered_at")
                if waiting is None and recovered_at and since.isoformat() <= recovered_at:
                    continue
                notice = {"service": service, "since": since.isoformat(), "units": open_units.count()}
                if waiting != notice:
                    state["waiting"] = notice
                    Run.objects.filter(pk=run.pk).update(service_wait=state)
                    noted += 1
                continue
            lost_messages = (waiting is not None and waiting["service"] in BROKERS) or any(
                service in BROKERS and since.isoformat() > (state.get("recovered_at") or "")
                for service, since in ended.items())
            changed = False
            if refusing is not None:
                names = dict(run.llm_models.filter(pk__in=list(refusing)).values_list("pk", "name"))
                now_refusing = {names[pk]: since.isoformat() for pk, since in refusing.items() if pk in names}
                if now_refusing != state.get("refusing", {}):
                    # Kept only while some model refuses: a run finished with it is watched once more.
                    state.pop("refusing", None)
                    state.update({"refusing": now_refusing} if now_refusing else {})
                    changed = True
            if broker_life is not None and run.status != Run.Status.CANCELLED:
                marker, born = broker_life
                known = state.get("broker_life")
                if known != marker:
                    emptied = known is not None or born > (run.started_at or run.created_at)
                    state["broker_life"] = marker
                    changed = True
                    if emptied and not lost_messages:
                        ids = list(run.responses.filter(status=Response.Status.PENDING).values_list("pk", flat=True))
                        if ids:
                            queueing.enqueue(ids)
                        state["emptied"] = {"at": now.isoformat(), "units": len(ids)}
                        requeued += len(ids)
            if changed and waiting is None and not lost_messages:
                Run.objects.filter(pk=run.pk).update(service_wait=state)
            if waiting is not None or lost_messages:
                ids = []
                if lost_messages:
                    ids = list(run.responses.filter(status=Response.Status.PENDING).values_list("pk", flat=True))
                    if ids:
                        queueing.enqueue(ids)
                state.pop("waiting", None)
                state.update(recovered_at=now.isoformat(), requeued=len(ids),
                             last=waiting or {"service": next(iter(ended), ""), "units": len(ids)})
                Run.objects.filter(pk=run.pk).update(service_wait=state)
                requeued += len(ids)
            count, _ = sweep_run(run.pk)
            swept += count
    return {"noted": noted, "requeued": requeued, "swept": swept, "coded": uncoded}


WRITE_OUTAGES = ("database", "disk_full")  # runs_app.infra.DATABASE, DISK_FULL: coding may have failed
UNCODED_SLACK = timedelta(minutes=10)  # an answer written just before the outage, coded just after it began
UNCODED_WINDOW = timedelta(minutes=10)  # how far back each look reads, past the grace
UNCODED_CHUNK = 500


def uncoded_since(now, ended: dict, first_look: bool):
    """From when a watcher's look reads answers left uncoded (`code_uncoded_answers`):
    the last UNCODED_WINDOW before the grace; from a little before an outage of the
    database or its disk that ended since the last look; everything on a process's first
    look (None), so a worker restarted after a long stop codes what the dead one left."""
    if first_look:
        return None
    since = now - timedelta(seconds=settings.CFPD_UNCODED_GRACE) - UNCODED_WINDOW
    write_outages = [start - UNCODED_SLACK for service, start in ended.items() if service in WRITE_OUTAGES]
    return min([since, *write_outages])


def code_uncoded_answers(now=None, since=None) -> int:
    """Answers written but never coded nor queued for a reviewer (no code, no code
    source) though their question has options: their coding was lost between the answer's
    write and its code (a worker killed there, the database gone or its disk full right
    after the write; issue 44). Sent again through `responses_answered` (the coding app
    codes or queues them, as on arrival). Read among the launched runs unfinished or
    finished since `since` (None: every one), the answers written from `since` and
    longer than CFPD_UNCODED_GRACE ago (the engine codes an answer right after writing
    it: within the grace it may still be doing so). Each run under its row lock, skipped
    when another watcher holds it: two watchers never send the same answer together.
    How many answers were sent."""
    now = now or timezone.now()
    settled = now - timedelta(seconds=settings.CFPD_UNCODED_GRACE)
    unfinished = Q(status__in=[Run.Status.QUEUED, Run.Status.RUNNING]) | Q(status=Run.Status.CANCELLED,
                                                                        finished_at__isnull=True)
    runs = Run.objects.filter(kind=Run.Kind.LAUNCH)
    if since is not None:
        runs = runs.filter(unfinished | Q(finished_at__gte=since))
    total = 0
    for run_id in list(runs.values_list("pk", flat=True)):
        with transaction.atomic():
            if not Run.objects.select_for_update(skip_locked=True).filter(pk=run_id).exists():
                continue
            uncoded = Response.objects.uncoded().filter(run_id=run_id, answered_at__lt=settled)
            if since is not None:
                uncoded = uncoded.filter(answered_at__gte=since)
            ids = list(uncoded.values_list("pk", flat=True))
            for start in range(0, len(ids), UNCODED_CHUNK):
                responses_answered.send(sender=Response, response_ids=ids[start:start + UNCODED_CHUNK])
        total += len(ids)
    return total


def service_notice(run: Run) -> str:
    """What the run page and the API say about the services under the run ("" when
    nothing): while it waits on a service, "Redis unreachable since 12:04; 1,532 units
    will be queued again when it returns"; the models whose provider refuses
    connections, while their units wait; and once its broker came back without its
    messages, "Redis restarted empty at 12:04; 1,080 units queued again"."""
    state = run.service_wait or {}
    parts = [_waiting_text(state.get("waiting"))]
    refusing = state.get("refusing") or {}
    if refusing and run.status in (Run.Status.QUEUED, Run.Status.RUNNING):
        parts.append(" ".join(f"{name}'s provider refuses connections since {_clock(since)}: its units wait "
                              "and are asked when it answers." for name, since in sorted(refusing.items())))
    emptied = state.get("emptied")
    if emptied:
        units = emptied.get("units", 0)
        parts.append(f"Redis restarted empty at {_clock(emptied['at'])}; {units:,} unit{'s' if units != 1 else ''} "
                     "queued again.")
    return " ".join(part for part in parts if part)


def _clock(iso: str) -> str:
    return timezone.localtime(datetime.fromisoformat(iso)).strftime("%H:%M")


def _waiting_text(waiting: dict | None) -> str:
    if not waiting:
        return ""
    since = _clock(waiting["since"])
    units = f"{waiting.get('units', 0):,} unit{'s' if waiting.get('units', 0) != 1 else ''}"
    service = waiting.get("service")
    if service == "disk_full":
        return (f"The database's disk is full since {since}: no answer can be written; {units} will be asked "
                f"again once it has room.")
    label = {"redis": "Redis", "queue": "The queue folder", "database": "The database"}.get(service, service)
    return f"{label} unreachable since {since}; {units} will be queued again when it returns."
