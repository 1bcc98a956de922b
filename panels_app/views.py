"""The respondent's pages (no account: the link's token is the respondent; nothing else of
the site opens without signing in) and the analysts' panel pages."""

from __future__ import annotations

import functools

from django.contrib.auth.decorators import login_not_required, permission_required
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from . import design, limits, people_page, results, services
from .models import Panel

RESULTS_PERMISSION = "panels_app.view_panel_results"


def rate_limited(view):
    """The respondents' pages: 429 with Retry-After once the link or the address is over its
    limit this minute (panels_app.limits)."""
    @functools.wraps(view)
    def limited(request, *args, **kwargs):
        wait = limits.over_limit(request, str(kwargs.get("token") or kwargs.get("open_token") or ""))
        if wait is not None:
            response = render(request, "panels_app/slow_down.html", {"wait": wait}, status=429)
            response["Retry-After"] = str(wait)
            return response
        return view(request, *args, **kwargs)
    return limited


def _respondent(token: str):
    found = services.respondent_for(token)
    if found is None:
        raise Http404("no such link")
    return found


def _closed(request, respondent, status=410):
    return render(request, "panels_app/closed.html", {"respondent": respondent, "panel": respondent.panel},
                  status=status)


@login_not_required
@rate_limited
@require_http_methods(["GET", "HEAD"])
def respond(request, token):
    """The link's page: consent, the profile, the next item, or why the link opens no more."""
    respondent = _respondent(token)
    stage = services.stage(respondent)
    panel = respondent.panel
    if stage in ("withdrawn", "finished"):
        return _closed(request, respondent)
    if stage == "consent":
        return render(request, "panels_app/consent.html", {"panel": panel, "token": token})
    if stage == "profile":
        return render(request, "panels_app/profile.html", {"panel": panel, "token": token, "errors": {},
                                                           "questions": panel.profile_questions.all(), "sent": {}})
    return _item(request, respondent, token)


def _item(request, respondent, token, problem="", status=200, sent_reason=""):
    answer = services.current_page(respondent)
    if answer is None:  # every page answered: finished in the same transaction
        return redirect("panels_app:done", token=token)
    page = services.page_of(answer, respondent.answers.count())
    return render(request, "panels_app/item.html", {
        "panel": respondent.panel, "token": token, "page": page, "problem": problem, "reason": sent_reason,
        "ask_reason": respondent.panel.ask_reason and answer.question_id is not None}, status=status)


@login_not_required
@rate_limited
@require_POST
def agree(request, token):
    respondent = _respondent(token)
    if services.stage(respondent) == "withdrawn":
        return _closed(request, respondent)
    services.consent(respondent)
    return redirect("panels_app:respond", token=token)


@login_not_required
@rate_limited
@require_POST
def profile(request, token):
    respondent = _respondent(token)
    if services.stage(respondent) != "profile":
        return redirect("panels_app:respond", token=token)
    errors = services.save_profile(respondent, request.POST)
    if errors:
        panel = respondent.panel
        return render(request, "panels_app/profile.html", {
            "panel": panel, "token": token, "errors": errors, "questions": panel.profile_questions.all(),
            "sent": {key: request.POST.get(key, "") for key in request.POST}}, status=400)
    return redirect("panels_app:respond", token=token)


@login_not_required
@rate_limited
@require_POST
def answer(request, token, position):
    respondent = _respondent(token)
    if services.stage(respondent) in ("withdrawn", "finished"):
        return _closed(request, respondent)
    if services.stage(respondent) != "item":
        return redirect("panels_app:respond", token=token)
    try:
        services.answer_item(respondent, position, request.POST.get("choice"), request.POST.get("reason", ""))
    except services.AnswerInvalid as exc:
        respondent.refresh_from_db()
        return _item(request, respondent, token, problem=str(exc), status=400,
                     sent_reason=str(request.POST.get("reason", ""))[:services.MAX_REASON])
    respondent.refresh_from_db(fields=["finished_at"])
    return redirect("panels_app:done" if respondent.finished_at else "panels_app:respond", token=token)


@login_not_required
@rate_limited
@require_http_methods(["GET", "HEAD"])
def done(request, token):
    """The closing page right after the last answer: the author's text, or the recruitment
    platform's completion link with its code (a link to follow, not a redirect: the site's
    Content-Security-Policy lets a form lead only to this site, redirects included)."""
    respondent = _respondent(token)
    if respondent.finished_at is None:
        return redirect("panels_app:respond", token=token)
    panel = respondent.panel
    return render(request, "panels_app/done.html", {
        "panel": panel, "completion": design.completion_link(panel.completion_url, panel.completion_code)})


@login_not_required
@rate_limited
@require_http_methods(["GET", "HEAD", "POST"])
def join(request, open_token):
    """The open link: GET shows the start (a link previewer or prefetcher takes no place),
    POST admits one respondent, up to the cap, and sends them to their own link."""
    panel = Panel.objects.filter(open_token=open_token).first() if 16 <= len(open_token) <= 64 else None
    if panel is None:
        raise Http404("no such link")
    if request.method == "POST":
        try:
            respondent = services.join_open_link(open_token)
        except services.PanelFull as exc:
            return render(request, "panels_app/full.html", {"panel": panel, "message": str(exc)}, status=410)
        if respondent is None:
            raise Http404("no such link")
        return redirect("panels_app:respond", token=respondent.token)
    return render(request, "panels_app/join.html", {"panel": panel, "open_token": open_token})


@permission_required(RESULTS_PERMISSION, raise_exception=True)
def panel_list(request):
    return render(request, "panels_app/panel_list.html", {"panels": Panel.objects.select_related("benchmark")})


@permission_required(RESULTS_PERMISSION, raise_exception=True)
def panel_page(request, pk):
    panel = get_object_or_404(Panel.objects.select_related("benchmark"), pk=pk)
    return render(request, "panels_app/panel.html", {"panel": panel, "results": results.panel_results(panel)})


@permission_required(RESULTS_PERMISSION, raise_exception=True)
@require_http_methods(["GET", "HEAD"])
def models_and_people(request):
    """Models and people: each model's similarity to each panel of a benchmark (?benchmark=)."""
    names = request.GET.getlist("benchmark")
    error, status = "", 200
    if len(names) > 1:
        error = "benchmark: give it once"
    elif names:
        try:
            results.read_report_params(names[0])
        except results.ReportInvalid as exc:
            error = str(exc)
    if error:
        page, status = people_page.Page(None, people_page.benchmarks_with_panels()), 400
    else:
        page = people_page.build(names[0] if names else None)
    return render(request, "panels_app/models_and_people.html", {"page": page, "error": error,
                                                                  "worst": people_page.WORST}, status=status)
