"""Everything one answer's page and its API show, read once: the messages as sent (with the
earlier turns of a conversation marked), the options in the order the model saw them, the
raw output cut into highlighted segments (`encoding_app.highlighting`, as the coding page
does), the option log-probabilities as a chart, the code's history with its sources and
reasons, the reviewers' tasks, the call's figures and the links around it.

Plain values only: the template prints every text escaped and the chart goes out through
`json_script`, so model output is never parsed as HTML or run as script."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.urls import NoReverseMatch, reverse

from analysis_app.panels import PALETTE, chart, layout
from benchmarks_app import families
from benchmarks_app.lettering import LETTERS
from encoding_app.highlighting import highlight
from encoding_app.letters import presented_letter
from encoding_app.models import Code, JudgeRequest, ReviewTask
from runs_app.models import Response

from . import answer_query, readers

CODE_LABELS = {"R": "R (refusal)", "X": "X (invalid: no option, no refusal)"}


def answer_queryset():
    return Response.objects.answers().select_related("run__benchmark", "question__benchmark", "model", "condition",
                                                     "previous")


def readable_answer(user, pk: int):
    """The answer `pk` for its page and the API: Http404 when there is none, PermissionDenied
    (403, the same words on both) when `user` may not read its benchmark's answers."""
    try:
        response = answer_queryset().get(pk=pk)
    except Response.DoesNotExist:
        raise Http404(f"No answer {pk}") from None
    if not readers.may_read(user, response.run.benchmark_id):
        raise PermissionDenied(f"Answer {pk} is of benchmark {response.run.benchmark.name}, whose answers you do "
                               "not code: reviewers read the answers of the benchmarks they code.")
    return response


def presented_options(response) -> list[dict]:
    """The options in the order the model saw them: the letter it saw, the wording, and the
    canonical letter a code names (codes are canonical: A is the question's first option)."""
    options = response.question.options or []
    order = response.option_order or list(range(len(options)))
    return [{"letter": LETTERS[i], "text": options[index].get("text", "") if isinstance(options[index], dict)
             else str(options[index]), "canonical": LETTERS[index]}
            for i, index in enumerate(order) if isinstance(index, int) and 0 <= index < len(options)]


def shown_code(code: str, option_order) -> str:
    """A canonical code as the page names it: "B (shown as A)" when the model saw it lettered
    otherwise; R and X spelt out; "" for none."""
    if not code:
        return ""
    if code in CODE_LABELS:
        return CODE_LABELS[code]
    try:
        seen = presented_letter(code, list(option_order or []))
    except (ValueError, IndexError):
        return code
    return code if seen == code else f"{code} (shown as {seen})"


def logprob_chart(response, options) -> tuple[dict | None, str]:
    """The option log-probabilities as a bar chart (one bar per option, in the order the
    model saw them; the rank score per token beside it where rank classification gave one),
    or None and the sentence saying why there is none."""
    letters = "".join(o["letter"] for o in options)
    wording = {o["letter"]: o["text"] for o in options}
    traces = []
    for name, stored, colour in (("log-probability of the option's letter", response.option_logprobs, PALETTE[0]),
                                 ("rank score: mean log-probability per token of the option's wording",
                                  response.option_mean_logprobs, PALETTE[2])):
        points = answer_query.option_points(stored if isinstance(stored, dict) else None, letters)
        if not points:
            continue
        traces.append({
            "type": "bar", "name": name, "x": [letter for letter, _, _ in points],
            "y": [value for _, value, _ in points], "marker": {"color": colour},
            "text": [f"{value:.2f}" for _, value, _ in points], "textposition": "outside",
            "customdata": [[wording.get(letter, "")[:80], "—" if p is None else f"{p:.1%}"]
                           for letter, _, p in points],
            "hovertemplate": "%{x}: %{customdata[0]}<br>log-probability %{y:.3f} (probability %{customdata[1]})"
                             "<extra></extra>"})
    if not traces:
        if response.status != Response.Status.DONE:
            return None, "No log-probabilities: the model has not answered (the answer is " \
                         f"{response.get_status_display().lower()})."
        if not options:
            return None, "No log-probabilities: the question has no options to score."
        return None, ("No log-probabilities: the model answered in its own words (generate mode) and the provider "
                      "returned no option scores; the code was read from the text.")
    figure = chart(traces, layout("Option log-probabilities (nearer 0 is likelier)", height=300,
                                  barmode="group", yaxis={"title": {"text": "log-probability"}},
                                  xaxis={"title": {"text": "option, as lettered for the model"}}))
    return figure, ""


def _url(name, *args) -> str:
    try:
        return reverse(name, args=args)
    except NoReverseMatch:
        return ""


def messages(response) -> list[dict]:
    """The messages as sent, each {role, content, earlier}: `earlier` marks the turns an
    earlier unit of the same conversation asked and answered (a two-move conversation's
    first move), which lead a follow-up's messages."""
    stored = response.messages if isinstance(response.messages, list) else []
    earlier = 0
    if response.previous_id is not None and response.previous is not None:
        previous = response.previous.messages if isinstance(response.previous.messages, list) else []
        earlier = len(previous) + 1  # its messages and its answer
    return [{"role": str(m.get("role", "")) if isinstance(m, dict) else "",
             "content": str(m.get("content", "")) if isinstance(m, dict) else str(m),
             "earlier": i < earlier} for i, m in enumerate(stored)]


def code_history(response) -> list[dict]:
    """Every code given to the answer, oldest first, with where it came from and why."""
    rows = []
    for code in (Code.objects.filter(response=response).select_related("coder", "task")
                 .order_by("created_at", "id")):
        task = code.task
        rows.append({"code": code.code, "shown": shown_code(code.code, response.option_order),
                     "source": code.source, "source_label": code.get_source_display(), "rule": code.rule,
                     "confidence": code.confidence, "coder": code.coder.username if code.coder else "",
                     "note": code.note, "is_current": code.is_current,
                     "undone_at": code.undone_at.isoformat() if code.undone_at else None,
                     "created_at": code.created_at.isoformat(),
                     "task": task.get_purpose_display() if task else "",
                     "reason": (task.explanation or task.reason) if task else ""})
    return rows


def review_tasks(response) -> list[dict]:
    return [{"purpose": t.get_purpose_display(), "status": t.get_status_display(), "reason": t.reason,
             "explanation": t.explanation, "done_by": t.done_by.username if t.done_by else "",
             "done_at": t.done_at.isoformat() if t.done_at else None}
            for t in ReviewTask.objects.filter(response=response).select_related("done_by").order_by("id")]


def judge_readings(response) -> list[dict]:
    return [{"judge": r.judge.model.name, "reading": r.reading, "code": r.code,
             "read_at": r.read_at.isoformat() if r.read_at else None}
            for r in JudgeRequest.objects.filter(target_response=response).select_related("judge__model")
            .order_by("created_at", "id")]


def question_description(question) -> list[tuple[str, str]]:
    """What the page says of the question beside its text: its benchmark, family and kind,
    and the family's own fields of it where the family gives them (`sample_metadata`, e.g.
    CFPD's domain and qualified actor; none for a family without that hook)."""
    about = [("Benchmark", question.benchmark.name), ("Family", families.label(question.benchmark.family)),
             ("Kind", question.get_kind_display())]
    own = getattr(families, "sample_metadata", None)  # the registry's hook, where installed
    try:
        fields = own(question, question.benchmark.family) if own else {}
    except Exception:  # a family's description must not take the answer's page down
        fields = {}
    for key, value in (fields or {}).items():
        if value not in (None, "", [], {}):
            shown = ", ".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)
            about.append((str(key).replace("_", " ").capitalize(), shown))
    return about


def codes_hidden(response, user) -> bool:
    """Whether `user` holds an open blind task on this answer (a second coding or an audit
    leased to them): until they code it, the page hides every code, as the coding page does."""
    if user is None or readers.readable_benchmarks(user) == readers.ALL:
        return False
    return ReviewTask.objects.filter(response=response, leased_by=user, status=ReviewTask.Status.OPEN,
                                     purpose__in=[ReviewTask.Purpose.SECOND, ReviewTask.Purpose.AUDIT]).exists()


def _hide_codes(described: dict) -> dict:
    described.update(code="", code_shown="", code_source="", codes=[], tasks=[], judges=[], codes_hidden=True)
    return described


def describe(response, user=None) -> dict:
    """The answer's page as plain values (the template and the API print the same); the
    codes left out for a reviewer coding it blind (`codes_hidden`)."""
    if codes_hidden(response, user):
        return _hide_codes(_describe(response, user))
    return _describe(response, user)


def _describe(response, user) -> dict:
    options = presented_options(response)
    letters = "".join(o["letter"] for o in options)
    for name, stored in (("logprob", response.option_logprobs), ("rank_score", response.option_mean_logprobs)):
        values = {letter: value for letter, value, _ in
                  answer_query.option_points(stored if isinstance(stored, dict) else None, letters)}
        for o in options:
            o[name] = values.get(o["letter"])
    figure, no_chart = logprob_chart(response, options)
    params = response.params if isinstance(response.params, dict) else {}
    run = response.run
    question = response.question
    question_url = ""
    if user is not None and user.is_staff:
        question_url = _url("admin:benchmarks_app_question_change", question.pk)
    follow_ups = list(response.follow_ups.order_by("id").values_list("id", flat=True))
    return {
        "id": response.pk, "run": run.pk, "run_kind": run.kind, "benchmark": run.benchmark.name,
        "question": question.key, "question_id": question.pk, "question_text": question.text,
        "question_about": question_description(question),
        "model": response.model.name, "resolved_model": response.resolved_model,
        "condition": response.condition.name, "condition_label": response.condition.label,
        "temperature": params.get("temperature"), "params": params, "repeat": response.repeat,
        "status": response.status, "status_label": response.get_status_display(),
        "options": options, "option_order": list(response.option_order or []),
        "messages": messages(response),
        "output": response.raw_output,
        "segments": [s.as_dict() for s in highlight(response.raw_output or "", [o["text"] for o in options],
                                                    letters)],
        "chosen_letter": response.chosen_letter, "finish_reason": response.finish_reason,
        "option_logprobs": response.option_logprobs, "option_mean_logprobs": response.option_mean_logprobs,
        "chart": figure, "no_chart": no_chart,
        "code": response.code, "code_shown": shown_code(response.code, response.option_order),
        "code_source": response.code_source, "codes": code_history(response), "tasks": review_tasks(response),
        "judges": judge_readings(response),
        "prompt_tokens": response.prompt_tokens, "completion_tokens": response.completion_tokens,
        "cost": float(response.cost) if response.cost is not None else None, "latency_ms": response.latency_ms,
        "attempts": response.attempts, "error_kind": response.error_kind,
        "error_kind_label": response.get_error_kind_display() if response.error_kind else "",
        "error_message": response.error_message, "cache_hit": response.cache_hit,
        "created_at": response.created_at.isoformat() if response.created_at else None,
        "answered_at": response.answered_at.isoformat() if response.answered_at else None,
        "previous": response.previous_id, "follow_ups": follow_ups, "codes_hidden": False,
        "links": {"run": _url("run-detail", run.pk), "question": question_url,
                  "benchmark": _url("benchmark-detail", run.benchmark.name),
                  "profile": _url("model-profile", response.model.name),
                  "previous": _url("answer-detail", response.previous_id) if response.previous_id else "",
                  "list": _url("answer-list") + f"?run={run.pk}" if _url("answer-list") else ""},
    }
