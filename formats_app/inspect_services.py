"""Inspect AI eval logs, both ways, on the database: a run's answers written as Inspect
logs (one per model), and an Inspect log's answers imported as a run through the same
path as `import_responses` (runs_app.services.import_responses: its checks, one atomic
write, `responses_imported` and so the encoder and the reviewers' queue), then given the
messages, usage and time the log carries."""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from django.db import transaction
from django.http import QueryDict

from benchmarks_app import families
from benchmarks_app.models import Benchmark, Condition, Question
from benchmarks_app.services import current_questions, render_messages
from kit.params import BadParameter
from encoding_app.models import Code
from explorer_app import answer_list
from runs_app import services as run_services
from runs_app.models import LLMModel, Response, Run

from . import inspect_log, inspect_task
from .inspect_log import Answer, LogError

MAX_REPEATS = 1000  # as import_responses: no run repeats a question a thousand times
_STATUS = {Run.Status.DONE: "success", Run.Status.CANCELLED: "cancelled"}  # others: "started"


class ExportError(ValueError):
    pass


def _answer(response: Response, code: Code | None, family_fields: dict) -> Answer:
    question = response.question
    order = list(response.option_order or range(len(question.options or [])))
    texts = question.option_texts() if question.options else []
    choices = [texts[i] for i in order if i < len(texts)] if texts else None
    code_metadata = {}
    if code is not None:
        code_metadata = {"source": code.source, "rule": code.rule, "confidence": code.confidence,
                         "reason": code.note or code.rule or code.source,
                         "coded_at": code.created_at.isoformat() if code.created_at else None}
    metadata = {"run": response.run_id, "model": response.model.name, "resolved_model": response.resolved_model,
                "option_order": order, "chosen_letter": response.chosen_letter or None,
                "status": response.status, "response_id": response.pk,
                **_family_fields(question, family_fields)}
    return Answer(
        question_key=question.key, condition=response.condition.name, repeat=response.repeat,
        messages=response.messages or [], output=response.raw_output, choices=choices,
        finish_reason=response.finish_reason, prompt_tokens=response.prompt_tokens,
        completion_tokens=response.completion_tokens, latency_ms=response.latency_ms,
        answered_at=response.answered_at,
        error=response.error_message or ("failed" if response.status == Response.Status.FAILED else ""),
        code=response.code, presented_letter=(code.presented_letter if code else "") or response.chosen_letter,
        code_metadata=code_metadata, metadata=metadata)


def _family_fields(question, cache: dict) -> dict:
    """The family's fields of a question, asked once per question however many answers it has."""
    if question.pk not in cache:
        cache[question.pk] = families.sample_metadata(question, question.benchmark.family)
    return cache[question.pk]


def inspect_logs(run: Run, model_name: str | None = None, picked=None) -> list[tuple[LLMModel, dict]]:
    """(model, Inspect log as a dict) for each model of the run (or the one named): the
    answered and failed units; units never asked are left out (the log's metadata counts them).
    `picked`: a queryset of answers (the answers list's filter) the logs keep to."""
    models = list(run.llm_models.order_by("name"))
    if model_name is not None:
        models = [m for m in models if m.name == model_name]
        if not models:
            names = ", ".join(run.llm_models.order_by("name").values_list("name", flat=True)) or "none"
            raise ExportError(f"run {run.pk} has no model {model_name!r} (its models: {names})")
    logs, family_fields = [], {}
    for model in models:
        chosen = Response.objects.answers().filter(run=run, model=model)
        if picked is not None:
            chosen = chosen.filter(pk__in=picked.filter(run=run, model=model).values("pk"))
        responses = list(chosen.filter(status__in=[Response.Status.DONE, Response.Status.FAILED])
                         .select_related("question__benchmark", "condition", "model")
                         .order_by("question__key", "condition__name", "repeat"))
        codes = {c.response_id: c for c in Code.objects.filter(response__in=[r.pk for r in responses],
                                                                 is_current=True)} if responses else {}
        answers = [_answer(r, codes.get(r.pk), family_fields) for r in responses]
        not_asked = Response.objects.filter(run=run, model=model).exclude(
            status__in=[Response.Status.DONE, Response.Status.FAILED]).count()
        log = inspect_log.build_log(
            task=run.benchmark.name, model=model.litellm_model or model.name, answers=answers, run_id=run.pk,
            created=run.created_at, started=run.started_at, finished=run.finished_at,
            status=_STATUS.get(run.status, "started"), repeats=run.repeats,
            metadata={"benchmark": run.benchmark.name, "family": run.benchmark.family, "run_kind": run.kind,
                      "model_name": model.name, "conditions": sorted(run.conditions.values_list("name", flat=True)),
                      "units_not_answered": not_asked, "note": run.note})
        logs.append((model, log))
    return logs


def picked_answers(query: str):
    """The answers the answers list's query string picks (`q=…&code=R&model=…`, as on
    /answers/), or ExportError naming the parameter that is wrong."""
    try:
        return answer_list.narrowed(Response.objects.answers(), answer_list.read_filter(QueryDict(query)))
    except BadParameter as exc:
        raise ExportError(f"--answers: {exc}") from None


LOG_FILE_SUFFIXES = (".eval", ".json")  # Inspect's two log formats; .eval is its default


def log_targets(out: Path, run: Run, models: list[LLMModel]) -> list[Path]:
    """Where each model's log goes. A PATH ending in .eval or .json is a file of that
    format: PATH itself for one log, else one file per model named from it (run.eval ->
    run-m1.eval, run-m2.eval), since an .eval or .json log holds one model. Any other PATH
    is a folder with one .json log per model, named as Inspect names its logs
    (`TIME_TASK_runN-MODEL.json`) so that `inspect view` lists them."""
    if out.suffix in LOG_FILE_SUFFIXES:
        if len(models) == 1:
            return [out]
        return [out.with_name(f"{out.stem}-{inspect_log.model_slug(m.name)}{out.suffix}") for m in models]
    return [out / inspect_log.log_file_name(created=run.created_at, task=run.benchmark.name, run_id=run.pk,
                                            model=m.name) for m in models]


def write_inspect_logs(run: Run, out: str | Path, model_name: str | None = None, picked=None) -> list[Path]:
    """Write the run's logs (one per model, or the one named) where `log_targets` says,
    each as .eval (a zip, Inspect's default) or .json by its file's suffix."""
    logs = inspect_logs(run, model_name, picked)
    targets = log_targets(Path(out), run, [model for model, _ in logs])
    for target, (_, log) in zip(targets, logs):
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.suffix == ".eval":
            inspect_log.write_eval_archive(log, target)
        else:
            with open(target, "w", encoding="utf-8") as handle:
                json.dump(log, handle, ensure_ascii=False)
    return targets


# --- import ----------------------------------------------------------------------------

@dataclass
class InspectImport:
    run: Run | None
    created: int
    problems: list[str]
    skipped: list[str] = field(default_factory=list)
    model: str = ""


def _answers_csv(answers) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["question_key", "model", "repeat", "condition", "output", "option_order"])
    for answer in answers:
        order = " ".join(map(str, answer.option_order)) if answer.option_order else ""
        writer.writerow([answer.question_key, answer.model, answer.repeat, answer.condition, answer.output, order])
    return out.getvalue()


def _checks(answers, benchmark_name: str | None) -> list[str]:
    problems = [f"{a.sample}: epoch {a.repeat + 1} is beyond {MAX_REPEATS}" for a in answers
                if a.repeat >= MAX_REPEATS]
    if benchmark_name is not None:
        benchmark = Benchmark.objects.filter(name=benchmark_name).first()
        if benchmark is None:
            return problems + [f"no benchmark named {benchmark_name!r}"]
        keys = sorted({a.question_key for a in answers})
        elsewhere = set()
        for start in range(0, len(keys), 2000):
            elsewhere |= set(Question.objects.filter(key__in=keys[start:start + 2000])
                             .exclude(benchmark=benchmark).values_list("key", flat=True))
        problems += [f"{a.sample}: question {a.question_key!r} is not in benchmark {benchmark_name}"
                     for a in answers if a.question_key in elsewhere]
    return problems


def import_inspect_log(path: str | Path, benchmark_name: str | None = None, imported_by=None,
                       progress=None) -> InspectImport:
    """An Inspect eval log's answers as an imported run of the benchmark their questions
    belong to (the sample's metadata.question_key, else its id, is the question's key;
    its epoch - 1 the repeat; metadata.condition the condition, else default). Atomic:
    any problem and nothing is written; samples that ended in an error carry no answer and
    are skipped, named. The model is registered as an external model under a slug of
    Inspect's model name ('openai-api/fake/fake' -> 'openai-api-fake-fake')."""
    try:
        log = inspect_log.read_log(path)
    except LogError as exc:
        return InspectImport(None, 0, [f"file: {exc}"])
    answers = log.answers
    model = inspect_log.model_slug(log.model, LLMModel._meta.get_field("name").max_length)
    for answer in answers:
        answer.model = model
    problems = log.problems + _checks(answers, benchmark_name)
    if problems:
        return InspectImport(None, 0, problems, log.skipped, model)
    if not answers:
        return InspectImport(None, 0, ["file: the log has no answered samples"], log.skipped, model)

    def sample_of(match: re.Match) -> str:
        index = int(match.group(1)) - 2  # line 1 is the CSV's header
        return answers[index].sample if 0 <= index < len(answers) else match.group(0)

    with transaction.atomic():
        result = run_services.import_responses(_answers_csv(answers), imported_by=imported_by, progress=progress)
        if result.run is None:
            return InspectImport(None, 0, [re.sub(r"^line (\d+)", sample_of, p) for p in result.problems],
                                 log.skipped, model)
        _add_what_the_log_carries(result.run, answers, log.model)
    return InspectImport(result.run, result.created, [], log.skipped, model)


def _add_what_the_log_carries(run: Run, answers, inspect_model: str) -> None:
    """The messages sent, token usage, time and stop reason of each imported answer, and
    Inspect's own model name as the resolved model (the CSV path carries none of these)."""
    by_unit = {(a.question_key, a.condition, a.repeat): a for a in answers}
    responses = list(Response.objects.filter(run=run).select_related("question", "condition"))
    for response in responses:
        answer = by_unit[(response.question.key, response.condition.name, response.repeat)]
        response.messages = answer.messages
        response.prompt_tokens, response.completion_tokens = answer.prompt_tokens, answer.completion_tokens
        response.latency_ms = answer.latency_ms
        response.finish_reason = (answer.finish_reason or "")[:40]
        response.resolved_model = inspect_model[:200]
    Response.objects.bulk_update(responses, ["messages", "prompt_tokens", "completion_tokens", "latency_ms",
                                             "finish_reason", "resolved_model"], batch_size=2000)
    run.note = f"imported from an Inspect eval log ({inspect_model})"[:200]
    run.save(update_fields=["note"])


# --- a benchmark as an Inspect task ----------------------------------------------------

@dataclass
class TaskExport:
    dataset: Path
    module: Path
    questions: int
    follow_ups_left_out: int


def write_inspect_task(benchmark: Benchmark, out: str | Path, condition_name: str = "default") -> TaskExport:
    """The benchmark's current questions as an Inspect task in the folder `out` (a
    dataset file and a task module, formats_app.inspect_task). A question asked only as
    a follow-up of another's answer (the free-form move 2) needs that answer in its
    prompt, which a dataset cannot hold: left out, counted."""
    condition = Condition.objects.filter(name=condition_name).first()
    if condition is None:
        names = ", ".join(Condition.objects.order_by("position", "name").values_list("name", flat=True))
        raise ExportError(f"no condition named {condition_name!r} (conditions: {names})")
    family = families.family(benchmark.family)
    questions = list(current_questions(benchmark).select_related("benchmark").order_by("key"))
    follow_ups = set()
    if family.follow_ups is not None:
        for question in questions:
            follow_ups.update(family.follow_ups(question))
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    dataset = out / inspect_task.DATASET_FILE
    count = 0
    with open(dataset, "w", encoding="utf-8") as handle:
        for question in questions:
            if question.pk in follow_ups or not family.applies(question, condition):
                continue
            order = list(range(len(question.options or [])))
            messages = render_messages(question, order, condition)
            metadata = {"question_key": question.key, "condition": condition.name, "benchmark": benchmark.name,
                        "family": benchmark.family, "language": question.language,
                        **families.sample_metadata(question, benchmark.family)}
            handle.write(inspect_task.record(key=question.key, messages=messages, text=question.text,
                                             choices=question.option_texts() if question.options else None,
                                             metadata=metadata) + "\n")
            count += 1
    name, source = inspect_task.task_module(benchmark=benchmark.name, title=benchmark.title, count=count,
                                            condition=condition.name)
    module = out / name
    module.write_text(source, encoding="utf-8")
    return TaskExport(dataset, module, count, len(follow_ups & {q.pk for q in questions}))
