"""Every Eval Ever records of a run (formats_app.eval_records) from the database: the
headline figures its family publishes to the results layer (analysis_app.headlines; the
figures that rest on this run), each code's share, and one record per answer."""

from __future__ import annotations

import json
from pathlib import Path

from django.utils import timezone

from analysis_app import headlines
from encoding_app.models import Code
from runs_app.models import LLMModel, Response, Run

from . import eval_records
from .eval_records import HeadlineFigure, InstanceAnswer


def _figures(run: Run, model: LLMModel) -> list[HeadlineFigure]:
    publisher = headlines.publisher(run.benchmark.family)
    if publisher is None:
        return []
    figures = []
    for figure in publisher.publish([model.name]):
        if figure.model != model.name or figure.benchmark != run.benchmark.name or run.pk not in figure.runs:
            continue
        figures.append(HeadlineFigure(metric=figure.metric, label=figure.label, estimate=figure.estimate,
                                      ci_low=figure.ci_low, ci_high=figure.ci_high, n=figure.n, unit=figure.unit,
                                      direction=figure.direction, condition=figure.condition,
                                      runs=tuple(figure.runs)))
    return figures


def _answers(run: Run, model: LLMModel) -> list[InstanceAnswer]:
    responses = list(Response.objects.answers().filter(run=run, model=model)
                     .filter(status__in=[Response.Status.DONE, Response.Status.FAILED])
                     .select_related("question", "condition").order_by("question__key", "condition__name", "repeat"))
    rules = dict(Code.objects.filter(response__in=[r.pk for r in responses], is_current=True)
                 .values_list("response_id", "rule")) if responses else {}
    answers = []
    for response in responses:
        question = response.question
        texts = question.option_texts() if question.options else []
        order = list(response.option_order or range(len(texts)))
        index = "ABCDEFGHIJ".find(response.code) if response.code and response.code != "R" else -1
        users = [m.get("content", "") for m in (response.messages or []) if m.get("role") == "user"]
        answers.append(InstanceAnswer(
            question_key=question.key, condition=response.condition.name, repeat=response.repeat,
            prompt=str(users[-1]) if users else question.text, messages=response.messages or [],
            choices=[texts[i] for i in order if i < len(texts)], output=response.raw_output, code=response.code,
            code_source=" / ".join(filter(None, [response.code_source, rules.get(response.pk, "")])),
            chosen_text=texts[index] if 0 <= index < len(texts) else "", prompt_tokens=response.prompt_tokens,
            completion_tokens=response.completion_tokens, latency_ms=response.latency_ms,
            error=response.error_message, extra={"run": str(run.pk), "response_id": str(response.pk)}))
    return answers


_GENERATION_ARGS = ("temperature", "top_p", "top_k", "max_tokens")  # the schema's generation_args we hold


def _generation(run: Run, model: LLMModel) -> dict | None:
    """The sampling settings the model's answers were asked with (`Response.params`), when
    all share them: Every Eval Ever's `generation_config`. None for imported answers (the
    tool asked nothing) or settings that differ within the run."""
    seen = set()
    for params in (Response.objects.answers().filter(run=run, model=model).exclude(params={})
                   .values_list("params", flat=True).distinct().iterator()):
        seen.add(json.dumps({k: params.get(k) for k in _GENERATION_ARGS if params.get(k) is not None},
                            sort_keys=True))
        if len(seen) > 1:
            break
    if len(seen) != 1:
        return None
    return json.loads(seen.pop()) or None


def write_eval_records(run: Run, out: str | Path) -> list[Path]:
    """The records of each model of the run under the folder `out` (data/… as the
    Every Eval Ever datastore files them); the paths written, aggregates and companions."""
    out = Path(out)
    written = []
    now = timezone.now()
    for model in run.llm_models.order_by("name"):
        deployment = "self_deployed" if model.is_bundled or model.api_base else (
            "unknown" if model.is_external else "externally_managed")
        files = eval_records.build_records(
            benchmark=run.benchmark.name, family=run.benchmark.family, run_id=run.pk, model_name=model.name,
            litellm_model="" if model.is_external else model.litellm_model, deployment=deployment,
            figures=_figures(run, model), answers=_answers(run, model), evaluated_at=run.finished_at,
            retrieved_at=now, generation=_generation(run, model))
        aggregate = out / files.aggregate_path
        aggregate.parent.mkdir(parents=True, exist_ok=True)
        aggregate.write_text(json.dumps(files.aggregate, ensure_ascii=False, allow_nan=False, indent=1),
                             encoding="utf-8")
        written.append(aggregate)
        if files.samples:
            samples = out / files.samples_path
            samples.write_text(files.samples_text(), encoding="utf-8")
            written.append(samples)
    return written
