"""Run workflows: launch, cancel, resume, recover, progress; registering models and
importing answers collected elsewhere. Views, commands, the API and tasks call these."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Avg, Count, Q, Sum
from django.utils import timezone

from scenarios_app import services as authoring
from scenarios_app.models import Benchmark, Question, Scenario

from .execution import finish_run_if_complete
from .models import LLMModel, Response, Run
from .planning import option_order, sample_ids
from .signals import responses_imported


class RunError(ValueError):
    """A launch, cancel or resume that cannot go ahead; the message says why."""


@dataclass
class Selection:
    """Which questions of a benchmark a run asks."""

    domains: list[str] = field(default_factory=list)  # domain slugs
    choice_counts: list[int] = field(default_factory=list)
    qualified_actors: list[str] = field(default_factory=list)  # actor codes
    sample: int | None = None
    seed: int = 0

    def as_dict(self):
        return {"domains": self.domains, "choice_counts": self.choice_counts,
                "qualified_actors": self.qualified_actors, "sample": self.sample, "seed": self.seed}


def select_questions(benchmark: Benchmark, selection: Selection) -> list[int]:
    questions = authoring.current_questions(benchmark)
    if selection.domains:
        questions = questions.filter(domain__slug__in=selection.domains)
    if selection.choice_counts:
        questions = questions.filter(choice_count__in=selection.choice_counts)
    if selection.qualified_actors:
        questions = questions.filter(qualified_actor__code__in=selection.qualified_actors)
    return sample_ids(list(questions.values_list("id", flat=True)), selection.sample, selection.seed)


def enqueue(response_ids: list[int]):
    """Queue one task per unit, after the transaction that created them commits."""
    from .tasks import ask

    def send():
        now = timezone.now()
        for start in range(0, len(response_ids), settings.CFPD_ENQUEUE_CHUNK):
            chunk = response_ids[start:start + settings.CFPD_ENQUEUE_CHUNK]
            Response.objects.filter(pk__in=chunk).update(enqueued_at=now)
            for response_id in chunk:
                ask.delay(response_id)

    transaction.on_commit(send)


def schedule_sweep(run_id: int):
    from .tasks import sweep

    transaction.on_commit(lambda: sweep.apply_async((run_id,), countdown=settings.CFPD_SWEEP_SECONDS))


SAMPLING_REPEATS = 5  # section 3.7: five runs of each sampling (closed) model, mean and spread reported


def repeats_for(model: LLMModel, repeats: int) -> int:
    """Choice mode is deterministic (temperature 0, the most probable letter): asked once.
    Generate mode samples: asked `repeats` times."""
    return 1 if model.answer_mode == LLMModel.AnswerMode.CHOICE else repeats


@transaction.atomic
def launch_run(benchmark: Benchmark, models: list[LLMModel], selection: Selection | None = None,
               repeats: int = SAMPLING_REPEATS,
               system_prompt: str = "", permute_options: bool = False, use_cache: bool | None = None,
               launched_by=None, note: str = "") -> Run:
    """Create the run and one response row per (question, model, repeat), freeze the
    scenario versions asked, and queue the work. `repeats` applies to generate-mode models."""
    selection = selection or Selection()
    if not models:
        raise RunError("choose at least one model")
    external = [m.name for m in models if m.is_external]
    if external:
        raise RunError(f"{', '.join(external)} only hold imported answers and cannot be called")
    if repeats < 1:
        raise RunError("repeats must be at least 1")
    question_ids = select_questions(benchmark, selection)
    if not question_ids:
        raise RunError(f"no questions of benchmark {benchmark.name!r} match the selection")
    run = Run.objects.create(benchmark=benchmark, selection=selection.as_dict(), repeats=repeats,
                             system_prompt=system_prompt, permute_options=permute_options,
                             permutation_seed=selection.seed, use_cache=use_cache, launched_by=launched_by, note=note)
    run.llm_models.set(models)
    questions = Question.objects.filter(pk__in=question_ids).only("id", "key", "choice_count")
    rows = [
        Response(run=run, question=q, model=m, repeat=r,
                 option_order=option_order(q.choice_count, permute_options, selection.seed, f"{q.key}/{m.pk}/{r}"))
        for q in questions for m in models for r in range(repeats_for(m, repeats))
    ]
    Response.objects.bulk_create(rows, batch_size=2000)
    authoring.freeze(Scenario.objects.filter(questions__id__in=question_ids).distinct())
    enqueue(list(run.responses.values_list("id", flat=True)))
    schedule_sweep(run.pk)
    return run


@transaction.atomic
def cancel_run(run: Run) -> int:
    """Stop new calls: pending units are cancelled; calls in flight finish and are kept."""
    if run.status in (Run.Status.DONE, Run.Status.CANCELLED):
        raise RunError(f"run {run.pk} is {run.status}; nothing to cancel")
    Run.objects.filter(pk=run.pk).update(status=Run.Status.CANCELLED, finished_at=timezone.now())
    return run.responses.filter(status=Response.Status.PENDING).update(status=Response.Status.CANCELLED)


@transaction.atomic
def resume_run(run: Run) -> int:
    """Ask again only what is missing: every unit that is not done."""
    if run.llm_models.filter(is_external=True).exists():
        raise RunError(f"run {run.pk} holds imported answers; it cannot be resumed")
    missing = run.responses.exclude(status__in=[Response.Status.DONE, Response.Status.RUNNING])
    ids = list(missing.values_list("id", flat=True))
    missing.update(status=Response.Status.PENDING, attempts=0, error_kind="", error_message="")
    running = run.responses.filter(status=Response.Status.RUNNING).exists()
    if not ids and not running:
        Run.objects.filter(pk=run.pk).update(status=Run.Status.DONE, finished_at=run.finished_at or timezone.now())
        return 0
    Run.objects.filter(pk=run.pk).update(status=Run.Status.RUNNING, finished_at=None)
    enqueue(ids)
    schedule_sweep(run.pk)
    return len(ids)


def sweep_run(run_id: int, requeue_after: float | None = None) -> tuple[int, bool]:
    """Re-queue units whose worker died (lease ran out) and pending units queued more
    than `requeue_after` seconds ago (their message may have died with a worker).
    Returns (how many were re-queued, whether the run is still active)."""
    run = Run.objects.filter(pk=run_id).first()
    if run is None or run.status not in (Run.Status.QUEUED, Run.Status.RUNNING):
        return 0, False
    now = timezone.now()
    requeue_after = settings.CFPD_REQUEUE_AFTER if requeue_after is None else requeue_after
    stale = run.responses.filter(
        Q(status=Response.Status.RUNNING, lease_expires_at__lt=now)
        | Q(status=Response.Status.PENDING, enqueued_at__lte=now - timedelta(seconds=requeue_after))
        | Q(status=Response.Status.PENDING, enqueued_at__isnull=True))
    ids = list(stale.values_list("id", flat=True))
    if ids:
        with transaction.atomic():
            enqueue(ids)
    finish_run_if_complete(run_id)
    run.refresh_from_db(fields=["status"])
    return len(ids), run.status in (Run.Status.QUEUED, Run.Status.RUNNING)


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
        return self.done + self.failed + self.cancelled

    @property
    def percent(self):
        return round(100 * self.finished / self.total, 1) if self.total else 100.0


def progress(run: Run, model: LLMModel | None = None) -> Progress:
    responses = run.responses.all() if model is None else run.responses.filter(model=model)
    counts = dict(responses.values_list("status").annotate(n=Count("id")).order_by())
    totals = responses.aggregate(cached=Count("id", filter=Q(cache_hit=True)), prompt=Sum("prompt_tokens"),
                                 completion=Sum("completion_tokens"), cost=Sum("cost"),
                                 latency=Avg("latency_ms", filter=Q(cache_hit=False)))
    return Progress(
        total=sum(counts.values()), pending=counts.get("pending", 0), running=counts.get("running", 0),
        done=counts.get("done", 0), failed=counts.get("failed", 0), cancelled=counts.get("cancelled", 0),
        cached=totals["cached"], prompt_tokens=totals["prompt"] or 0, completion_tokens=totals["completion"] or 0,
        cost=float(totals["cost"]) if totals["cost"] is not None else None, mean_latency_ms=totals["latency"],
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
    from . import llm

    report = llm.litellm.validate_environment(model=model.litellm_model)
    return {"needed": True, "present": bool(report.get("keys_in_environment")),
            "missing": list(report.get("missing_keys") or [])}


# --- answers produced elsewhere ----------------------------------------------------

IMPORT_COLUMNS = ["question_key", "model", "repeat", "output"]


@dataclass
class ResponseImport:
    run: Run | None
    created: int
    problems: list[str]


def import_responses(text: str, benchmark_name: str | None = None, imported_by=None) -> ResponseImport:
    """Answers collected outside the tool, by the keys `export_questions` wrote. Atomic:
    any bad row and nothing is written. Unknown models become external models."""
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff"), newline=""))
    missing = [c for c in IMPORT_COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        return ResponseImport(None, 0, [f"line 1: missing column(s) {', '.join(missing)}; the header must be "
                                        + ", ".join(IMPORT_COLUMNS)])
    rows, problems = [], []
    for record in reader:
        line = reader.line_num
        key = (record.get("question_key") or "").strip()
        model = (record.get("model") or "").strip()
        try:
            repeat = int((record.get("repeat") or "0").strip() or 0)
            if repeat < 0:
                raise ValueError
        except ValueError:
            problems.append(f"line {line}: repeat {record.get('repeat')!r} is not a whole number >= 0")
            continue
        if not key or not model:
            problems.append(f"line {line}: question_key and model are required")
            continue
        rows.append((line, key, model, repeat, record.get("output") or ""))
    questions = {q.key: q for q in Question.objects.filter(key__in={r[1] for r in rows}).select_related("benchmark")}
    seen = {}
    for line, key, model, repeat, _ in rows:
        if key not in questions:
            problems.append(f"line {line}: no question with key {key!r} (keys are as export_questions writes them)")
        if (key, model, repeat) in seen:
            problems.append(f"line {line}: ({key}, {model}, repeat {repeat}) repeats line {seen[(key, model, repeat)]}")
        seen.setdefault((key, model, repeat), line)
    benchmarks = {q.benchmark for q in questions.values()}
    if len(benchmarks) > 1:
        problems.append("the file mixes questions of several benchmarks: " + ", ".join(sorted(b.name for b in benchmarks)))
    if problems or not rows:
        return ResponseImport(None, 0, problems or ["the file has no answers"])
    benchmark = benchmarks.pop()
    with transaction.atomic():
        models = {}
        for name in sorted({r[2] for r in rows}):
            existing = LLMModel.objects.filter(name=name).first()
            models[name] = existing or LLMModel.objects.create(
                name=name, is_external=True, answer_mode=LLMModel.AnswerMode.GENERATE,
                notes="Created by import_responses: answers collected outside the tool; never called.")
        run = Run.objects.create(benchmark=benchmark, status=Run.Status.DONE, launched_by=imported_by,
                                 repeats=max(r[3] for r in rows) + 1, note="imported answers",
                                 started_at=timezone.now(), finished_at=timezone.now(),
                                 selection={"imported": True})
        run.llm_models.set(models.values())
        now = timezone.now()
        Response.objects.bulk_create([
            Response(run=run, question=questions[key], model=models[model], repeat=repeat, status=Response.Status.DONE,
                     raw_output=output, resolved_model=model, option_order=list(range(questions[key].choice_count)),
                     answered_at=now)
            for _, key, model, repeat, output in rows
        ], batch_size=2000)
        authoring.freeze(Scenario.objects.filter(questions__key__in=list(questions)).distinct())
        # Coded in the same transaction: an import is whole, codes and review tasks included.
        responses_imported.send(sender=Run, run_id=run.pk)
    return ResponseImport(run, len(rows), [])


def recover_active_runs() -> int:
    """When a worker starts: queue again every open unit of every active run, since
    messages a killed worker had taken may be lost. Duplicates are harmless: a unit is
    claimed once. Returns how many units were queued."""
    from .tasks import sweep

    total = 0
    for run_id in Run.objects.filter(status__in=[Run.Status.QUEUED, Run.Status.RUNNING]).values_list("pk", flat=True):
        count, active = sweep_run(run_id, requeue_after=0)
        total += count
        if active:
            sweep.apply_async((run_id,), countdown=settings.CFPD_SWEEP_SECONDS)
    return total
