"""A report asked for from a dashboard's button: checked, recorded and queued for the
worker (`request_export`), never made inside the request. What the worker does is in
`report_exports`, below the task that calls it; this module, which queues that task, is
above both."""

from __future__ import annotations

import re
from datetime import timedelta
from urllib.parse import parse_qsl, urlencode

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.urls import Resolver404, resolve
from django.utils import timezone

from benchmarks_app import families
from runs_app.models import LLMModel

from . import tasks
from .models import ReportExport

# The dashboards a report may be made of, by URL name: each family's page of panels
# (analysis_app/panels.html), a model's profile and the models' comparison (their sections
# one per family). Names, not imports: formats_app imports no family.
# The pages every family shares; each family's own dashboard comes from its registration.
SHARED_PAGES = {"model-profile": "Model profile", "model-compare": "Models comparison"}
PERMISSION = "analysis_app.view_dashboard"
MAX_QUERY = 4000
MAX_VALUES = 400
_FIELD = re.compile(r"[a-z][a-z0-9_]{0,39}")
# A model's name as runs_app.models.LLMModel accepts it: a profile's path names one.
_MODEL_NAME = re.compile(r"[-a-zA-Z0-9_.]{1,80}")
# A row still pending this long after it was asked for has no worker: the page says so.
NO_WORKER_AFTER = timedelta(minutes=2)


class BadExport(ValueError):
    """What the request cannot be made of: `field` names the form's field."""

    def __init__(self, field: str, reason: str):
        self.field = field
        super().__init__(f"{field} {reason}")


def dashboards() -> dict[str, str]:
    """{url name: name on a report} of every page a report may be made of: each registered
    family's dashboard (benchmarks_app.families), then the shared ones."""
    return {**{d.url_name: d.report_title or d.title for d in families.dashboards()}, **SHARED_PAGES}


def dashboard_name(page: str) -> str:
    """The dashboard's name for people, or BadExport when `page` is none of them."""
    try:
        match = resolve(page)
    except Resolver404:
        match = None
    if match is None or match.url_name not in dashboards() or not page.endswith("/"):
        raise BadExport("page", f"must be one of the dashboards' paths, got {page[:80]!r}")
    if "name" in match.kwargs:  # /models/<name>/: the name is the reader's, untrusted
        name = match.kwargs["name"]
        if not _MODEL_NAME.fullmatch(name) or not LLMModel.objects.filter(name=name).exists():
            raise BadExport("page", f"names no registered model: {name[:80]!r} (the models are listed at /models/)")
    return dashboards()[match.url_name]


def clean_query(query: str) -> str:
    """The dashboard's filters as the reader had them, re-encoded; `fresh` (recompute) left
    out. The dashboard itself checks their values when the worker renders it, and a bad one
    fails the report with the dashboard's own message."""
    if len(query) > MAX_QUERY:
        raise BadExport("query", f"is longer than {MAX_QUERY} characters")
    try:
        pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query), errors="strict",
                          max_num_fields=MAX_VALUES)
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadExport("query", f"is not a query string ({exc})") from None
    for key, value in pairs:
        if not _FIELD.fullmatch(key):
            raise BadExport("query", f"has a field name no dashboard uses: {key[:40]!r}")
        if "\x00" in value or len(value) > 200:
            raise BadExport("query", f"{key} has a value no dashboard accepts")
    return urlencode([(k, v) for k, v in pairs if k != "fresh"])


def request_export(user, page: str, query: str, fmt: str) -> ReportExport:
    """The report of `page?query` as `fmt`, for `user`: a new row queued for the worker,
    or the same request's row still under way (a second click)."""
    if not user.has_perm(PERMISSION):
        raise PermissionDenied("reading the dashboards is the analysts' role")
    if fmt not in ReportExport.Format.values:
        raise BadExport("format", f"must be one of {', '.join(ReportExport.Format.values)}, got {fmt[:20]!r}")
    dashboard_name(page)
    query = clean_query(query)
    under_way = ReportExport.objects.filter(user=user, page=page, query=query, format=fmt, status__in=[
        ReportExport.Status.PENDING, ReportExport.Status.RUNNING]).first()
    if under_way is not None:
        return under_way
    job = ReportExport.objects.create(user=user, page=page, query=query, format=fmt, requested_at=timezone.now(),
                                      step="waiting for the worker")
    transaction.on_commit(lambda: tasks.export_report.delay(job.pk))
    return job


def waiting_too_long(job: ReportExport) -> bool:
    return job.status == ReportExport.Status.PENDING and timezone.now() - job.requested_at > NO_WORKER_AFTER
