"""The analysts' crisis-inconsistency page and each panel's CSV (`crisis_app.view_crisis_dashboard`)."""

from django.contrib.auth.decorators import permission_required
from django.http import Http404, HttpResponse
from django.db.models import Count, Max
from django.shortcuts import render

from analysis_app.panels import cached
from analysis_app.tables import csv_response, display_rows
from kit.params import flag
from kit.param_errors import bad_parameter

from runs_app import sampling
from runs_app.models import Run

from . import dashboard, dashboard_params, instrument_state, queries
from .models import GroupScore
from .report import PER_RUN_COLUMNS, SUMMARY_COLUMNS, for_csv

VIEW = "crisis_app.view_crisis_dashboard"  # the family's own (family.DASHBOARD.permission)
TABLE_ONLY = ("summary", "groups")


def _bad(request, error, page=True):
    return bad_parameter(request, error, dashboard_params.LABELS, "crisis_app/dashboard.html", page)


def _board(query):
    """The filter, options and board of a query; BadParameter for a bad one."""
    filters, options = dashboard_params.parse(query)
    filters, scorers = dashboard.resolve(filters)
    if options.group is not None and not queries.group_in_benchmark(options.group, filters.benchmark):
        raise dashboard_params.BadParameter("group", f"is no scored group of benchmark {filters.benchmark!r}: "
                                                     f"{options.group}")
    # A new or rescored group adds a row: the scores' newest id and count move.
    scored = GroupScore.objects.aggregate(newest=Max("pk"), count=Count("pk"))
    board, _ = cached("crisis", lambda: dashboard.build(filters, options), filters, options, scored,
                      fresh=flag(query, "fresh"))
    board.scorers = scorers
    return filters, options, board


def _choices(filters):
    return {"benchmarks": queries.freeform_benchmarks(), "models": queries.model_names(filters.benchmark),
            "continuations": queries.continuation_names(filters.benchmark)}


def _selected(request):
    return {key: request.GET.getlist(key) for key in ("model", "continuation")}


def _temperature_warnings(board, fresh: bool, most=20) -> list[str]:
    """The shown runs' models whose samples above temperature 0 are all alike (their scores are
    0 for that reason, not because the model is consistent); a few small queries per run, the
    runs' kept findings unless the page is recomputed (`fresh`)."""
    if board.per_run is None or board.per_run.empty:
        return []
    shown = sorted({int(run) for run in board.per_run["run"].dropna()})[:most]
    return [warning for run in Run.objects.filter(pk__in=shown).order_by("pk")
            for warning in sampling.temperature_warnings(run, kept=not fresh)]


@permission_required(VIEW, raise_exception=True)
def crisis_page(request):
    try:
        filters, options, board = _board(request.GET)
    except dashboard_params.BadParameter as error:
        return _bad(request, error)
    query = request.GET.urlencode()
    # Read on every load, outside the cached board: a scorer marked a second ago is marked now.
    failed = instrument_state.notices(board.scorers)
    notice = failed.get(board.scorer, "")
    panels = [{"key": key, "anchor": key, "script_id": f"figure-data-{key}", "title": panel.title,
               "note": f"Not results: scorer {board.scorer} failed its check. {panel.note}" if notice else panel.note,
               "figure": panel.figure, "columns": list(panel.table.columns),
               "rows": display_rows(panel.table), "total_rows": len(panel.table), "csv": f"{key}.csv?{query}",
               "open": key in TABLE_ONLY, "table_only": key in TABLE_ONLY}
              for key in dashboard.PANEL_ORDER if (panel := board.panels.get(key)) is not None]
    top_groups = ([] if board.per_run is None else
                  board.per_run.sort_values("mean", ascending=False, kind="stable").head(200).to_dict("records"))
    return render(request, "crisis_app/dashboard.html", {
        "board": board, "panels": panels, "filters": filters, "instrument_notice": notice, "failed_scorers": failed, "options": options, "query": query,
        "move": filters.moves[0] if filters.moves else None, "selected": _selected(request),
        "top_groups": top_groups, "temperature_warnings": _temperature_warnings(board, flag(request.GET, "fresh")), "kept": [(k, v) for k, values in request.GET.lists() if k != "group"
                                           for v in values], **_choices(filters)})


@permission_required(VIEW, raise_exception=True)
def panel_csv(request, key):
    if key not in dashboard.PANEL_ORDER:
        raise Http404("no such panel")
    try:
        _, _, board = _board(request.GET)
    except dashboard_params.BadParameter as error:
        return _bad(request, error, page=False)
    panel = board.panels.get(key)
    if panel is None:
        return HttpResponse("No inconsistency scores in this filter.", status=404, content_type="text/plain")
    # The summary and the groups as the command writes them (numbers at full precision).
    table = {"summary": board.summary.reindex(columns=SUMMARY_COLUMNS) if key == "summary" else None,
             "groups": board.per_run.reindex(columns=["group", *PER_RUN_COLUMNS]) if key == "groups" else None,
             "contrasts": board.contrasts if key == "contrasts" else None}
    chosen = table.get(key) if table.get(key) is not None else panel.table
    failed = instrument_state.notices([board.scorer])
    return csv_response(instrument_state.marked(for_csv(chosen), failed, board.scorer), f"crisis-{key}")
