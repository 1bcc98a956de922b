"""The models × questions grid (/answers/grid/) and two runs compared (/answers/compare/).
Readers as in `readers`: analysts and operators every benchmark, reviewers the benchmarks
they code; a bad filter is the page with the message and status 400."""

from django.core.exceptions import PermissionDenied
from django.shortcuts import render

from kit.params import BadParameter
from benchmarks_app.models import Condition
from runs_app.models import LLMModel, Response, Run

from . import comparison, grid, grid_query, readers

GRID_LABELS = {"run": "Runs", "model": "Models", "condition": "Conditions", "status": "Status", "code": "Code",
               "rows": "Rows", "people": "People", "page": "page", "model_page": "model page"}
COMPARE_LABELS = {"a": "Run A", "b": "Run B", "model": "Models", "page": "page"}


def check_reader(user):
    if not readers.is_reader(user):
        raise PermissionDenied("Answers are read by analysts, operators and, for the benchmarks they code, "
                               "reviewers.")


def check_runs(user, runs):
    """Every run's benchmark must be one the user may read."""
    for run in runs:
        if not readers.may_read(user, run.benchmark_id):
            raise PermissionDenied(f"Run {run.pk} is of benchmark {run.benchmark.name}, whose answers you do not "
                                   "code: reviewers read the answers of the benchmarks they code.")


def _message(error: BadParameter, labels: dict) -> str:
    label = labels.get(error.field)
    return f"{error} (the {label} box)" if label else str(error)


def _picker(user, query):
    return {"runs": grid_query.readable_runs(user), "chosen_runs": set(query.getlist("run")),
            "model_names": list(LLMModel.objects.order_by("name").values_list("name", flat=True)),
            "condition_names": list(Condition.objects.values_list("name", flat=True)),
            "statuses": Response.Status.choices, "codes": grid_query.CODES,
            "chosen": {key: set(query.getlist(key)) for key in ("model", "condition", "status", "code")},
            "rows_by": query.get("rows", ""), "people_choice": query.get("people", "")}


def answer_grid(request):
    check_reader(request.user)
    context = _picker(request.user, request.GET)
    if not request.GET.get("run"):
        return render(request, "explorer_app/grid.html", context)
    try:
        f = grid_query.read_grid_filter(request.GET)
        runs, _ = grid_query.one_benchmark(f.runs)
        check_runs(request.user, runs)
        built = grid_query.build_grid(f)
    except BadParameter as error:
        context["error"] = _message(error, GRID_LABELS)
        return render(request, "explorer_app/grid.html", context, status=400)
    context.update(grid=built, f=f, prev_page=f.query(page=built.page - 1) if built.page > 1 else "",
                   next_page=f.query(page=built.page + 1) if built.page < built.pages else "",
                   prev_models=f.query(model_page=built.model_page - 1) if built.model_page > 1 else "",
                   next_models=f.query(model_page=built.model_page + 1)
                   if built.model_page < built.model_pages else "",
                   compare_runs=[r for r in grid_query.readable_runs(request.user)
                                 if r.benchmark_id == built.benchmark.pk and r.pk not in f.runs][:50])
    return render(request, "explorer_app/grid.html", context)


def answer_compare(request):
    check_reader(request.user)
    runs = grid_query.readable_runs(request.user)
    context = {"runs": runs, "runs_b": runs, "a": request.GET.get("a", ""),
               "b": request.GET.get("b", ""), "ignore_condition": request.GET.get("ignore_condition", ""),
               "model_names": list(LLMModel.objects.order_by("name").values_list("name", flat=True)),
               "chosen_models": set(request.GET.getlist("model"))}
    if not (request.GET.get("a") and request.GET.get("b")):  # the run page's "Compare with…" gives A alone
        chosen = next((r for r in context["runs"] if str(r.pk) == context["a"]), None)
        if chosen is not None:  # B among the runs of A's benchmark
            context["runs_b"] = [r for r in context["runs"] if r.benchmark_id == chosen.benchmark_id and r != chosen]
        return render(request, "explorer_app/compare.html", context)
    try:
        f = grid_query.read_compare_filter(request.GET)
        check_runs(request.user, Run.objects.filter(pk__in=[f.a, f.b]).select_related("benchmark"))
        compared = grid_query.compare(f)
    except BadParameter as error:
        context["error"] = _message(error, COMPARE_LABELS)
        return render(request, "explorer_app/compare.html", context, status=400)
    context.update(c=compared, f=f, shown=comparison.shown, colour=grid.colour_of,
                   prev_page=f.query(page=compared.page - 1) if compared.page > 1 else "",
                   next_page=f.query(page=compared.page + 1) if compared.page < compared.pages else "",
                   swapped=grid_query.CompareFilter(a=f.b, b=f.a, ignore_condition=f.ignore_condition,
                                                    models=f.models).query())
    return render(request, "explorer_app/compare.html", context)
