"""The CFPD analysts' pages: the dashboard, each panel's CSV, and the tidy table of answers
as CSV or Parquet. All need `scenarios_app.view_cfpd_dashboard` (the family's own; the analysts role holds it)."""

import tempfile
from functools import wraps

from django.contrib.auth.decorators import permission_required
from django.db.models import Exists, OuterRef
from django.http import FileResponse, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.utils.safestring import mark_safe

from analysis_app.tables import csv_response
from kit.csv_safety import SafeWriter
from kit.params import flag
from runs_app.models import LLMModel, Response, Run
from scenarios_app.models import Actor, Domain
from scenarios_app.taxonomy import FOCUS_ACTORS

from . import board_figure, dashboard, params

VIEW = "scenarios_app.view_cfpd_dashboard"  # the family's own (family.DASHBOARD.permission)
from .tidy_query import answer_frames, latest_launches


def _choices(filters):
    actors = (Actor.objects.filter(code__in=set(FOCUS_ACTORS) | set(filters.actors))
              .order_by("code").values_list("code", "prompt_name"))
    return {
        "runs": Run.objects.order_by("-pk").values_list("pk", "benchmark__name", "note")[:200],
        # EXISTS probes the response(model) index; a join and DISTINCT scanned every answer.
        "models": LLMModel.objects.filter(Exists(Response.objects.filter(model=OuterRef("pk")))).order_by("name")
        .values_list("name", flat=True),
        "domains": Domain.objects.order_by("position").values_list("slug", "name"),
        "actors": actors,
        "languages": list(params.question_languages()),
    }


# The filter form's labels, so that the page names the box the analyst changed.
LABELS = {"run": "Runs", "model": "Models", "domain": "Domains", "choices": "Choices", "actor": "Qualified actors",
          "category": "Category shown", "heatmap_model": "Heatmap model", "iterations": "Bootstrap iterations",
          "seed": "Seed", "adjust": "Correction", "language": "Languages"}


def _bad_page(request, error):
    label = LABELS.get(error.field)
    message = f"{error} (the {label} box)" if label else str(error)
    return render(request, "scenarios_app/dashboard.html", {"error": message}, status=400)


def _bad_text(request, error):
    return HttpResponse(str(error), status=400, content_type="text/plain")


def with_filters(bad=_bad_text):
    """Parse the query into (filters, options) for the view; a bad parameter is a 400 that says which."""
    def decorate(view):
        @wraps(view)
        def wrapped(request, *args, **kwargs):
            try:
                filters, options = params.parse(request.GET)
            except params.BadParameter as error:
                return bad(request, error)
            return view(request, filters, options, *args, **kwargs)
        return wrapped
    return decorate


@permission_required(VIEW, raise_exception=True)
@with_filters(bad=_bad_page)
def dashboard_page(request, filters, options):
    # The page's own query without `fresh`: its links (CSV, recompute).
    kept = request.GET.copy()
    kept.pop("fresh", None)
    query = kept.urlencode()
    if flag(request.GET, "fresh"):  # asked of the worker again; the page then shows the build it has
        board_figure.request_board(filters, options, fresh=True)
        return redirect(f"{request.path}?{query}")
    board = board_figure.request_board(filters, options)
    context = {"board": board, "panels_html": mark_safe(board_figure.panels_for(board, query)),  # noqa: S308 — rendered by the template, every value escaped; the query escaped
               "selected": _selected(filters, options), "query": query,
               "superseded": _superseded(request, board.superseded), **_choices(filters)}
    return render(request, "scenarios_app/dashboard.html", context)


def _superseded(request, hidden):
    """The runs left out as earlier launches, grouped per (run, newer run), each with a link
    that picks both runs (pooling them as repeats, which the analyst then chose)."""
    groups = {}
    for item in hidden:
        groups.setdefault((item.run, item.newer_run), []).append(item.model)
    rows = []
    for (run, newer), names in sorted(groups.items()):
        query = request.GET.copy()
        query.setlist("run", [str(run), str(newer)])
        query.pop("fresh", None)
        rows.append({"run": run, "newer_run": newer, "models": sorted(names), "query": query.urlencode()})
    return rows


def _selected(filters, options):
    """The form's state, from the parsed filters (the template compares strings)."""
    return {"run": [str(r) for r in filters.runs], "model": list(filters.models), "domain": list(filters.domains),
            "choices": [str(c) for c in filters.choice_counts], "actor": list(filters.actors),
            "focus": filters.focus_complete, "iterations": options["iterations"], "language": list(filters.languages),
            "adjust": options["adjust"]}


@permission_required(VIEW, raise_exception=True)
@with_filters()
def panel_csv(request, filters, options, key):
    if key not in dashboard.ORDER:
        return HttpResponse(f"no panel {key}", status=404, content_type="text/plain")
    board = dashboard.build_cached(filters, **options)
    panel = board.panels.get(key)
    if panel is None:
        return HttpResponse("no coded answers for this filter", status=404, content_type="text/plain")
    return csv_response(panel.table, f"cfpd-{key}")


class _Echo:
    def write(self, value):
        return value


@permission_required(VIEW, raise_exception=True)
@with_filters()
def answers_csv(request, filters, options):
    filters, _ = latest_launches(filters)  # the answers the dashboard counts

    def rows():
        writer = SafeWriter(_Echo())  # formula-like cells quoted (kit.csv_safety)
        header = True
        for frame in answer_frames(filters):
            if header:
                yield writer.writerow(frame.columns)
                header = False
            for record in frame.itertuples(index=False):
                yield writer.writerow(["" if v is None or v != v else v for v in record])
        if header:
            yield writer.writerow(["no coded answers for this filter"])

    response = StreamingHttpResponse(rows(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="cfpd-answers.csv"'
    return response


@permission_required(VIEW, raise_exception=True)
@with_filters()
def answers_parquet(request, filters, options):
    import pyarrow as pa  # imported on use: pyarrow is heavy and only this download needs it
    import pyarrow.parquet as pq
    filters, _ = latest_launches(filters)  # the answers the dashboard counts
    handle = tempfile.TemporaryFile()
    writer = None
    for frame in answer_frames(filters):
        table = pa.Table.from_pandas(frame.astype({"category": "string", "choice_count": "int64"}),
                                     preserve_index=False)
        if writer is None:
            writer = pq.ParquetWriter(handle, table.schema)
        writer.write_table(table.cast(writer.schema))
    if writer is None:
        return HttpResponse("no coded answers for this filter", status=404, content_type="text/plain")
    writer.close()
    handle.seek(0)
    return FileResponse(handle, as_attachment=True, filename="cfpd-answers.parquet",
                        content_type="application/vnd.apache.parquet")
