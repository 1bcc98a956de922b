"""The groups `sampling_check` judges, counted in the database for a bounded number of
questions per model (the first ones answered twice), so that a run of millions of answers
costs the run page a few small queries."""

from __future__ import annotations

from django.db.models import Count

from .models import Response, Run
from .sampling_check import SampleGroup, ignored_temperature

QUESTIONS_PER_MODEL = 40


def sample_groups(run: Run, per_model: int = QUESTIONS_PER_MODEL) -> list[SampleGroup]:
    groups: list[SampleGroup] = []
    answered = Response.objects.answers().filter(run=run, status=Response.Status.DONE)
    for model in run.llm_models.all():
        twice = list(answered.filter(model=model, repeat=1).values_list("question_id", flat=True)[:per_model])
        if not twice:
            continue
        rows = (answered.filter(model=model, question_id__in=twice)
                .values("question_id", "condition_id", "params__temperature")
                .annotate(samples=Count("id"), distinct=Count("raw_output", distinct=True)))
        for row in rows:
            temperature = row["params__temperature"]
            groups.append(SampleGroup(model=model.name, samples=row["samples"], distinct=row["distinct"],
                                      temperature=float(temperature) if temperature is not None else None))
    return groups


def temperature_warnings(run: Run) -> list[str]:
    """The run's models whose samples above temperature 0 are all alike (none while it runs:
    the first questions' repeats may not all be in)."""
    if run.status != Run.Status.DONE:
        return []
    return ignored_temperature(sample_groups(run))
