"""The analysts' territorial-disputes page and each panel's CSV (`territories_app.view_territories_dashboard`)."""

from django.contrib.auth.decorators import permission_required
from django.db.models import Exists, OuterRef
from django.http import Http404, HttpResponse
from django.shortcuts import render

from analysis_app import people
from analysis_app.panels import cached
from analysis_app.tables import csv_response, display_rows
from kit.params import flag
from kit.param_errors import bad_parameter
from benchmarks_app.models import Benchmark, Condition
from runs_app.models import LLMModel, Response

from . import dashboard, dashboard_params
from .family import NAME as FAMILY
from .models import Claimant, Territory

VIEW = "territories_app.view_territories_dashboard"  # the family's own (family.DASHBOARD.permission)
PANEL_ORDER = ["scores", "people", "control", "contrasts", "map", "cases"]


def _choices(filters):
    territories = Territory.objects.filter(benchmark__name=filters.benchmark, is_current=True)
    asked = Response.objects.filter(question__benchmark__name=filters.benchmark)
    return {
        "benchmarks": Benchmark.objects.filter(family=FAMILY).values_list("name", flat=True),
        "models": LLMModel.objects.filter(Exists(asked.filter(model=OuterRef("pk")))).order_by("name")
        .values_list("name", flat=True),
        "strategies": Condition.objects.filter(Exists(asked.filter(condition=OuterRef("pk")))).values_list(
            "name", flat=True),
        "regions": territories.exclude(region="").order_by("region").values_list("region", flat=True).distinct(),
        "claimants": Claimant.objects.filter(territory__in=territories).order_by("country__name").values_list(
            "country__name", flat=True).distinct(),
        "languages": asked.order_by("question__language").values_list("question__language", flat=True).distinct(),
    }


def _selected(request):
    return {key: request.GET.getlist(key) for key in ("model", "strategy", "region", "claimant", "language", "run")}


def _bad(request, error, page=True):
    return bad_parameter(request, error, dashboard_params.LABELS, "territories_app/dashboard.html", page)


@permission_required(VIEW, raise_exception=True)
def territories_page(request):
    try:
        filters, options = dashboard_params.parse(request.GET)
    except dashboard_params.BadParameter as error:
        return _bad(request, error)
    board, _ = cached("territories", lambda: dashboard.build(filters, **options), filters, sorted(options.items()),
                      people.version(), fresh=flag(request.GET, "fresh"))
    query = request.GET.urlencode()
    panels = [{"key": key, "anchor": key, "script_id": f"figure-data-{key}", "title": panel.title,
               "note": panel.note, "figure": panel.figure, "columns": list(panel.table.columns),
               "rows": display_rows(panel.table), "total_rows": len(panel.table), "csv": f"{key}.csv?{query}",
               "open": key in ("scores", "cases"), "table_only": key in ("scores", "cases"), "map": key == "map"}
              for key in PANEL_ORDER if (panel := board.panels.get(key)) is not None]
    known = Benchmark.objects.filter(name=filters.benchmark, family=FAMILY).exists()
    return render(request, "territories_app/dashboard.html", {
        "board": board, "panels": panels, "filters": filters, "options": options, "query": query,
        "selected": _selected(request), "known": known, **_choices(filters)})


@permission_required(VIEW, raise_exception=True)
def panel_csv(request, key):
    if key not in PANEL_ORDER:
        raise Http404("no such panel")
    try:
        filters, options = dashboard_params.parse(request.GET)
    except dashboard_params.BadParameter as error:
        return _bad(request, error, page=False)
    board, _ = cached("territories", lambda: dashboard.build(filters, **options), filters, sorted(options.items()),
                      people.version())
    panel = board.panels.get(key)
    if panel is None:
        return HttpResponse("No answers in this filter.", status=404, content_type="text/plain")
    # The scores as numbers with every interval, sd and n (the page shows them as text).
    # The contrasts at full precision (the page rounds them).
    table = {"scores": board.scores, "contrasts": board.contrasts}.get(key)
    return csv_response(table if table is not None else panel.table, f"territories-{key}")
