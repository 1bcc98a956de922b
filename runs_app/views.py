"""Operators' pages for runs: models, launch, run list, run detail with live progress.

Reading needs `runs_app.view_run` (operators, analysts, reviewers); launching needs
`add_run` and cancelling or resuming `change_run` (operators). Model outputs and error
messages are untrusted text: templates only ever print them escaped, and the progress
script sets `textContent`, never HTML.
"""

from dataclasses import asdict

from django.contrib import admin, messages
from django.contrib.auth.decorators import permission_required
from django.core.paginator import Paginator
from django.db.models import Count, Sum
from django.conf import settings
from django.http import HttpResponseNotAllowed, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import NoReverseMatch, reverse
from django.utils import timezone
from django.utils.text import Truncator
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from benchmarks_app import families

from . import connection, provider_batch, sampling, services
from .forms import LaunchForm
from .models import LLMModel, Response, Run, RunProgress

ACTIVE = (Run.Status.QUEUED, Run.Status.RUNNING)
ERROR_KINDS = dict(Response.ErrorKind.choices)
PAGE_SIZE = 25
LATEST_RESPONSES = 50


def span(seconds):
    """A duration for people: 42 s, 3 min 07 s, 2 h 05 min."""
    if seconds is None:
        return "—"
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


def elapsed_seconds(run, now=None):
    """Seconds from the first call to the end (or to now while the run is active)."""
    if run.started_at is None:
        return None
    end = run.finished_at or (now or timezone.now())
    return (end - run.started_at).total_seconds()


def _shares(total, **counts):
    """Percent widths of the progress bar's segments."""
    return {name: round(100 * n / total, 2) if total else 0 for name, n in counts.items()}


def _progress_fields(progress):
    fields = asdict(progress)
    fields.update(finished=progress.finished, open=progress.open, percent=progress.percent,
                  bar=_shares(progress.total, done=progress.done, failed=progress.failed,
                              cancelled=progress.cancelled))
    return fields


def _when(moment):
    return timezone.localtime(moment).strftime("%Y-%m-%d %H:%M:%S") if moment else None


def _status_note(run, progress):
    """What the status alone does not say: a cancelled or paused run whose units with a
    worker have not all ended yet."""
    if run.status in ACTIVE:
        return ""
    notes = []
    if progress.running:
        units = f"{progress.running:,} unit{'s' if progress.running != 1 else ''}"
        notes.append(f"{units} already with a worker {'are' if progress.running != 1 else 'is'} still ending")
    if run.status == Run.Status.CANCELLED and progress.pending:
        # A cancel of a very large run leaves the marking to the sweeps (services.cancel_run).
        units = f"{progress.pending:,} pending unit{'s' if progress.pending != 1 else ''}"
        notes.append(f"{units} not to be asked {'are' if progress.pending != 1 else 'is'} being marked cancelled")
    return "; ".join(notes)


def latest_rows(run):
    """The LATEST_RESPONSES most recently answered units (unanswered last, the units' key
    backwards: a launch made them in that order, so the newest first), as plain values: the page prints them escaped, the progress script with
    textContent. Two reads, each from an index: the answered through one that holds only
    answered units (runs_app migration 0019: a launch's millions of pending units enter
    none), the unanswered through the unit key's."""
    # "run" among the fields read: the run's manager sets each unit's run, reading its run id
    # (deferred, that was one more query per row: 50 of the page's 91 at 10.6 M answers).
    units = (run.responses.select_related("question", "model")
             .only("id", "run", "repeat", "status", "chosen_letter", "raw_output", "latency_ms", "cache_hit",
                   "answered_at", "error_kind", "question__key", "model__name"))
    rows = list(units.filter(answered_at__isnull=False).order_by("-answered_at", "-id")[:LATEST_RESPONSES])
    if len(rows) < LATEST_RESPONSES:
        rows += units.filter(answered_at__isnull=True).order_by(
            "-question_id", "-model_id", "-condition_id", "-repeat")[:LATEST_RESPONSES - len(rows)]
    return [{"id": r.pk, "question": r.question.key, "model": r.model.name, "repeat": r.repeat, "status": r.status,
             "status_label": r.get_status_display(), "letter": r.chosen_letter or "",
             "output": Truncator(r.raw_output).chars(120), "latency_ms": r.latency_ms, "cache_hit": r.cache_hit}
            for r in rows]


def error_rows(run):
    return [{"model": row["model__name"], "kind": row["error_kind"],
             "kind_label": ERROR_KINDS.get(row["error_kind"], row["error_kind"]),
             "status_label": Response.Status(row["status"]).label if row["status"] in Response.Status.values
             else row["status"], "n": row["n"], "example": Truncator(row["example"] or "").chars(300)}
            for row in services.error_breakdown(run)]


def available_actions(run, progress, user, external):
    """Which of cancel and resume this user may do to the run now."""
    can_act = user.has_perm("runs_app.change_run")
    return {
        "can_cancel": can_act and run.status in (*ACTIVE, Run.Status.PAUSED),
        "can_resume": can_act and not external and (
            run.status in (Run.Status.CANCELLED, Run.Status.PAUSED)
            or (run.status == Run.Status.DONE and bool(progress.failed or progress.cancelled))),
    }


def progress_payload(run, user):
    """Everything on the run page that changes while it runs, read at one moment: the
    header, per-model progress, latest answers, errors, times and the actions open to
    `user`. The page is rendered from it and progress.json returns it."""
    state, per_model = services.progress_by_model(run)
    payload = _progress_fields(state)
    seconds = elapsed_seconds(run)
    models = list(run.llm_models.all())
    external = any(model.is_external for model in models)
    payload.update(
        run=run.pk, status=run.status, status_label=run.get_status_display(),
        status_note=_status_note(run, state), open=state.open,
        # Live while the run may still change by itself: active, units still with a worker,
        # or a cancelled run whose last unit has ended but whose end is not written yet.
        active=run.status in ACTIVE or state.running > 0 or (run.status == Run.Status.CANCELLED
                                                             and run.finished_at is None),
        elapsed_seconds=seconds, elapsed=span(seconds) if seconds is not None else None,
        elapsed_text=f"elapsed {span(seconds)}" if seconds is not None else "not started yet",
        started_at=_when(run.started_at), finished_at=_when(run.finished_at),
        models=[{"name": model.name, **_progress_fields(per_model[model.pk]), **_throughput(run, model)}
                for model in models],
        budget=services.budget_state(run),
        # A service the run waits on (Redis, the database, its disk), from the workers' watchers.
        service_notice=services.service_notice(run),
        latest=latest_rows(run), errors=error_rows(run),
        delivery=run.delivery, batches=provider_batch.batch_rows(run) if run.delivery == Run.Delivery.BATCH else [],
        **available_actions(run, state, user, external),
    )
    return payload


def _throughput(run, model) -> dict:
    """The adaptive limiter's figures for the model in this run (concurrency now, calls
    per minute, 429s), as the workers last recorded them; None where none yet."""
    figures = (run.throughput or {}).get(str(model.pk)) or {}
    return {"concurrency": figures.get("concurrency"), "ceiling": figures.get("ceiling"),
            "calls_per_minute": figures.get("calls_per_minute"), "rate_limited": figures.get("rate_limited")}


def key_label(model):
    """The key the model needs, as present or missing; never the key itself."""
    try:
        status = services.key_status(model)
    except Exception:  # LiteLLM could not tell (unknown provider string): say so, do not fail the page
        return "unknown", "key status unknown"
    if not status["needed"]:
        return "none", "no key needed"
    if status["present"]:
        return "present", "key present"
    missing = ", ".join(status["missing"])
    return "missing", f"key missing: {missing}" if missing else "key missing"


def endpoint_label(model):
    if model.is_external:
        return "external (imported answers)"
    if model.is_bundled:
        return "bundled (runs in the worker)"
    return model.api_base or "provider default"


@permission_required("runs_app.view_run", raise_exception=True)
def model_list(request):
    can_edit = (request.user.is_staff and request.user.has_perm("runs_app.change_llmmodel")
                and admin.site.is_registered(LLMModel))
    rows = []
    for model in LLMModel.objects.all():
        key_state, key_text = key_label(model)
        edit_url = None
        if can_edit:
            try:
                edit_url = reverse("admin:runs_app_llmmodel_change", args=[model.pk])
            except NoReverseMatch:
                pass
        rows.append({"model": model, "endpoint": endpoint_label(model), "key_state": key_state,
                     "key_text": key_text, "edit_url": edit_url, "connection": connection_summary(model)})
    add_url = None
    if can_edit and request.user.has_perm("runs_app.add_llmmodel"):
        try:
            add_url = reverse("admin:runs_app_llmmodel_add")
        except NoReverseMatch:
            pass
    return render(request, "runs_app/model_list.html", {
        "rows": rows, "add_url": add_url, "can_test": request.user.has_perm("runs_app.change_llmmodel")})


def connection_summary(model):
    """The models page's cell: what the last connection test found, in a few words."""
    job = connection.job_view(model)
    if job["active"]:
        return {"state": "active", "text": f"testing… {job['done']} of {job['total']}"}
    findings = {row["key"]: row for row in job["findings"]}
    if not findings and model.is_bundled:
        return {"state": "bundled", "text": "in the worker: every mode"}
    if not findings:
        return {"state": "never", "text": "never tested"}
    if findings.get("answers", {}).get("ok") is False:
        return {"state": "bad", "text": f"no answer ({job['checked_at'] or 'last test'})"}
    recommended = job["recommended"]
    parts = [f"choice {recommended.get('choice') or 'no'}", f"rank {'yes' if recommended.get('rank') else 'no'}",
             "temperature " + {True: "heeded", False: "ignored", None: "?"}[findings.get("temperature", {}).get("ok")]]
    when = f" {job['checked_at'][5:]}" if job["checked_at"] else ""
    return {"state": "done", "text": f"tested{when}: " + " · ".join(parts)}


@permission_required("runs_app.view_run", raise_exception=True)
def model_connection(request, pk):
    """A model's connection test: its findings in a table, the button, the progress."""
    model = get_object_or_404(LLMModel, pk=pk)
    job = connection.job_view(model)
    check = connection.launch_checks([model])
    found = job["recommended"].get("choice")
    return render(request, "runs_app/model_connection.html", {
        "model": model, "job": job, "endpoint": endpoint_label(model), "check": check[0] if check else None,
        "can_test": request.user.has_perm("runs_app.change_llmmodel") and not model.is_external,
        # Offered where choice mode is registered with a strategy other than the one found to work.
        "switch_to": found if (found and model.answer_mode == LLMModel.AnswerMode.CHOICE
                               and found != model.choice_strategy
                               and request.user.has_perm("runs_app.change_llmmodel")) else None})


@permission_required("runs_app.change_llmmodel", raise_exception=True)
@require_POST
def model_connection_test(request, pk):
    """Queue the test for a worker: no model is called inside this request."""
    model = get_object_or_404(LLMModel, pk=pk)
    try:
        connection.request_connection_test(model)
    except connection.ConnectionTestRefused as exc:
        messages.error(request, f"Not tested: {exc}.")
    else:
        messages.info(request, f"Connection test of {model.name} queued: a worker sends a few small requests; "
                               "this page shows what it finds.")
    return redirect("run-model-connection", pk=model.pk)


@permission_required("runs_app.change_llmmodel", raise_exception=True)
@require_POST
def model_use_found_strategy(request, pk):
    """The choice strategy the connection test found to work, set on the model."""
    model = get_object_or_404(LLMModel, pk=pk)
    try:
        strategy = connection.use_found_strategy(model)
    except connection.ConnectionTestRefused as exc:
        messages.error(request, f"Not changed: {exc}.")
    else:
        messages.success(request, f"{model.name} now reads its choice with {strategy}, which its connection test "
                                  "found to work.")
    return redirect("run-model-connection", pk=model.pk)


@never_cache
@permission_required("runs_app.view_run", raise_exception=True)
def model_connection_state(request, pk):
    model = get_object_or_404(LLMModel, pk=pk)
    return JsonResponse(connection.job_view(model))


PRICE_SOURCES = {"model": "the model's own prices", "litellm": "LiteLLM's price table", "local": "bundled: free",
                 "unknown": "no price"}


def plan_rows(plan):
    """The plan as the launch page shows it: durations and money for people."""
    rows = []
    for m in plan.models:
        rows.append({**asdict(m), "duration": span(m.seconds),
                     "rate_text": f"{m.requests_per_second * 60:,.0f} calls/min",
                     "limit_text": "requests per minute" if m.limited_by == "requests_per_minute"
                     else "calls in flight", "price_text": PRICE_SOURCES.get(m.price_source, m.price_source)})
    return rows


@permission_required("runs_app.add_run", raise_exception=True)
def launch(request):
    """Two steps: "Plan" shows units, tokens, cost and time and asks nothing; "Launch run"
    (offered once a plan is shown) launches. A post without a step launches (scripts)."""
    form = LaunchForm(request.POST if request.method == "POST" else None)
    plan = None
    if request.method == "POST" and form.is_valid():
        if request.POST.get("step") == "plan":
            plan = form.plan()
        else:
            run = form.launch(request.user)
            if run is not None:
                total = run.responses.count()
                messages.success(request, f"Run {run.pk} launched: {total} unit{'s' if total != 1 else ''} queued.")
                for line in run.left_out:
                    messages.warning(request, f"Left out: {line}")
                return redirect("run-detail", pk=run.pk)
    context = {"form": form, "plan": plan, "plan_models": plan_rows(plan) if plan else [],
               "plan_duration": span(plan.seconds) if plan else None}
    return render(request, "runs_app/launch.html", context)


@permission_required("runs_app.view_run", raise_exception=True)
def run_list(request):
    runs = (Run.objects.select_related("benchmark", "launched_by").prefetch_related("llm_models")
            .order_by("-created_at", "-pk"))
    page = Paginator(runs, PAGE_SIZE).get_page(request.GET.get("page"))
    now = timezone.now()
    counts: dict[int, dict[str, int]] = {}  # the page's runs' units per status, from their counters
    for row in (RunProgress.objects.filter(run_id__in=[run.pk for run in page])
                .values("run_id", "status").annotate(total=Sum("n")).order_by()):
        if row["total"]:
            counts.setdefault(row["run_id"], {})[row["status"]] = row["total"]
    for run in page:
        found = counts.get(run.pk, {})
        run.n_total, run.n_done = sum(found.values()), found.get(Response.Status.DONE, 0)
        run.n_failed, run.n_cancelled = found.get(Response.Status.FAILED, 0), found.get(Response.Status.CANCELLED, 0)
        run.bar = _shares(run.n_total, done=run.n_done, failed=run.n_failed, cancelled=run.n_cancelled)
        seconds = elapsed_seconds(run, now)
        run.duration = span(seconds) if seconds is not None else "—"
        run.is_active = run.status in ACTIVE
    return render(request, "runs_app/run_list.html", {"page": page, "runs": page.object_list})


def _selection_summary(run):
    selection = run.selection or {}
    if run.kind == Run.Kind.IMPORT:
        return [("Questions", "answers imported from a file")]
    counts = selection.get("choice_counts") or []
    sample = selection.get("sample")
    conditions = list(run.conditions.values_list("name", flat=True))
    return [
        ("Conditions", ", ".join(conditions) or "default"),
        *families.describe_selection(run.benchmark.family, selection),  # the family's own keys (CFPD: domains)
        ("Choice counts", ", ".join(str(c) for c in counts) or "all"),
        ("Sample", f"{sample} questions, seed {selection.get('seed', 0)}" if sample else "all matching questions"),
    ]


def planned_per_model(run):
    """How many times each model was actually asked: its questions, the repeats planned for
    it and its units, counted from the units themselves (choice-mode models are asked once
    whatever the run's repeats; an imported run has what the file had). A launched run
    keeps them from its launch (`Run.planned`): no count of millions of units."""
    modes = dict(LLMModel.AnswerMode.choices)
    if run.planned is not None:
        models = LLMModel.objects.filter(pk__in=[int(pk) for pk in run.planned]).order_by("name")
        return [{"name": m.name, "mode": m.answer_mode, "mode_label": modes.get(m.answer_mode, m.answer_mode).split(":")[0],
                 **run.planned[str(m.pk)]} for m in models]
    rows = (run.responses.values("model", "model__name", "model__answer_mode")
            .annotate(questions=Count("question", distinct=True), repeats=Count("repeat", distinct=True),
                      units=Count("id"))
            .order_by("model__name"))
    planned = [{"name": row["model__name"], "mode": row["model__answer_mode"],
                "mode_label": modes.get(row["model__answer_mode"], row["model__answer_mode"]).split(":")[0],
                "questions": row["questions"], "repeats": row["repeats"], "units": row["units"]} for row in rows]
    if run.kind in WRITTEN_WHOLE and rows:
        # An imported or synthetic run's units are all written when it is made and never
        # added to: counted once (13 s at 2.66 M answers, every view before), kept as a
        # launch keeps its plan.
        Run.objects.filter(pk=run.pk, planned__isnull=True).update(planned={
            str(row["model"]): {"questions": row["questions"], "repeats": row["repeats"], "units": row["units"]}
            for row in rows})
    return planned


# The kinds of run whose units are all written at once (no follow-up, no launch plan).
WRITTEN_WHOLE = (Run.Kind.IMPORT, Run.Kind.SYNTHETIC)


@permission_required("runs_app.view_run", raise_exception=True)
def run_detail(request, pk):
    run = get_object_or_404(Run.objects.select_related("benchmark", "launched_by"), pk=pk)
    payload = progress_payload(run, request.user)
    planned = planned_per_model(run)
    for row in payload["models"]:
        row["plan"] = next((p for p in planned if p["name"] == row["name"]), None)
    context = {
        "run": run, "p": payload, "models": run.llm_models.all(), "selection": _selection_summary(run),
        "planned": planned, "repeats_differ": len({p["repeats"] for p in planned}) > 1
        or any(p["repeats"] != run.repeats for p in planned),
        "errors": payload["errors"], "latest": payload["latest"], "latest_limit": LATEST_RESPONSES,
        "cache_label": {None: "auto (on at temperature 0, off for repeated sampling)", True: "on",
                        False: "off"}[run.use_cache],
        "can_act": request.user.has_perm("runs_app.change_run"),
        "can_cancel": payload["can_cancel"], "can_resume": payload["can_resume"],
        "budget": payload["budget"], "temperature_warnings": sampling.temperature_warnings(run),
        "batch_poll_seconds": settings.CFPD_BATCH_POLL_SECONDS,
        "workers": services.run_workers(run), "workers_window": services.WORKERS_WINDOW,
    }
    try:
        family = families.family(run.benchmark.family)
    except families.UnknownFamily:
        family = None
    if family is not None and family.asked_versions is not None:
        context["asked_versions"] = family.asked_versions(run)
        context["can_see_history"] = request.user.is_staff
    return render(request, "runs_app/run_detail.html", context)


@never_cache
@permission_required("runs_app.view_run", raise_exception=True)
def run_progress(request, pk):
    run = get_object_or_404(Run, pk=pk)
    return JsonResponse(progress_payload(run, request.user))


def _act_on_run(request, pk, workflow, refused: str, report):
    """Cancel or resume: the service does it, the page says what happened or why not."""
    run = get_object_or_404(Run, pk=pk)
    try:
        n = workflow(run)
    except services.RunError as exc:
        messages.error(request, f"{refused}: {exc}.")
    else:
        report(run, n)
    return redirect("run-detail", pk=run.pk)


def _units(n):
    return f"{n:,} unit{'s' if n != 1 else ''}"


def in_flight_text(n):
    """What happens to units a worker has already taken when their run is cancelled
    (see `services.cancel_run`)."""
    are = "are" if n != 1 else "is"
    return (f"{_units(n)} already with a worker {are} left to end: an answer that arrives is kept; a call that "
            f"fails, or that still waits for its model's slot after {settings.CFPD_SLOT_WAIT} s, ends cancelled "
            "(not retried). The run ends when the last of them does.")


def cancelled_text(run, cancellation):
    pending = cancellation.pending
    text = f"Run {run.pk} cancelled: {pending:,} pending unit{'s' if pending != 1 else ''} will not be asked."
    if cancellation.later:
        text += " So many are marked cancelled by a worker, a chunk at a time: the counts below catch up."
    return f"{text} {in_flight_text(cancellation.in_flight)}" if cancellation.in_flight else text


@permission_required("runs_app.change_run", raise_exception=True)
def cancel(request, pk):
    """A confirmation page (GET, or a POST without `confirm`), then the cancel itself."""
    if request.method == "POST" and request.POST.get("confirm") == "yes":
        return _act_on_run(request, pk, services.cancel_run, "Not cancelled",
                           lambda run, cancellation: messages.success(request, cancelled_text(run, cancellation)))
    if request.method not in ("GET", "HEAD", "POST"):
        return HttpResponseNotAllowed(["GET", "POST"])
    run = get_object_or_404(Run.objects.select_related("benchmark"), pk=pk)
    state = services.progress(run)
    return render(request, "runs_app/cancel_confirm.html", {
        "run": run, "p": state, "cancellable": run.status in (*ACTIVE, Run.Status.PAUSED),
        "in_flight_text": in_flight_text(state.running) if state.running else ""})


@permission_required("runs_app.change_run", raise_exception=True)
@require_POST
def resume(request, pk):
    def report(run, n):
        if n:
            messages.success(request, f"Run {run.pk} resumed: {n} unit{'s' if n != 1 else ''} queued again.")
        else:
            messages.info(request, f"Run {run.pk} has nothing missing: every unit is done.")

    # A paused run's page sends its budget, raised or not; an empty box removes that budget.
    changes = {name: request.POST[name] for name in ("budget_usd", "budget_units") if name in request.POST}
    return _act_on_run(request, pk, lambda run: services.resume_run(run, **changes), "Not resumed", report)
