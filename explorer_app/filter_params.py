"""The filters the answers list and the grid share, read from a query string once.

Runs, models, conditions, statuses and codes mean the same on both pages: read here, each
value checked (a 400 naming the parameter), the runs, models and conditions looked up; and applied to answers the same way.
"""
from __future__ import annotations

from django.db.models import Q

from analysis_app.params import check_known
from benchmarks_app.models import Condition
from kit import params
from kit.params import BadParameter
from runs_app.models import Response

STATUSES = tuple(Response.Status.values)
CODES = tuple("ABCDEFGHIJ") + ("R", "X", "none")  # "none": answers without a code


def read_shared(query) -> dict:
    """`runs`, `models`, `conditions`, `statuses` and `codes` from the query, checked."""
    found = {
        "runs": params.integers(query, "run"),
        "models": params.texts(query, "model", max_length=80),
        "conditions": params.texts(query, "condition", max_length=64),
        "statuses": params.choices(query, "status", STATUSES),
        "codes": params.choices(query, "code", CODES, upper_letters=True),
    }
    check_known(found["runs"], found["models"])
    known = set(Condition.objects.filter(name__in=found["conditions"]).values_list("name", flat=True))
    unknown = [c for c in found["conditions"] if c not in known]
    if unknown:
        raise BadParameter("condition", f"{', '.join(map(repr, unknown))} is not a condition")
    return found


def apply_shared(answers, f):
    """`answers` narrowed by the shared filters of `f` (any object with the attributes
    `read_shared` gives: runs, models, conditions, statuses, codes)."""
    if f.runs:
        answers = answers.filter(run_id__in=f.runs)
    if f.models:
        answers = answers.filter(model__name__in=f.models)
    if f.conditions:
        answers = answers.filter(condition__name__in=f.conditions)
    if f.statuses:
        answers = answers.filter(status__in=f.statuses)
    if f.codes:
        answers = answers.filter(empty_or(f.codes, "code"))
    return answers


def empty_or(values, field: str) -> Q:
    """`field` is one of `values`, where the value "none" stands for no value ("")."""
    wanted = Q(**{f"{field}__in": [v for v in values if v != "none"]})
    return wanted | Q(**{field: ""}) if "none" in values else wanted
