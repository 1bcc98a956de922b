"""The groups `sampling_check` judges, counted in the database for a bounded number of
questions per model (the first ones answered twice), so that a run of millions of answers
costs the run page a few small queries, and a finished run's page none once they are
counted (the warnings kept in the cache while its answers are the same)."""

from __future__ import annotations

import hashlib

from django.core.cache import cache
from django.db.models import Count, Q, Sum

from .models import Response, Run, RunProgress
from .sampling_check import SampleGroup, ignored_temperature

QUESTIONS_PER_MODEL = 40
KEPT_SECONDS = 24 * 3600


def sample_groups(run: Run, per_model: int = QUESTIONS_PER_MODEL) -> list[SampleGroup]:
    """One bounded read per model for its questions answered twice (LIMIT per_model through
    the run's index), then one query counting every model's groups. A judge run's units are
    no answers (`Response.objects.answers()`): none. Every other run's units are read as
    the run's, without the judge runs' anti-join, which PostgreSQL guessed to keep 1 row
    and so read the table in parallel for a model's first questions (0.57 s at 2.66 M)."""
    if run.kind == Run.Kind.JUDGE:
        return []
    answered = run.responses.filter(status=Response.Status.DONE)
    names: dict[int, str] = {}
    asked = Q()
    for model in run.llm_models.all():
        twice = list(answered.filter(model=model, repeat=1).values_list("question_id", flat=True)[:per_model])
        if twice:
            names[model.pk] = model.name
            asked |= Q(model_id=model.pk, question_id__in=twice)
    if not names:
        return []
    rows = (answered.filter(asked).values("model_id", "question_id", "condition_id", "params__temperature")
            .annotate(samples=Count("id"), distinct=Count("raw_output", distinct=True)).order_by())
    groups: list[SampleGroup] = []
    for row in rows:
        temperature = row["params__temperature"]
        groups.append(SampleGroup(model=names[row["model_id"]], samples=row["samples"], distinct=row["distinct"],
                                  temperature=float(temperature) if temperature is not None else None))
    return groups


def temperature_warnings(run: Run, kept: bool = True) -> list[str]:
    """The run's models whose samples above temperature 0 are all alike (none while it runs:
    the first questions' repeats may not all be in). Kept in the cache under the run's
    finish and its answers' count: a finished run's answers do not change until it is
    resumed, which changes its status and then its finish."""
    if run.status != Run.Status.DONE:
        return []
    done = RunProgress.objects.filter(run_id=run.pk, status=Response.Status.DONE).aggregate(n=Sum("n"))["n"]
    described = repr((run.pk, run.created_at and run.created_at.isoformat(),
                      run.finished_at and run.finished_at.isoformat(), done))
    key = "temperature-warnings:" + hashlib.sha256(described.encode()).hexdigest()
    try:
        found = cache.get(key) if kept else None  # not `kept`: counted again (a page's "recompute")
    except Exception:  # the cache is a shortcut: without Redis the groups are counted
        found = None
    if found is None:
        found = ignored_temperature(sample_groups(run))
        try:
            cache.set(key, found, KEPT_SECONDS)
        except Exception:
            pass
    return found
