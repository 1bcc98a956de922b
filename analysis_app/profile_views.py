"""The models' pages: the list of models with headline figures, a model's profile (every
family's headline figures with their intervals, its rank among the models asked, links
into each family's dashboard) and the comparison of two models or more, each with its CSV.
All need `analysis_app.view_dashboard` (the analysts role). The figures are the worker's
(`headlines.request_headlines`): a page shows the newest ones with their time, or a
placeholder that fills in by itself."""

from __future__ import annotations

import io

from django.contrib.auth.decorators import permission_required
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect, render

from cfpd_site import params
from cfpd_site.csv_safety import SafeWriter
from cfpd_site.params import flag
from runs_app.models import LLMModel

from . import computed, headlines, profiles
from .profile_charts import comparison_chart, profile_chart
from .results import FIELDS

VIEW = "analysis_app.view_dashboard"


class BadComparison(ValueError):
    pass


def compared_models(query) -> list[str]:
    """The `model` parameters in the order given (the first is the one the others are set
    against), each once; a BadComparison names what is wrong."""
    try:
        params.texts(query, "model", max_length=80)  # no NUL, not over-long
    except params.BadParameter as error:
        raise BadComparison(str(error)) from None
    names = list(dict.fromkeys(v.strip() for v in query.getlist("model") if v.strip()))
    if len(names) < 2:
        raise BadComparison(f"pick two models or more to compare (model=a&model=b); {len(names)} given")
    if len(names) > profiles.MAX_COMPARED:
        raise BadComparison(f"at most {profiles.MAX_COMPARED} models at once; {len(names)} given")
    known = set(LLMModel.objects.filter(name__in=names).values_list("name", flat=True))
    unknown = [n for n in names if n not in known]
    if unknown:
        raise BadComparison(f"{', '.join(map(repr, unknown))} {'is' if len(unknown) == 1 else 'are'} not a "
                            "registered model")
    return names


def _model_or_404(name: str) -> LLMModel:
    model = None if "\x00" in name else LLMModel.objects.filter(name=name).first()  # PostgreSQL stores no NUL
    if model is None:
        raise Http404(f"No model named {name!r}.")
    return model


def _fresh(request):
    """`fresh=1`: ask the worker again, then show the page without it."""
    headlines.request_headlines(fresh=True)
    kept = request.GET.copy()
    kept.pop("fresh", None)
    return redirect(f"{request.path}?{kept.urlencode()}" if kept else request.path)


@permission_required(VIEW, raise_exception=True)
def model_index(request):
    shown = headlines.request_headlines()
    counts: dict[str, dict[str, int]] = {}
    for family, part in shown.families.items():
        for figure in part["figures"]:
            counts.setdefault(figure.model, {}).setdefault(family, 0)
            counts[figure.model][family] += 1
    families = headlines.publishers()
    models = [{"name": name, "counts": [counts.get(name, {}).get(p.family, 0) for p in families]}
              for name in LLMModel.objects.order_by("name").values_list("name", flat=True)]
    return render(request, "analysis_app/model_index.html", {"shown": shown, "models": models,
                                                             "families": families})


@permission_required(VIEW, raise_exception=True)
def model_profile(request, name):
    model = _model_or_404(name)
    if flag(request.GET, "fresh"):
        return _fresh(request)
    shown = headlines.request_headlines()
    sections = profiles.profile(shown, model.name)
    charts = [{"section": s, "chart": profile_chart(model.name, s.rows), "script_id": f"figure-data-{s.family}"}
              for s in sections]
    return render(request, "analysis_app/model_profile.html", {
        "model": model, "shown": shown, "sections": charts,
        "others": [m for m in shown.models() if m != model.name]})


def _bad_comparison(request, error):
    return render(request, "analysis_app/model_compare.html", {"error": str(error)}, status=400)


@permission_required(VIEW, raise_exception=True)
def model_compare(request):
    try:
        names = compared_models(request.GET)
    except BadComparison as error:
        return _bad_comparison(request, error)
    if flag(request.GET, "fresh"):
        return _fresh(request)
    shown = headlines.request_headlines()
    sections = profiles.compare(shown, names)
    charts = [{"section": s, "chart": comparison_chart(names, s.rows), "script_id": f"figure-data-{s.family}"}
              for s in sections]
    return render(request, "analysis_app/model_compare.html", {
        "models": names, "shown": shown, "sections": charts, "query": request.GET.urlencode()})


def _csv(rows, header, filename):
    out = io.StringIO()
    writer = SafeWriter(out)  # formula-like cells quoted (cfpd_site.csv_safety)
    writer.writerow(header)
    for row in rows:
        writer.writerow(["" if v is None else " ".join(map(str, v)) if isinstance(v, list) else v for v in row])
    response = HttpResponse(out.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}.csv"'
    return response


PROFILE_COLUMNS = (*FIELDS, "rank", "of", "others_min", "others_median", "others_max", "computed_at")


@permission_required(VIEW, raise_exception=True)
def model_profile_csv(request, name):
    model = _model_or_404(name)
    shown = headlines.request_headlines()
    when = shown.computed_at.isoformat() if shown.computed_at else ""
    rows = [[*row.to_dict().values(), when] for section in profiles.profile(shown, model.name)
            for row in section.rows]
    if not shown.ready:
        return HttpResponse("The headline figures are being computed; try again in a minute.", status=202,
                            content_type="text/plain", headers={"Retry-After": "30"})
    return _csv(rows, PROFILE_COLUMNS, f"profile-{model.name}")


COMPARE_COLUMNS = ("benchmark", "family", "metric", "label", "condition", "unit", "model_a", "model_b", "estimate_a",
                   "estimate_b", "difference", "ci_low", "ci_high", "n_a", "n_b", "computed_at")


@permission_required(VIEW, raise_exception=True)
def model_compare_csv(request):
    try:
        names = compared_models(request.GET)
    except BadComparison as error:
        return HttpResponse(str(error), status=400, content_type="text/plain")
    shown = headlines.request_headlines()
    if not shown.ready:
        return HttpResponse("The headline figures are being computed; try again in a minute.", status=202,
                            content_type="text/plain", headers={"Retry-After": "30"})
    when = shown.computed_at.isoformat()
    rows = [[*(d.to_dict()[c] for c in COMPARE_COLUMNS[:-1]), when]
            for section in profiles.compare(shown, names) for d in section.differences]
    return _csv(rows, COMPARE_COLUMNS, "compare-" + "-".join(names))


@permission_required(VIEW, raise_exception=True)
def headlines_status(request):
    """How many of the figures a page waits for are not computed yet (the page polls)."""
    keys = [k for k in request.GET.getlist("key")[:5] if len(k) <= 128 and "\x00" not in k]
    return JsonResponse({"pending": computed.pending(keys)})
