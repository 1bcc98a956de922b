"""The models' pages: the list of models with headline figures, a model's profile (every
family's headline figures with their intervals, its rank among the models asked, links
into each family's dashboard) and the comparison of two models or more, each with its CSV.
All need `analysis_app.view_dashboard` (the analysts role). The figures are the worker's
(`headlines.request_headlines`): a page shows the newest ones with their time, or a
placeholder that fills in by itself.

A model is a group of rows (`model_groups`): `/models/<row>/` of any row of a group
redirects to the group's canonical name (its shortest row name), so that a profile has one
address; the redirect is temporary (302) because registering a row with a shorter name moves
it. The CSV and the API answer under any row's name without a redirect (a script need not
follow one) and name the canonical model and its rows."""

from __future__ import annotations

import io

from django.contrib.auth.decorators import permission_required
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from kit import params
from kit.csv_safety import SafeWriter
from kit.params import flag
from runs_app.models import LLMModel

from . import computed, headlines, people, profiles
from .model_groups import ModelGroup, ModelRow, group_of, groups
from .profile_charts import comparison_chart, profile_chart
from .results import FIELDS

VIEW = "analysis_app.view_dashboard"


class BadComparison(ValueError):
    pass


def model_rows() -> list[ModelRow]:
    return [ModelRow(name, litellm_model, api_base, answer_mode, external) for name, litellm_model, api_base,
            answer_mode, external in LLMModel.objects.values_list(
                "name", "litellm_model", "api_base", "answer_mode", "is_external")]


def kinds_of(rows: list[ModelRow]) -> dict[str, str]:
    return {row.name: row.kind for row in rows}


def compared_groups(query) -> tuple[list[ModelGroup], dict[str, str]]:
    """The groups of the `model` parameters in the order given (the first is the one the
    others are set against), each once, and every row's kind; a BadComparison names what is
    wrong (two rows of one model are one model)."""
    names = compared_models(query)
    rows = model_rows()
    found: dict[str, ModelGroup] = {}
    for name in names:
        group = group_of(name, rows)
        found.setdefault(group.name, group)
    if len(found) < 2:
        raise BadComparison(f"{', '.join(map(repr, names))} are rows of one model ({next(iter(found))}); pick two "
                            "models or more to compare")
    return list(found.values()), kinds_of(rows)


def compared_models(query) -> list[str]:
    """The `model` parameters in the order given, each once; a BadComparison names what is
    wrong."""
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


def group_or_404(name: str) -> tuple[ModelGroup, dict[str, str]]:
    """The group of the row `name` and every row's kind."""
    rows = [] if "\x00" in name else model_rows()  # PostgreSQL stores no NUL
    group = group_of(name, rows)
    if group is None:
        raise Http404(f"No model named {name!r}.")
    return group, kinds_of(rows)


def _fresh(request):
    """`fresh=1`: ask the worker again, then show the page without it."""
    headlines.request_headlines(fresh=True)
    kept = request.GET.copy()
    kept.pop("fresh", None)
    return redirect(f"{request.path}?{kept.urlencode()}" if kept else request.path)


@permission_required(VIEW, raise_exception=True)
def model_index(request):
    shown = headlines.request_headlines()
    every = groups(model_rows())
    group_of_row = {name: group.name for group in every for name in group.names}
    counts: dict[str, dict[str, int]] = {}
    for family, part in shown.families.items():
        for figure in part["figures"]:
            group = group_of_row.get(figure.model, figure.model)
            counts.setdefault(group, {}).setdefault(family, 0)
            counts[group][family] += 1
    families = headlines.publishers()
    models = [{"name": group.name, "rows": group.names[1:],
               "counts": [counts.get(group.name, {}).get(p.family, 0) for p in families]} for group in every]
    return render(request, "analysis_app/model_index.html", {"shown": shown, "models": models,
                                                             "families": families})


@permission_required(VIEW, raise_exception=True)
def model_profile(request, name):
    group, kinds = group_or_404(name)
    if name != group.name:
        kept = request.GET.urlencode()
        return redirect(reverse("model-profile", args=[group.name]) + (f"?{kept}" if kept else ""))
    if flag(request.GET, "fresh"):
        return _fresh(request)
    shown = headlines.request_headlines()
    sections = profiles.profile(shown, group, kinds)
    charts = [{"section": s, "chart": profile_chart(group.name, s.rows), "script_id": f"figure-data-{s.family}"}
              for s in sections]
    with_figures = set(shown.models())
    return render(request, "analysis_app/model_profile.html", {
        "model": group, "shown": shown, "sections": charts, "kinds": [(n, kinds[n]) for n in group.names],
        "closest_panels": people.closest(request.user, group.names),
        "others": [g.name for g in groups(model_rows()) if g.name != group.name and with_figures & set(g.names)]})


def _bad_comparison(request, error):
    return render(request, "analysis_app/model_compare.html", {"error": str(error)}, status=400)


@permission_required(VIEW, raise_exception=True)
def model_compare(request):
    try:
        compared, kinds = compared_groups(request.GET)
    except BadComparison as error:
        return _bad_comparison(request, error)
    if flag(request.GET, "fresh"):
        return _fresh(request)
    names = [group.name for group in compared]
    shown = headlines.request_headlines()
    sections = profiles.compare(shown, compared, kinds)
    charts = [{"section": s, "chart": comparison_chart(names, s.rows), "script_id": f"figure-data-{s.family}"}
              for s in sections]
    return render(request, "analysis_app/model_compare.html", {
        "models": names, "shown": shown, "sections": charts, "query": request.GET.urlencode()})


def _csv(rows, header, filename):
    out = io.StringIO()
    writer = SafeWriter(out)  # formula-like cells quoted (kit.csv_safety)
    writer.writerow(header)
    for row in rows:
        writer.writerow(["" if v is None else " ".join(map(str, v)) if isinstance(v, list) else v for v in row])
    response = HttpResponse(out.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}.csv"'
    return response


PROFILE_COLUMNS = (*FIELDS, "kind", "rank", "of", "others_min", "others_median", "others_max", "computed_at")


@permission_required(VIEW, raise_exception=True)
def model_profile_csv(request, name):
    group, kinds = group_or_404(name)
    shown = headlines.request_headlines()
    when = shown.computed_at.isoformat() if shown.computed_at else ""
    rows = [[*row.to_dict().values(), when] for section in profiles.profile(shown, group, kinds)
            for row in section.rows]
    if not shown.ready:
        return HttpResponse("The headline figures are being computed; try again in a minute.", status=202,
                            content_type="text/plain", headers={"Retry-After": "30"})
    return _csv(rows, PROFILE_COLUMNS, f"profile-{group.name}")


COMPARE_COLUMNS = ("benchmark", "family", "metric", "label", "condition", "unit", "kind", "model_a", "model_b",
                   "estimate_a", "estimate_b", "difference", "ci_low", "ci_high", "n_a", "n_b", "computed_at")


@permission_required(VIEW, raise_exception=True)
def model_compare_csv(request):
    try:
        compared, kinds = compared_groups(request.GET)
    except BadComparison as error:
        return HttpResponse(str(error), status=400, content_type="text/plain")
    shown = headlines.request_headlines()
    if not shown.ready:
        return HttpResponse("The headline figures are being computed; try again in a minute.", status=202,
                            content_type="text/plain", headers={"Retry-After": "30"})
    when = shown.computed_at.isoformat()
    rows = [[*({**d.to_dict(), "kind": row.kind}[c] for c in COMPARE_COLUMNS[:-1]), when]
            for section in profiles.compare(shown, compared, kinds) for row in section.rows
            for d in row.differences if d is not None]
    return _csv(rows, COMPARE_COLUMNS, "compare-" + "-".join(g.name for g in compared))


@permission_required(VIEW, raise_exception=True)
def headlines_status(request):
    """How many of the figures a page waits for are not computed yet (the page polls)."""
    keys = [k for k in request.GET.getlist("key")[:5] if len(k) <= 128 and "\x00" not in k]
    return JsonResponse({"pending": computed.pending(keys)})
