"""A launch, checked and priced before anything is asked. Pure: no Django, no LiteLLM.

Two halves, both used by the form, the API and `run_benchmark` through
`services.read_launch` and `services.plan_launch`:

* `check_settings` reads the run's settings from whatever the caller had (form strings,
  JSON numbers, argparse integers) under the limits of `Limits`, and reports every
  problem at once, keyed by the field it belongs to (`LaunchInvalid.errors`).
* `plan_model` / `plan_run` say what a launch will cost before it is made: units per
  model, estimated prompt and completion tokens, money, and time at the model's limits.

Estimates, stated so that nobody mistakes them for measurements:

* prompt tokens: the rendered prompt's characters / 4, rounded up per prompt (OpenAI's
  rule of thumb for English; no tokenizer is loaded for a plan);
* completion tokens: 1 per unit in choice mode (one letter), none in rank mode, `max_tokens` in generate
  mode (an upper bound: most answers stop sooner);
* money: per-token prices (the model's own, or LiteLLM's table) x tokens; `None` is
  "unknown" (no price anywhere), never 0;
* time: the model's calls in flight divided by an assumed latency, or its requests per
  minute, whichever is slower; models run side by side, so the run takes the longest.
* batch delivery, beside live: the batch prices of LiteLLM's table
  (`input_cost_per_token_batches`, `output_cost_per_token_batches`) where it has them, else
  half the live price (as LiteLLM's own `batch_cost_calculator` assumes), said per model;
  time: the providers' completion window, within 24 hours (a batch often ends sooner; no
  figure is promised).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from benchmarks_app.lettering import MAX_OPTIONS

MAX_SEED = 2**31 - 1  # Run.permutation_seed is a 32-bit integer column
MAX_WHOLE = 2**31 - 1  # any other count stored or compared in the database
MAX_BUDGET_USD = Decimal("100000000")  # Run.budget_usd: 12 digits, 4 after the point
CHARS_PER_TOKEN = 4
ASSUMED_LATENCY_SECONDS = 2.0  # a model with no answered call yet
BATCH_WINDOW_SECONDS = 24 * 3600  # OpenAI's batch completion window ("24h", the only one offered)


class LaunchInvalid(ValueError):
    """Launch input that cannot be used: `errors` maps each field to its messages."""

    def __init__(self, errors: dict[str, list[str]]):
        self.errors = {name: list(messages) for name, messages in errors.items() if messages}
        super().__init__("; ".join(f"{name}: {message}" for name, messages in self.errors.items()
                                   for message in messages))


@dataclass(frozen=True)
class Limits:
    max_repeats: int = 50
    max_units: int = 200_000
    max_prompt_chars: int = 20_000


@dataclass(frozen=True)
class RunSettings:
    """The settings of a launch once checked (the selection's names are checked by services)."""

    repeats: int
    sample: int | None
    seed: int
    system_prompt: str
    choice_counts: list[int]
    permute_options: bool
    budget_usd: Decimal | None
    budget_units: int | None
    difference: int = 10  # points: the difference the plan's power figures are for


def whole_number(value, name: str, minimum: int, maximum: int, errors: dict, required: bool = False,
                 default=None):
    """`value` as an int in minimum..maximum, or None (empty) / default; a problem goes to
    errors[name]. Accepts ints and strings of digits; never floats with a fraction, bools,
    or numbers too long to be one (a 5,000-digit string is refused, not parsed)."""
    if value is None or (isinstance(value, str) and value.strip() == ""):
        if required and default is None:
            errors.setdefault(name, []).append("is required")
        return default
    number = None
    if isinstance(value, bool):
        pass
    elif isinstance(value, int):
        number = value
    elif isinstance(value, float) and math.isfinite(value) and value.is_integer():
        number = int(value)
    elif isinstance(value, str):
        text = value.strip()
        digits = text.lstrip("+-")
        if digits.isascii() and digits.isdigit() and len(digits) <= 30:
            number = int(text)
    if number is None:
        errors.setdefault(name, []).append(f"must be a whole number from {minimum} to {maximum}; got {_show(value)}")
        return None
    if not minimum <= number <= maximum:
        errors.setdefault(name, []).append(f"must be from {minimum} to {maximum}; got {_show(number)}")
        return None
    return number


def money(value, name: str, errors: dict) -> Decimal | None:
    """A positive amount of US dollars with at most 4 decimals, or None when empty."""
    if value is None or (isinstance(value, str) and value.strip() == ""):
        return None
    try:
        if isinstance(value, bool) or not isinstance(value, (int, float, str, Decimal)):
            raise InvalidOperation
        amount = Decimal(str(value).strip())
        if not amount.is_finite():
            raise InvalidOperation
    except (InvalidOperation, ValueError):
        errors.setdefault(name, []).append(f"must be an amount in US dollars, e.g. 12.50; got {_show(value)}")
        return None
    if amount <= 0 or amount > MAX_BUDGET_USD:
        errors.setdefault(name, []).append(f"must be more than 0 and at most {MAX_BUDGET_USD}; got {_show(amount)}")
        return None
    if amount != amount.quantize(Decimal("0.0001")):
        errors.setdefault(name, []).append("has more than 4 decimals")
        return None
    return amount


def _show(value) -> str:
    """A value quoted in a message, cut short (it may be a 1 MB string or a 300-digit number)."""
    text = repr(value) if not isinstance(value, (int, Decimal)) else str(value)
    return text if len(text) <= 40 else text[:20] + f"… ({len(text)} characters)"


def check_settings(data: dict, limits: Limits) -> RunSettings:
    """Every setting of a launch checked at once; LaunchInvalid names each bad field."""
    errors: dict[str, list[str]] = {}
    repeats = whole_number(data.get("repeats"), "repeats", 1, limits.max_repeats, errors, required=True, default=5)
    sample = whole_number(data.get("sample"), "sample", 1, MAX_WHOLE, errors)
    seed = whole_number(data.get("seed"), "seed", 0, MAX_SEED, errors, default=0)
    prompt = data.get("system_prompt") or ""
    if not isinstance(prompt, str):
        errors.setdefault("system_prompt", []).append("must be text")
        prompt = ""
    elif len(prompt) > limits.max_prompt_chars:
        errors.setdefault("system_prompt", []).append(
            f"is {len(prompt):,} characters; at most {limits.max_prompt_chars:,} are allowed")
    elif "\x00" in prompt:
        errors.setdefault("system_prompt", []).append("contains a NUL character")
    counts = []
    for raw in data.get("choice_counts") or []:
        count = whole_number(raw, "choice_counts", 2, MAX_OPTIONS, errors)
        if count is not None and count not in counts:
            counts.append(count)
    budget_usd = money(data.get("budget_usd"), "budget_usd", errors)
    budget_units = whole_number(data.get("budget_units"), "budget_units", 1, MAX_WHOLE, errors)
    difference = whole_number(data.get("difference"), "difference", 1, 100, errors, default=10)
    if errors:
        raise LaunchInvalid(errors)
    return RunSettings(repeats=repeats, sample=sample, seed=seed, system_prompt=prompt, choice_counts=counts,
                       permute_options=bool(data.get("permute_options")), budget_usd=budget_usd,
                       budget_units=budget_units, difference=difference)


def check_units(units: int, limits: Limits):
    if units > limits.max_units:
        raise LaunchInvalid({"units": [
            f"the launch asks {units:,} units; at most {limits.max_units:,} are allowed per run "
            "(CFPD_MAX_UNITS_PER_RUN): lower the repeats or the sample, or tick fewer models"]})


# --- the plan ---------------------------------------------------------------------------

def prompt_tokens(chars: int) -> int:
    """Estimated tokens of a prompt of `chars` characters: chars / 4, rounded up."""
    return -(-chars // CHARS_PER_TOKEN)


@dataclass(frozen=True)
class ModelSpec:
    """What the plan needs to know of one model."""

    name: str
    mode: str  # "choice", "rank" (nothing generated) or "generate"
    repeats: int  # times each question is asked of this model
    max_tokens: int
    max_concurrency: int
    requests_per_minute: int | None
    input_cost_per_token: float | None  # None: no price known
    output_cost_per_token: float | None
    price_source: str = "unknown"  # "model", "litellm", "local" or "unknown"
    latency_seconds: float = ASSUMED_LATENCY_SECONDS
    latency_source: str = "assumed"  # or "observed"
    # Batch delivery: the table's batch prices (None: not in the table), and why the model
    # cannot be asked by batch ("" when it can).
    input_cost_per_token_batches: float | None = None
    output_cost_per_token_batches: float | None = None
    batch_refusal: str = ""


def batch_prices(live_input: float | None, live_output: float | None, batch_input: float | None,
                 batch_output: float | None) -> tuple[float | None, float | None, str]:
    """Per-token batch prices (input, output) and where they come from: the table's batch
    prices ("batch price"), else half the live price ("half of live"), each side on its own;
    None for a side with no price at all."""
    chosen, sources = [], set()
    for live, batch in ((live_input, batch_input), (live_output, batch_output)):
        if batch is not None:
            chosen.append(batch)
            sources.add("batch price")
        elif live is not None:
            chosen.append(live / 2)
            sources.add("half of live")
        else:
            chosen.append(None)
    source = " and ".join(sorted(sources)) if sources else "unknown"
    return chosen[0], chosen[1], source


@dataclass
class ModelPlan:
    name: str
    mode: str
    questions: int
    repeats: int
    units: int
    prompt_tokens: int
    completion_tokens: int
    cost: float | None  # None: unknown
    price_source: str
    requests_per_second: float
    limited_by: str  # "concurrency" or "requests_per_minute"
    seconds: float
    latency_seconds: float
    latency_source: str
    batch_cost: float | None = None  # None: unknown, or no batch interface (batch_refusal)
    batch_price_source: str = "unknown"
    batch_refusal: str = ""


@dataclass
class RunPlan:
    questions: int
    units: int
    prompt_tokens: int
    completion_tokens: int
    cost: float | None  # the sum over models, None when any model's is unknown
    cost_known: float  # the sum over the models whose price is known
    seconds: float  # the slowest model (models are asked side by side)
    models: list[ModelPlan] = field(default_factory=list)
    token_method: str = "prompt tokens: rendered prompt characters / 4, rounded up per prompt; " \
                        "completion tokens: 1 per unit in choice mode, max_tokens in generate mode"
    power: dict | None = None  # the family's power figures (`Family.power`), plain values; None without
    power_template: str = ""  # the family's template for `power` (`Family.power_template`)
    # Per model, what its last connection test says of its answer mode (`capabilities.mode_check`):
    # {"model", "level": refuse | warn | note, "text", "url"}; a refusal stops the launch.
    checks: list = field(default_factory=list)
    # Batch delivery beside live: its cost (None when any model's is unknown or a model has no
    # batch interface), the known part, and the window the providers answer within.
    batch_cost: float | None = None
    batch_cost_known: float = 0.0
    batch_seconds: float = BATCH_WINDOW_SECONDS
    batch_possible: bool = True
    # What the selection left out and why (`Family.selection_notes`: CFPD's actor languages
    # with no approved translation), one line each.
    notes: list = field(default_factory=list)

    @property
    def refused(self) -> bool:
        return any(check.get("level") == "refuse" for check in self.checks)


def plan_model(spec: ModelSpec, prompt_chars: list[int]) -> ModelPlan:
    """One model's share of a run: `prompt_chars` holds each question's rendered prompt length."""
    questions = len(prompt_chars)
    units = questions * spec.repeats
    prompt = sum(prompt_tokens(chars) for chars in prompt_chars) * spec.repeats
    completion = units * ({"choice": 1, "rank": 0}.get(spec.mode, spec.max_tokens))
    cost = None
    if spec.input_cost_per_token is not None or spec.output_cost_per_token is not None:
        cost = prompt * (spec.input_cost_per_token or 0.0) + completion * (spec.output_cost_per_token or 0.0)
    batch_input, batch_output, batch_source = batch_prices(
        spec.input_cost_per_token, spec.output_cost_per_token, spec.input_cost_per_token_batches,
        spec.output_cost_per_token_batches)
    batch_cost = None
    if not spec.batch_refusal and (batch_input is not None or batch_output is not None):
        batch_cost = prompt * (batch_input or 0.0) + completion * (batch_output or 0.0)
    by_concurrency = max(1, spec.max_concurrency) / max(spec.latency_seconds, 1e-6)
    by_rate = spec.requests_per_minute / 60 if spec.requests_per_minute else math.inf
    rate = min(by_concurrency, by_rate)
    return ModelPlan(
        name=spec.name, mode=spec.mode, questions=questions, repeats=spec.repeats, units=units,
        prompt_tokens=prompt, completion_tokens=completion, cost=cost, price_source=spec.price_source,
        requests_per_second=rate, limited_by="requests_per_minute" if by_rate < by_concurrency else "concurrency",
        seconds=units / rate, latency_seconds=spec.latency_seconds, latency_source=spec.latency_source,
        batch_cost=batch_cost, batch_price_source=batch_source if not spec.batch_refusal else "no batch interface",
        batch_refusal=spec.batch_refusal)


def plan_run(specs: list[ModelSpec], prompt_chars: list[int]) -> RunPlan:
    models = [plan_model(spec, prompt_chars) for spec in specs]
    known = [m.cost for m in models if m.cost is not None]
    batch_known = [m.batch_cost for m in models if m.batch_cost is not None]
    return RunPlan(
        questions=len(prompt_chars), units=sum(m.units for m in models),
        prompt_tokens=sum(m.prompt_tokens for m in models), completion_tokens=sum(m.completion_tokens for m in models),
        cost=sum(known) if len(known) == len(models) else None, cost_known=sum(known),
        seconds=max((m.seconds for m in models), default=0.0), models=models,
        batch_cost=sum(batch_known) if len(batch_known) == len(models) else None, batch_cost_known=sum(batch_known),
        batch_possible=not any(m.batch_refusal for m in models))


# --- budgets ----------------------------------------------------------------------------

def budget_reached(budget_usd: Decimal | None, budget_units: int | None, spent_usd: Decimal | float,
                   spent_units: int) -> bool:
    """Whether what a run has spent reaches its budget (no budget: never)."""
    if budget_usd is not None and Decimal(str(spent_usd)) >= budget_usd:
        return True
    return budget_units is not None and spent_units >= budget_units
