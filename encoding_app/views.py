"""Reviewers' pages: the coding overview, the keyboard workspace (and its JSON), the
agreement and audit pages.

Everything here needs `encoding_app.code_responses` (the reviewers role); adjudication
needs `adjudicate_codes`. The raw answer is sent as text segments that the script puts
in place with `textContent`: model output is never parsed as HTML.
"""

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import permission_required
from django.core.exceptions import BadRequest, PermissionDenied
from django.core.paginator import Paginator
from django.db.models import Count
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from benchmarks_app import families
from benchmarks_app.language_codes import direction
from kit import params
from runs_app.models import LLMModel, Run

from . import audits, judges, queue_state, reports, services
from .highlighting import highlight
from .letters import INVALID, LETTERS, REFUSAL, presented_letter
from .models import Code, CodingPolicy, Judge, ReviewTask

CODE = "encoding_app.code_responses"
ADJUDICATE = "encoding_app.adjudicate_codes"
PAGE_SIZE = 30


def _int(value, field="id"):
    """An id from a filter box or a form: empty is none; anything but an id in the
    database's range is a 400 naming the field (Django answers BadRequest with a 400)."""
    if value in (None, ""):
        return None
    try:
        return params.to_int(value, field, minimum=1)
    except params.BadParameter as error:
        raise BadRequest(str(error)) from None


def filters_from(request) -> services.Filters:
    chosen = ((f.name, _text(request.GET, f.name)) for f in families.coding_filters())
    return services.Filters(run=_int(request.GET.get("run"), "run"), model=_int(request.GET.get("model"), "model"),
                            family=tuple((name, value) for name, value in chosen if value))


def _text(query, field):
    try:
        return params.text(query, field)
    except params.BadParameter as error:
        raise BadRequest(str(error)) from None


def _without_page(query):
    query = query.copy()
    query.pop("page", None)
    return query.urlencode()


def filter_choices(request):
    return {
        "runs": Run.objects.order_by("-pk").values_list("pk", "benchmark__name")[:200],
        "models": LLMModel.objects.order_by("name").values_list("pk", "name"),
        # The families' own filters (CFPD: domain), each with its choices and the value chosen.
        "family_filters": [{"name": f.name, "label": f.label, "choices": f.choices(),
                            "selected": request.GET.get(f.name, "")} for f in families.coding_filters()],
        "reviewers": get_user_model().objects.filter(groups__name="reviewers").order_by("username")
        .values_list("pk", "username"),
        "selected": {key: request.GET.get(key, "") for key in ("run", "model", "reviewer")},
        "query": _without_page(request.GET),
    }


@permission_required(CODE, raise_exception=True)
def overview(request):
    filters = filters_from(request)
    tasks = filters.apply(ReviewTask.objects.select_related("response__model", "response__question", "leased_by",
                                                            "done_by")).order_by("status", "-id")
    reviewer = _int(request.GET.get("reviewer"), "reviewer")
    if reviewer:
        tasks = tasks.filter(done_by_id=reviewer) | tasks.filter(leased_by_id=reviewer)
    page = Paginator(tasks, PAGE_SIZE).get_page(request.GET.get("page"))
    context = {
        **filter_choices(request), "page": page, "tasks": page.object_list,
        "states": reports.state_counts(filters), "state_labels": reports.STATE_HEADERS,
        "rules": reports.rule_shares(filters),
        "review": reports.queue_progress(filters), "adjudication": reports.queue_progress(filters, "adjudication"),
        "can_adjudicate": request.user.has_perm(ADJUDICATE),
        # "left" counted items this reviewer could never take (issue 38): what is theirs.
        "yours": queue_state.reviewer_counts(request.user, filters),
        "yours_adjudication": queue_state.reviewer_counts(request.user, filters, "adjudication"),
    }
    return render(request, "encoding_app/overview.html", context)


@permission_required(CODE, raise_exception=True)
def workspace(request, queue="review"):
    if queue == "adjudication" and not request.user.has_perm(ADJUDICATE):
        raise PermissionDenied("adjudication needs the adjudicate permission")
    return render(request, "encoding_app/workspace.html", {**filter_choices(request), "queue": queue})


def item_payload(task: ReviewTask, user) -> dict:
    response = task.response
    question = response.question
    options = services.presented_options(response)
    letters = "".join(o["letter"] for o in options)
    payload = {
        "task": task.pk, "purpose": task.purpose, "purpose_label": task.get_purpose_display(), "blind": task.blind,
        "response": response.pk, "question_key": question.key, "question": question.text,
        # The answer is in the question's language (issue 41): the page sets lang and dir from these.
        "language": question.language, "direction": direction(question.language),
        "model": response.model.name, "run": response.run_id, "repeat": response.repeat,
        "options": options, "letters": letters + REFUSAL + INVALID,
        "answer": [segment.as_dict() for segment in highlight(response.raw_output, [o["text"] for o in options],
                                                               letters)],
        "suggestion": None, "codes": [], "judges": [],
        "lease_expires_at": task.lease_expires_at.isoformat() if task.lease_expires_at else None,
    }
    if task.purpose == ReviewTask.Purpose.PRIMARY:
        # Not blind: the reviewer sees why the encoder left it to them, and any judge's reading.
        encoding = services.automatic_encoding(response)
        reason = task.explanation or encoding.reason or f"The rule {encoding.rule} read it as {encoding.code}."
        payload["suggestion"] = {"code": None if task.reason == "rule-suspended" else encoding.code,
                                 "rule": task.reason or encoding.rule, "reason": reason}
        payload["judges"] = [{"model": r.judge.model.name, "reading": r.reading, "text": judges.suggestion_text(r)}
                             for r in judges.latest_readings(response)]
    if task.purpose == ReviewTask.Purpose.ADJUDICATION:
        payload["codes"] = [
            {"code": presented_letter(c.code, response.option_order), "source": c.get_source_display(),
             "rule": c.rule, "coder": c.coder.username if c.coder else "", "note": c.note}
            for c in response.codes.filter(undone_at__isnull=True).select_related("coder")]
    return payload


def _progress(request, queue, filters):
    user = request.user
    return {
        "progress": reports.queue_progress(filters, queue),
        # Whose the queue's items are, in words ("7 coded by you · 1 you skipped · …").
        "counts": queue_state.progress(user, filters, queue),
        "mine": Code.objects.filter(coder=user, undone_at__isnull=True).count(),
        "can_undo": Code.objects.filter(coder=user, undone_at__isnull=True,
                                        source__in=services.HUMAN_SOURCES).exists(),
    }


def _state(request, queue, task=None, status=200, error=None, added=()):
    """The page's whole state (the item to code, the progress); with `error`, a refused
    action that still moves the page on to what is true now (e.g. the item was coded in
    the reviewer's other tab); `added`, the items the code just given opened."""
    filters = filters_from(request)
    user = request.user
    task = task or services.next_task(user, queue, filters)
    if task is not None:
        task = ReviewTask.objects.select_related("response__question", "response__model").get(pk=task.pk)
    return JsonResponse({
        **({"error": error} if error else {}),
        "item": item_payload(task, user) if task else None,
        **_progress(request, queue, filters),
        "added": list(added),
    }, status=status)


def _queue(request):
    queue = request.GET.get("queue") or request.POST.get("queue") or "review"
    return "adjudication" if queue == "adjudication" else "review"


def _allowed(request, queue):
    return queue != "adjudication" or request.user.has_perm(ADJUDICATE)


def _refused(message, status=409):
    return JsonResponse({"error": message}, status=status)


@never_cache
@require_GET
@permission_required(CODE, raise_exception=True)
def next_item(request):
    queue = _queue(request)
    if not _allowed(request, queue):
        return _refused("adjudication needs the adjudicate permission", 403)
    return _state(request, queue)


@never_cache
@require_GET
@permission_required(CODE, raise_exception=True)
def queue_status(request):
    """What a tab polls every few seconds, changing nothing: the counts, and what became of
    the item it shows (`?task=N`), so that a second tab learns of the first one's code
    without a key pressed."""
    queue = _queue(request)
    if not _allowed(request, queue):
        return _refused("adjudication needs the adjudicate permission", 403)
    shown = _int(request.GET.get("task"), "task")
    return JsonResponse({**_progress(request, queue, filters_from(request)),
                         "shown": queue_state.shown_task(shown, request.user) if shown else None})


@require_POST
@permission_required(CODE, raise_exception=True)
def code_item(request, pk):
    queue = _queue(request)
    if not _allowed(request, queue):
        return _refused("adjudication needs the adjudicate permission", 403)
    try:
        note = request.POST.get("note", "")
        if len(note) > services.MAX_NOTE_CHARS:
            return _refused(f"note: at most {services.MAX_NOTE_CHARS} characters, got {len(note)}", 400)
        code = services.submit_code(pk, request.user, request.POST.get("code", ""), note)
    except services.AlreadyDone as error:
        return _state(request, queue, status=409, error=str(error))
    except services.CodingError as error:
        return _refused(str(error))
    return _state(request, queue, added=queue_state.follow_ups(code))


@require_POST
@permission_required(CODE, raise_exception=True)
def skip_item(request, pk):
    queue = _queue(request)
    try:
        services.skip_task(pk, request.user)
    except services.AlreadyDone as error:
        return _state(request, queue, status=409, error=str(error))
    except services.CodingError as error:
        return _refused(str(error))
    return _state(request, queue)


@require_POST
@permission_required(CODE, raise_exception=True)
def undo(request):
    try:
        task = services.undo_last(request.user)
    except services.CodingError as error:
        return _refused(str(error))
    queue = "adjudication" if task.purpose == ReviewTask.Purpose.ADJUDICATION else "review"
    return _state(request, queue, task)


@permission_required(CODE, raise_exception=True)
def agreement(request):
    filters = filters_from(request)
    report = reports.agreement(filters)
    return render(request, "encoding_app/agreement.html",
                  {**filter_choices(request), "report": report,
                   "overall_rows": [report.overall] if report.overall else []})


@permission_required(CODE, raise_exception=True)
def audit(request):
    filters = filters_from(request)
    rules = reports.audit(filters)
    judge_rows = [audits.judge_agreement(judge) for judge in Judge.objects.select_related("model")]
    used = {code for rule in rules for pair in rule.confusion for code in pair}
    used |= {code for row in judge_rows for pair in row.confusion for code in pair}
    # The confusion matrices show the letters that occur (up to J), R, and X where it occurs.
    codes = [letter for letter in LETTERS if letter in used] + [REFUSAL] + ([INVALID] if INVALID in used else [])
    for entry in [*rules, *judge_rows]:
        entry.matrix = [(auto, [entry.confusion.get((auto, ref), 0) for ref in codes]) for auto in codes]
    return render(request, "encoding_app/audit.html",
                  {**filter_choices(request), "rules": rules, "codes": codes, "judges": judge_rows,
                   "policy": CodingPolicy.current()})


@permission_required("runs_app.add_run", raise_exception=True)
def request_judging(request):
    """An operator asks a judge model to read the unresolved answers of a run."""
    if request.method == "POST":
        run = get_object_or_404(Run, pk=_int(request.POST.get("run"), "run") or 0)
        model = get_object_or_404(LLMModel, pk=_int(request.POST.get("judge"), "judge") or 0)
        try:
            judge_run = judges.request_judging(run, model, request.user)
        except services.CodingError as error:
            messages.error(request, str(error))
        else:
            messages.success(request, f"Run {judge_run.pk} asks {model.name} to read "
                                      f"{judge_run.responses.count()} unresolved answers of run {run.pk}.")
        return redirect("encoding-judging")
    runs = Run.objects.of_answers().order_by("-pk").select_related("benchmark")[:200]
    waiting = dict(ReviewTask.objects.filter(purpose=ReviewTask.Purpose.PRIMARY, status=ReviewTask.Status.OPEN)
                   .values_list("response__run_id").annotate(n=Count("id")).values_list("response__run_id", "n"))
    return render(request, "encoding_app/judging.html", {
        "runs": [(run, waiting.get(run.pk, 0)) for run in runs],
        "models": LLMModel.objects.filter(is_external=False).order_by("name"),
        "judges": Judge.objects.select_related("model").order_by("model__name"),
    })
