"""A run's progress: its units counted by status, tokens, cost and latency, for the run
and for each model, read from the counters the database keeps (`RunProgress`) or
recounted from the units; and its errors by model and kind."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Min, Q, Sum

from .models import LLMModel, Response, Run, RunProgress


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
    """Failed and retried units by model and error kind, with one example message each
    (the first unit's, by id). Two queries, whatever the number of models and kinds: the
    groups with their first unit from the errors' index, then those units' messages. (A
    subquery per group for its example was planned as a walk of the run's units in id
    order, and JIT-compiled: 0.5-2.4 s at 2.66 M answers.)"""
    rows = list(run.responses.exclude(error_kind="").values("model__name", "error_kind", "status")
                .annotate(n=Count("id"), first=Min("id")).order_by("model__name", "-n", "error_kind", "status"))
    # By their keys alone (the run's too, and PostgreSQL may walk the run's units instead).
    examples = dict(Response.objects.filter(pk__in=[row["first"] for row in rows])
                    .values_list("pk", "error_message"))
    return [{"model__name": row["model__name"], "error_kind": row["error_kind"], "status": row["status"],
             "n": row["n"], "example": examples.get(row["first"])} for row in rows]


# The run page counts the answers per worker over the run's last this many units (by id),
# so that the page stays one bounded index read on a run of millions of units.
WORKERS_WINDOW = 200_000


@dataclass
class RunWorker:
    name: str  # the Celery node name, "host1@machine"
    answers: int  # answers it recorded among the run's last WORKERS_WINDOW units
    holding: int  # units it holds now (running under its claim)


def run_workers(run: Run) -> list[RunWorker]:
    """The workers serving a run: those that recorded its answers (`Response.worker`, the
    worker whose claim the answer was written under) and those holding its units now.
    Ordered by name. An imported or synthetic run's answers name no worker: none (its
    window of 200,000 answers was 2 s of its page at 2.66 M answers, to find nothing)."""
    if run.kind in (Run.Kind.IMPORT, Run.Kind.SYNTHETIC):
        return []
    last = run.responses.order_by("-pk").values_list("pk", flat=True).first()
    if last is None:
        return []
    # Two reads, each inside an index: the recent answers done by (run, id), the units held
    # now by (run, status). (One pass with both as an OR read every unit of the run: 3 s for
    # an open run of 10.6 M pending units.)
    def per_worker(**where):
        rows = run.responses.filter(**where).exclude(worker="").values("worker").annotate(n=Count("pk"))
        return {row["worker"]: row["n"] for row in rows.order_by()}

    answers = per_worker(status="done", pk__gt=last - WORKERS_WINDOW)
    holding = per_worker(status="running")
    return [RunWorker(name, answers.get(name, 0), holding.get(name, 0)) for name in sorted({*answers, *holding})]
