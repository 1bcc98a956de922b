"""Analysts' pages: the dashboard, each panel's CSV, and the tidy table of answers as CSV
or Parquet. All need `analysis_app.view_dashboard` (the analysts role)."""

import csv
import io
import json
import tempfile

from django.contrib.auth.decorators import permission_required
from django.http import FileResponse, HttpResponse, StreamingHttpResponse
from django.db.models import Exists, OuterRef
from django.shortcuts import render

from runs_app.models import LLMModel, Response, Run
from scenarios_app.models import Actor, Domain
from scenarios_app.taxonomy import FOCUS_ACTORS

from . import dashboard, params
from .tidy_query import answer_frames

VIEW = "analysis_app.view_dashboard"
PANEL_ORDER = ["rates", "actions", "repeats", "repeat_rates", "countries", "heatmap", "entropy", "refusals", "refusals_by_country",
               "differences", "robustness"]


def _choices(request, filters):
    actors = (Actor.objects.filter(code__in=set(FOCUS_ACTORS) | set(filters.actors))
              .order_by("code").values_list("code", "prompt_name"))
    return {
        "runs": Run.objects.order_by("-pk").values_list("pk", "benchmark__name", "note")[:200],
        # EXISTS probes the response(model) index; a join and DISTINCT scanned every answer.
        "models": LLMModel.objects.filter(Exists(Response.objects.filter(model=OuterRef("pk")))).order_by("name")
        .values_list("name", flat=True),
        "domains": Domain.objects.order_by("position").values_list("slug", "name"),
        "actors": actors,
    }


def _bad(request, error):
    return render(request, "analysis_app/dashboard.html", {"error": str(error)}, status=400)


@permission_required(VIEW, raise_exception=True)
def dashboard_page(request):
    try:
        filters, options = params.parse(request.GET)
    except params.BadParameter as error:
        return _bad(request, error)
    board = dashboard.build_cached(filters, fresh=request.GET.get("fresh") == "1", **options)
    panels = []
    for key in PANEL_ORDER:
        panel = board.panels.get(key)
        if panel is None:
            continue
        query = request.GET.copy()
        panels.append({"key": key, "script_id": f"figure-data-{key}", "title": panel.title, "note": panel.note,
                       "figure": figure_json(panel.figure) if panel.figure else None,
                       "columns": list(panel.table.columns), "rows": _display_rows(panel.table),
                       "total_rows": len(panel.table), "csv": f"{key}.csv?{query.urlencode()}"})
    context = {"board": board, "panels": panels, "selected": _selected(request), "query": request.GET.urlencode(),
               **_choices(request, filters)}
    return render(request, "analysis_app/dashboard.html", context)


DISPLAY_ROWS = 200


def _display_rows(table):
    rows = []
    for record in table.head(DISPLAY_ROWS).itertuples(index=False):
        rows.append([_cell(value) for value in record])
    return rows


def _cell(value):
    if isinstance(value, float):
        return "—" if value != value else f"{value:.3f}"
    if isinstance(value, (bool,)) or value is None:
        return "—" if value is None else ("yes" if value else "no")
    return value


def _selected(request):
    get = request.GET
    return {"run": get.getlist("run"), "model": get.getlist("model"), "domain": get.getlist("domain"),
            "choices": get.getlist("choices"), "actor": [a.upper() for a in get.getlist("actor")],
            "focus": get.get("focus") in ("1", "on", "true"), "iterations": get.get("iterations", "1000"),
            "category": get.get("category", ""), "heatmap_model": get.get("heatmap_model", "")}


def _csv_response(table, name):
    out = io.StringIO()
    table.to_csv(out, index=False, float_format="%.6f")
    response = HttpResponse(out.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}.csv"'
    return response


@permission_required(VIEW, raise_exception=True)
def panel_csv(request, key):
    try:
        filters, options = params.parse(request.GET)
    except params.BadParameter as error:
        return HttpResponse(str(error), status=400, content_type="text/plain")
    if key not in PANEL_ORDER:
        return HttpResponse(f"no panel {key}", status=404, content_type="text/plain")
    board = dashboard.build_cached(filters, **options)
    panel = board.panels.get(key)
    if panel is None:
        return HttpResponse("no coded answers for this filter", status=404, content_type="text/plain")
    return _csv_response(panel.table, f"cfpd-{key}")


class _Echo:
    def write(self, value):
        return value


@permission_required(VIEW, raise_exception=True)
def answers_csv(request):
    try:
        filters, _ = params.parse(request.GET)
    except params.BadParameter as error:
        return HttpResponse(str(error), status=400, content_type="text/plain")

    def rows():
        writer = csv.writer(_Echo())
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
def answers_parquet(request):
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        filters, _ = params.parse(request.GET)
    except params.BadParameter as error:
        return HttpResponse(str(error), status=400, content_type="text/plain")
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


def figure_json(figure):
    """A plotly figure as plain JSON for `json_script` (which escapes it for a script tag)."""
    return json.loads(json.dumps(figure, default=_plain))


def _plain(value):
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"cannot serialise {type(value).__name__}")
