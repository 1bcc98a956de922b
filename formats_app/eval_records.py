"""Every Eval Ever records (schema 0.3.0) of one model's answers in one run (pure: no
Django): the aggregate record (`<uuid>.json`: the run's headline figures from the results
layer, and each code's share of the coded answers) and its companion of per-answer
records (`<uuid>_samples.jsonl`), filed where that project's datastore files them:
`data/<benchmark>/<developer>/<model>/`.

What the schema cannot say of ours: these questions have no right answer, so an
answer's `evaluation.is_correct` is always false and its `score` is 1 when the answer
was coded as one of the options, 0 for a refusal or an answer not coded yet; the code
itself (A-J, R), how it was coded and the option's text ride in the record's metadata
and its `answer_attribution`.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import uuid
from dataclasses import dataclass, field
from datetime import datetime

SCHEMA_VERSION = "0.3.0"
PRODUCER = "cfpd-workbench"
CODE_SHARE = "code share"
# A figure's unit -> the bounds of its score (`metric_config.min_score` / `max_score`).
_BOUNDS = {"share": (0, 1), "percent": (0, 100), "score": ("-Infinity", "Infinity")}
_UNSAFE = re.compile(r'[<>:"\\|?*\x00-\x1f/]')


@dataclass
class HeadlineFigure:
    """A results-layer figure (analysis_app.results.Figure), as plain values."""

    metric: str
    label: str
    estimate: float | None
    ci_low: float | None
    ci_high: float | None
    n: int
    unit: str
    direction: str
    condition: str
    runs: tuple[int, ...]


@dataclass
class InstanceAnswer:
    question_key: str
    condition: str
    repeat: int
    prompt: str  # the last user turn
    messages: list[dict]
    choices: list[str]
    output: str
    code: str  # "" not coded; R a refusal; A-J the canonical option
    code_source: str
    chosen_text: str
    prompt_tokens: int | None
    completion_tokens: int | None
    latency_ms: int | None
    error: str = ""
    extra: dict = field(default_factory=dict)


def _component(text: str) -> str:
    cleaned = _UNSAFE.sub("_", text.strip()).rstrip(". ") or "model"
    return cleaned


def model_identity(litellm_model: str, name: str) -> tuple[str, str, str, str]:
    """(id, developer, developer folder, model folder): the id is the provider's model
    string where it names a provider ('openai/gpt-4o' -> folder openai/gpt-4o), else the
    registered name under the developer 'unattributed' (imported answers name no developer)."""
    model_id = litellm_model if "/" in (litellm_model or "") else ""
    parts = [p for p in model_id.split("/") if p] if model_id else []
    if len(parts) >= 2:
        return model_id, parts[0], _component(parts[0]), "_".join(_component(p) for p in parts[1:])
    developer = "unattributed"
    return f"{developer}/{name}", developer, developer, _component(name)


def _finite(value) -> float | None:
    return float(value) if value is not None and math.isfinite(float(value)) else None


def _strings(values: dict) -> dict[str, str]:
    return {k: v if isinstance(v, str) else json.dumps(v) for k, v in values.items() if v is not None}


def headline_result(figure: HeadlineFigure, benchmark: str, family: str) -> dict | None:
    """One `evaluation_results` entry for a figure (None when it has no estimate)."""
    estimate = _finite(figure.estimate)
    if estimate is None:
        return None
    low, high = _BOUNDS.get(figure.unit, _BOUNDS["score"])
    name = figure.label + (f" ({figure.condition})" if figure.condition else "")
    score = {"score": estimate, "details": _strings({"condition": figure.condition or "default",
                                                     "runs": ",".join(map(str, figure.runs)), "unit": figure.unit})}
    uncertainty: dict = {"num_samples": int(figure.n)}
    lo, hi = _finite(figure.ci_low), _finite(figure.ci_high)
    if lo is not None and hi is not None:
        uncertainty["confidence_interval"] = {"lower": lo, "upper": hi, "confidence_level": 0.95,
                                              "method": "percentile bootstrap over the figure's units"}
    score["uncertainty"] = uncertainty
    return {
        "evaluation_result_id": f"{figure.metric}:{figure.condition or 'default'}",
        "evaluation_name": name,
        "source_data": {"dataset_name": benchmark, "source_type": "other",
                        "additional_details": {"family": family, "producer": PRODUCER}},
        "metric_config": {"evaluation_description": figure.label, "metric_id": figure.metric,
                          "metric_name": figure.label, "metric_unit": figure.unit,
                          "lower_is_better": figure.direction == "lower", "score_type": "continuous",
                          "min_score": low, "max_score": high},
        "score_details": score,
    }


def code_share_results(answers: list[InstanceAnswer], benchmark: str, family: str) -> list[dict]:
    """Each code's share of the coded answers (A-J an option, R a refusal)."""
    coded = [a.code for a in answers if a.code]
    results = []
    for code in sorted(set(coded)):
        share = coded.count(code) / len(coded)
        results.append({
            "evaluation_result_id": f"code-share:{code}",
            "evaluation_name": f"{CODE_SHARE} {code}",
            "source_data": {"dataset_name": benchmark, "source_type": "other",
                            "additional_details": {"family": family, "producer": PRODUCER}},
            "metric_config": {"evaluation_description": f"share of the coded answers coded {code} "
                                                        "(A-J: the canonical option; R: a refusal)",
                              "metric_id": f"code_share_{code}", "metric_name": f"share coded {code}",
                              "metric_unit": "share", "lower_is_better": False, "score_type": "continuous",
                              "min_score": 0, "max_score": 1},
            "score_details": {"score": share, "uncertainty": {"num_samples": len(coded)}},
        })
    return results


def instance_record(answer: InstanceAnswer, *, evaluation_id: str, model_id: str) -> dict:
    record = {
        "schema_version": SCHEMA_VERSION, "evaluation_id": evaluation_id, "model_id": model_id,
        "evaluation_name": "coded answer",
        "sample_id": f"{answer.question_key}|{answer.condition}|{answer.repeat}",
        "sample_hash": hashlib.sha256(json.dumps(answer.messages, sort_keys=True).encode()).hexdigest(),
        "interaction_type": "single_turn",
        "input": {"raw": answer.prompt, "formatted": json.dumps(answer.messages, ensure_ascii=False),
                  "reference": [], "choices": answer.choices or None},
        "output": {"raw": [answer.output]},
        "answer_attribution": ([{"turn_idx": 0, "source": "output.raw", "extracted_value": answer.code,
                                 "extraction_method": answer.code_source or "coded", "is_terminal": True}]
                               if answer.code else []),
        # No right answer: 1 = the answer was coded as one of the options.
        "evaluation": {"score": 1.0 if answer.code and answer.code != "R" else 0.0, "is_correct": False,
                       "num_turns": 1},
        "metadata": _strings({"question_key": answer.question_key, "condition": answer.condition,
                              "repeat": str(answer.repeat), "code": answer.code, "code_source": answer.code_source,
                              "chosen_text": answer.chosen_text, **answer.extra}),
    }
    if answer.prompt_tokens is not None or answer.completion_tokens is not None:
        inputs, outputs = answer.prompt_tokens or 0, answer.completion_tokens or 0
        record["token_usage"] = {"input_tokens": inputs, "output_tokens": outputs, "total_tokens": inputs + outputs}
    if answer.latency_ms is not None:
        record["performance"] = {"latency_ms": answer.latency_ms}
    if answer.error:
        record["error"] = answer.error
    return record


@dataclass
class RecordFiles:
    aggregate_path: str  # relative to the output folder: data/<benchmark>/<developer>/<model>/<uuid>.json
    aggregate: dict
    samples_path: str
    samples: list[dict]

    def samples_text(self) -> str:
        return "".join(json.dumps(s, ensure_ascii=False, allow_nan=False) + "\n" for s in self.samples)


def build_records(*, benchmark: str, family: str, run_id: int, model_name: str, litellm_model: str,
                  deployment: str, figures: list[HeadlineFigure], answers: list[InstanceAnswer],
                  evaluated_at: datetime | None, retrieved_at: datetime, generation: dict | None = None,
                  record_uuid: str | None = None) -> RecordFiles:
    model_id, developer, developer_folder, model_folder = model_identity(litellm_model, model_name)
    record_uuid = record_uuid or str(uuid.uuid4())
    retrieved = str(int(retrieved_at.timestamp()))
    evaluation_id = f"{benchmark}/{model_id}/{retrieved}"
    folder = f"data/{_component(benchmark)}/{developer_folder}/{model_folder}"
    samples_path = f"{folder}/{record_uuid}_samples.jsonl"
    samples = [instance_record(a, evaluation_id=evaluation_id, model_id=model_id) for a in answers]
    results = [r for f in figures if (r := headline_result(f, benchmark, family)) is not None]
    results += code_share_results(answers, benchmark, family)
    if generation:
        for result in results:
            result["generation_config"] = {"generation_args": generation}
    aggregate = {
        "schema_version": SCHEMA_VERSION,
        "evaluation_id": evaluation_id,
        "retrieved_timestamp": retrieved,
        "source_metadata": {"source_name": "CFPD Workbench", "source_type": "evaluation_run",
                            "source_organization_name": "CFPD Workbench", "evaluator_relationship": "third_party",
                            "additional_details": {"run": str(run_id), "benchmark": benchmark, "family": family}},
        "eval_library": {"name": PRODUCER, "version": "unknown"},
        "model_info": {"name": model_name, "id": model_id, "developer": developer,
                       "additional_details": {"deployment_type": deployment, "model_availability": "unknown"}},
        "evaluation_results": results,
    }
    if evaluated_at is not None:
        aggregate["evaluation_timestamp"] = evaluated_at.isoformat()
    if samples:
        aggregate["detailed_evaluation_results"] = {
            "format": "jsonl", "file_path": samples_path, "total_rows": len(samples)}
    return RecordFiles(f"{folder}/{record_uuid}.json", aggregate, samples_path, samples)
