"""Launching a run: one reading of the input (`read_launch`), one plan priced without
writing (`plan_launch`), one launch (`start_run`), and `create_run`, the one place a run
of any kind is made; with what a launch needs of each model (prices, latency, key)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from decimal import Decimal

from django.conf import settings
from django.db import connection as db_connection
from django.db import transaction
from django.utils import timezone

from benchmarks_app import families
from benchmarks_app import services as questions_service
from benchmarks_app.models import DEFAULT_CONDITION_ID, Benchmark, Condition, Question
import gateway

from . import connection, infra, launch_plan, option_design, provider_batch, queueing, unit_rows
from .models import LLMModel, Response, Run
from .planning import option_order, sample_ids
from .selection import Selection, listed, read_family_keys


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


def selection_notes(benchmark: Benchmark, selection: Selection) -> list[str]:
    """What the family's selection left out and why (`Family.selection_notes`), one line each."""
    family = families.family(benchmark.family)
    if family.selection_notes is None:
        return []
    questions = questions_service.current_questions(benchmark)
    if selection.choice_counts:
        questions = questions.filter(choice_count__in=selection.choice_counts)
    return list(family.selection_notes(questions, selection))


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
        # Born done: a birth, not a transition (see `transitions`).
        now = timezone.now()
        fields = {**fields, "status": Run.Status.DONE, "started_at": now, "finished_at": now}
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
    (as the gateway charges them), LiteLLM's table, free for the bundled local models, or unknown."""
    if model.input_cost_per_token is not None or model.output_cost_per_token is not None:
        return (float(model.input_cost_per_token or 0), float(model.output_cost_per_token or 0), "model")
    if model.is_bundled:
        return 0.0, 0.0, "local"
    try:
        info = gateway.model_info(model.litellm_model)
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
        info = gateway.model_info(model.litellm_model)
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
    plan.notes = selection_notes(request.benchmark, request.selection)
    if family.power is not None and request.models and question_ids:
        # Choice-mode models answer once: the fewest answers per question any model gives.
        repeats = min(repeats_for(model, request.repeats) for model in request.models)
        plan.power = family.power(request.benchmark, list(question_ids), repeats, len(request.models),
                                  difference=request.difference / 100)
        plan.power_template = family.power_template
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
    left_out = selection_notes(request.benchmark, selection)
    run = create_run(Run.Kind.LAUNCH, request.benchmark, models, conditions, selection=selection.as_dict(),
                     repeats=request.repeats, note=request.note, launched_by=launched_by,
                     system_prompt=request.system_prompt, permute_options=request.permute_options,
                     balanced_options=request.balanced_options and family.permutable,
                     permutation_seed=selection.seed, use_cache=request.use_cache, budget_usd=request.budget_usd,
                     budget_units=request.budget_units, delivery=request.delivery,
                     left_out=left_out)
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
    unit_rows.refresh_statistics_after(written)
    if family.follow_ups is None:  # no unit is added later: the run page reads what was planned
        Run.objects.filter(pk=run.pk).update(planned=_planned(asked, models, request.repeats))
    family.mark_asked(question_ids, run.pk)
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


def key_status(model: LLMModel) -> dict:
    """Whether the environment has the key the model needs; never the key itself."""
    if model.is_bundled or model.is_external:
        return {"needed": False, "present": True, "missing": []}
    if model.api_base and model.litellm_model.startswith(("openai/", "hosted_vllm/", "ollama/")):
        return {"needed": False, "present": True, "missing": []}
    report = gateway.key_check(model.litellm_model)
    return {"needed": True, "present": bool(report.get("keys_in_environment")),
            "missing": list(report.get("missing_keys") or [])}
