"""Inspect AI eval logs, written and read without Inspect installed (pure: no Django).

Writing: one log per (run, model), in Inspect's log format (version 2), the one its
`read_eval_log` reads and `inspect view` shows: as JSON (`build_log`), or as `.eval`, Inspect's
default (`write_eval_archive`: the same header and samples as members of a zip). One sample
per answer:

- `id` the question's key (with `@condition` when the run asked under several
  conditions, since Inspect keys a sample by (id, epoch)), `epoch` the repeat + 1;
- `input` the chat messages the model was sent, `choices` the options in the order they
  were lettered for that answer, `target` "" (the questions have no right answer);
- `output` the model's text with its stop reason, token usage and time;
- `scores["code"]`: the answer's code (the canonical option's letter A…J, or R for a
  refusal) as the value, the letter the model saw as `answer`, how it was coded (source,
  rule, confidence, note) in the score's metadata;
- `metadata`: question key, condition, repeat, run, model, the shown order, the chosen
  letter, and the family's own fields (`Family.sample_metadata`).

Reading (`read_log`): an Inspect log as JSON (`--log-format json`) or as `.eval` (the zip
Inspect writes by default: `header.json` + `samples/*.json`), into plain answer rows
(question key, model, condition, repeat, output, messages, usage, time) and the problems
found, one per sample; no row is guessed.
"""

from __future__ import annotations

import json
import re
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

LOG_VERSION = 2
SCORER = "code"
PRODUCER = "cfpd-workbench"
# Inspect's StopReason values; OpenAI's "length" is Inspect's "max_tokens".
_STOP_REASONS = {"stop": "stop", "length": "max_tokens", "tool_calls": "tool_calls",
                 "content_filter": "content_filter", "max_tokens": "max_tokens", "model_length": "model_length"}
_ROLES = {"system", "user", "assistant", "tool"}
MAX_SAMPLES = 1_000_000  # a larger log is refused before anything is built


@dataclass
class Answer:
    """One answer as the writer takes it (plain values)."""

    question_key: str
    condition: str
    repeat: int
    messages: list[dict]
    output: str
    choices: list[str] | None = None  # option texts in the order lettered for this answer
    finish_reason: str = ""
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency_ms: int | None = None
    answered_at: datetime | None = None
    error: str = ""
    code: str = ""
    presented_letter: str = ""
    code_metadata: dict = field(default_factory=dict)
    metadata: dict = field(default_factory=dict)


def _iso(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).isoformat()


def _usage(prompt_tokens: int | None, completion_tokens: int | None) -> dict | None:
    if prompt_tokens is None and completion_tokens is None:
        return None
    inputs, outputs = prompt_tokens or 0, completion_tokens or 0
    return {"input_tokens": inputs, "output_tokens": outputs, "total_tokens": inputs + outputs}


def _message(message: dict) -> dict:
    role = message.get("role") if message.get("role") in _ROLES else "user"
    content = message.get("content")
    return {"role": role, "content": content if isinstance(content, str) else json.dumps(content)}


def sample_id(answer: Answer, several_conditions: bool) -> str:
    return f"{answer.question_key}@{answer.condition}" if several_conditions else answer.question_key


def build_sample(answer: Answer, model: str, several_conditions: bool) -> dict:
    """One Inspect sample (a dict in the log's JSON shape) for one answer."""
    messages = [_message(m) for m in answer.messages]
    assistant = {"role": "assistant", "content": answer.output, "source": "generate", "model": model}
    usage = _usage(answer.prompt_tokens, answer.completion_tokens)
    seconds = answer.latency_ms / 1000 if answer.latency_ms is not None else None
    output: dict[str, Any] = {"model": model, "choices": [], "completion": answer.output}
    if not answer.error:
        output["choices"] = [{"message": assistant,
                              "stop_reason": _STOP_REASONS.get(answer.finish_reason, "unknown")}]
        messages = messages + [assistant]
    if usage:
        output["usage"] = usage
    if seconds is not None:
        output["time"] = seconds
    sample: dict[str, Any] = {
        "id": sample_id(answer, several_conditions), "epoch": answer.repeat + 1, "input": [_message(m) for m in
                                                                                            answer.messages],
        "target": "", "messages": messages, "output": output,
        "metadata": {"question_key": answer.question_key, "condition": answer.condition, "repeat": answer.repeat,
                     **answer.metadata},
        "model_usage": {model: usage} if usage else {},
    }
    if answer.choices is not None:
        sample["choices"] = list(answer.choices)
    if answer.code:
        sample["scores"] = {SCORER: {"value": answer.code, "answer": answer.presented_letter or None,
                                     "explanation": answer.code_metadata.get("reason") or None,
                                     "metadata": answer.code_metadata}}
    completed = answer.answered_at
    if completed is not None:
        sample["completed_at"] = _iso(completed)
        if seconds is not None:
            sample["started_at"] = _iso(completed - timedelta(seconds=seconds))
            sample["total_time"] = sample["working_time"] = round(seconds, 3)
    if answer.error:
        sample["error"] = {"message": answer.error, "traceback": "", "traceback_ansi": ""}
    return sample


def _code_metrics(answers: list[Answer]) -> dict:
    """The share of coded answers with each code: Inspect shows these as the scorer's metrics."""
    coded = [a.code for a in answers if a.code]
    metrics = {"coded": {"name": "coded", "value": len(coded), "params": {}}}
    for code in sorted(set(coded)):
        name = f"share_{code}"
        metrics[name] = {"name": name, "value": round(coded.count(code) / len(coded), 6), "params": {}}
    return metrics


def build_log(*, task: str, model: str, answers: list[Answer], run_id: int, created: datetime,
              started: datetime | None, finished: datetime | None, status: str = "success",
              repeats: int = 1, metadata: dict | None = None, producer_version: str = "") -> dict:
    """An Inspect eval log (version 2) of one model's answers in one run, as a dict ready
    for json.dump. `status` is Inspect's: success, started, cancelled or error."""
    several = len({a.condition for a in answers}) > 1
    samples = [build_sample(a, model, several) for a in answers]
    sample_ids = list(dict.fromkeys(s["id"] for s in samples))
    usage: dict[str, int] = {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}
    for sample in samples:
        for key, value in (sample["model_usage"].get(model) or {}).items():
            usage[key] += value
    stamp = _iso(created)
    log = {
        "version": LOG_VERSION,
        "status": status,
        "eval": {
            "eval_id": f"cfpd-run-{run_id}-{_slug(model)}", "run_id": f"cfpd-run-{run_id}",
            "created": stamp, "task": task, "task_id": f"cfpd-{task}", "task_version": 0,
            "task_display_name": task, "task_attribs": {}, "task_args": {}, "task_args_passed": {},
            "dataset": {"name": task, "samples": len(sample_ids), "sample_ids": sample_ids, "shuffled": False},
            "model": model, "model_generate_config": {}, "model_args": {},
            # The epochs the samples carry: a run asked with fewer repeats than it was set
            # up with (choice mode asks once) would otherwise read "12.6 x 5 samples".
            "config": {"epochs": max([a.repeat + 1 for a in answers] or [repeats, 1]), "log_samples": True},
            "packages": {PRODUCER: producer_version or "unknown"},
            "scorers": [{"name": SCORER, "options": {}, "metrics": [], "metadata": {}}],
            "metadata": {"producer": PRODUCER, "run": run_id, **(metadata or {})},
        },
        "plan": {"name": "plan", "steps": [{"solver": f"{PRODUCER}/ask", "params": {}, "params_passed": {}}],
                 "config": {}},
        "results": {
            "total_samples": len(samples), "completed_samples": sum(1 for a in answers if not a.error),
            "scores": [{"name": SCORER, "scorer": SCORER, "scored_samples": sum(1 for a in answers if a.code),
                        "unscored_samples": sum(1 for a in answers if not a.code), "params": {},
                        "metrics": _code_metrics(answers)}],
        },
        "stats": {"started_at": _iso(started) or stamp, "completed_at": _iso(finished) or "",
                  "model_usage": {model: usage} if usage["total_tokens"] else {}},
        "tags": [PRODUCER],
        "metadata": {},
        "samples": samples,
    }
    return log


def _json_bytes(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode("utf-8")


def _sample_summary(sample: dict) -> dict:
    """What Inspect's `EvalSample.summary()` keeps of a sample (no messages, no output):
    `inspect view` lists a .eval log's samples from these."""
    summary = {key: sample[key] for key in ("id", "epoch", "input", "choices", "target", "metadata", "scores",
                                            "model_usage", "started_at", "completed_at", "total_time",
                                            "working_time") if key in sample}
    error = sample.get("error")
    summary.update(error=error["message"] if error else None, completed=True,
                   message_count=len(sample.get("messages") or []))
    return summary


def _reductions(samples: list[dict]) -> list[dict]:
    """The code of each question over its epochs, reduced as Inspect's `mode` reducer does
    (the most common; on a tie the first asked), for the samples that carry a code."""
    codes: dict[Any, list[str]] = {}
    for sample in sorted(samples, key=lambda s: s["epoch"]):
        score = (sample.get("scores") or {}).get(SCORER)
        if score is not None:
            codes.setdefault(sample["id"], []).append(score["value"])
    if not codes:
        return []
    return [{"scorer": SCORER, "reducer": "mode",
             "samples": [{"value": Counter(values).most_common(1)[0][0], "sample_id": sample_id}
                         for sample_id, values in codes.items()]}]


def eval_archive_members(log: dict) -> list[tuple[str, bytes]]:
    """(member name, bytes) of `log` (build_log's dict) as Inspect's .eval log, in the order
    its recorder writes them: `_journal/start.json` (version, eval, plan), one
    `samples/{id}_epoch_{n}.json` per sample, `summaries.json`, `reductions.json` (when a
    sample is coded) and last `header.json` (the log without its samples), which is what
    `read_eval_log` reads first."""
    samples = log.get("samples") or []
    header = {key: value for key, value in log.items() if key != "samples"}
    members = [("_journal/start.json", _json_bytes({"version": log["version"], "eval": log["eval"],
                                                   "plan": log["plan"]}))]
    members += [(f"samples/{s['id']}_epoch_{s['epoch']}.json", _json_bytes(s)) for s in samples]
    members.append(("summaries.json", _json_bytes([_sample_summary(s) for s in samples])))
    reductions = _reductions(samples)
    if reductions:
        members.append(("reductions.json", _json_bytes(reductions)))
    members.append(("header.json", _json_bytes(header)))
    return members


def write_eval_archive(log: dict, path: str | Path) -> None:
    """Write `log` as a .eval file. Deflate rather than Inspect's own Zstandard: Inspect
    reads both (its zip reader takes stored, deflate and zstd members) and Python's zipfile
    writes deflate without a patch."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in eval_archive_members(log):
            archive.writestr(name, data)


def log_file_name(*, created: datetime, task: str, run_id: int, model: str) -> str:
    """A file name `inspect view` lists: it shows a .json log only when its name starts
    with an ISO time, and reads `{time}_{task}_{id}` from it (so no '_' inside the parts)."""
    if created.tzinfo is None:
        created = created.replace(tzinfo=timezone.utc)
    stamp = created.astimezone(timezone.utc).strftime("%Y-%m-%dT%H-%M-%S+00-00")
    return f"{stamp}_{_slug(task).replace('_', '-')}_run{run_id}-{_slug(model).replace('_', '-')}.json"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-") or "model"


def model_slug(name: str, limit: int = 80) -> str:
    """A registered model's name (a slug) for an Inspect model string such as
    'openai-api/fake/fake' -> 'openai-api-fake-fake'."""
    return _slug(name)[:limit].strip("-") or "model"


# --- reading -------------------------------------------------------------------------

class LogError(ValueError):
    """The file is not an Inspect eval log this reader can read (the message says why)."""


@dataclass
class ImportedAnswer:
    sample: str  # how the problems name it: "sample <id> epoch <n>"
    question_key: str
    model: str
    condition: str
    repeat: int
    output: str
    messages: list[dict]
    prompt_tokens: int | None
    completion_tokens: int | None
    latency_ms: int | None
    finish_reason: str
    option_order: list[int] | None = None  # the options' canonical indexes in the order shown


@dataclass
class ImportedLog:
    task: str
    model: str
    answers: list[ImportedAnswer]
    problems: list[str]
    skipped: list[str]  # samples that carry no answer (an error), named


ZSTD = 93  # the zip method number of Zstandard (APPNOTE 4.4.5), which Inspect writes
MAX_MEMBER_BYTES = 2 * 1024 ** 3


def _member(archive: zipfile.ZipFile, name: str) -> bytes:
    """A member's bytes; Zstandard members (Inspect's default) inflated with zstandard,
    since Python 3.11's zipfile knows only stored, deflate, bzip2 and lzma."""
    info = archive.getinfo(name)
    if info.compress_type != ZSTD:
        return archive.read(name)
    if info.file_size > MAX_MEMBER_BYTES:
        raise LogError(f"{name}: {info.file_size:,} bytes inflated is more than this reader takes")
    import zstandard

    # The member's data follows its local header (30 bytes, then its name and extra field).
    archive.fp.seek(info.header_offset)
    local = archive.fp.read(30)
    if local[:4] != b"PK\x03\x04":
        raise LogError(f"{name}: a damaged local header")
    skip = int.from_bytes(local[26:28], "little") + int.from_bytes(local[28:30], "little")
    archive.fp.seek(info.header_offset + 30 + skip)
    data = archive.fp.read(info.compress_size)
    try:
        return zstandard.ZstdDecompressor().decompress(data, max_output_size=max(info.file_size, 1))
    except zstandard.ZstdError as exc:
        raise LogError(f"{name}: damaged Zstandard data ({exc})") from None


def _load(path: Path) -> tuple[dict, list[dict]]:
    """(header, samples) of a .json or .eval log."""
    if zipfile.is_zipfile(path):
        try:
            with zipfile.ZipFile(path) as archive:
                names = archive.namelist()
                if "header.json" in names:
                    header = json.loads(_member(archive, "header.json"))
                elif "_journal/start.json" in names:
                    header = json.loads(_member(archive, "_journal/start.json"))
                else:
                    raise LogError("a zip without header.json: not an Inspect .eval log")
                sample_names = sorted(n for n in names if n.startswith("samples/") and n.endswith(".json"))
                if len(sample_names) > MAX_SAMPLES:
                    raise LogError(f"{len(sample_names)} samples: more than {MAX_SAMPLES} are refused")
                samples = [json.loads(_member(archive, name)) for name in sample_names]
        except (zipfile.BadZipFile, UnicodeDecodeError, json.JSONDecodeError, KeyError, ValueError,
                NotImplementedError) as exc:
            raise LogError(f"an unreadable .eval archive ({exc})") from None
        return header, samples
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except UnicodeDecodeError:
        raise LogError("not UTF-8 text, nor an .eval archive") from None
    except json.JSONDecodeError as exc:
        raise LogError(f"not JSON (line {exc.lineno}: {exc.msg})") from None
    if not isinstance(data, dict):
        raise LogError("a JSON log is an object with 'eval' and 'samples'")
    samples = data.get("samples") or []
    if not isinstance(samples, list):
        raise LogError("'samples' is not a list")
    return data, samples


def _resolve(text: Any, attachments: dict) -> Any:
    """Inspect stores long texts once, as 'attachment://<hash>' with the text in the
    sample's attachments."""
    if isinstance(text, str) and text.startswith("attachment://"):
        return attachments.get(text.removeprefix("attachment://"), text)
    return text


def _content_text(content: Any, attachments: dict) -> str:
    content = _resolve(content, attachments)
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # Inspect's content parts: keep the text ones
        return "".join(_resolve(part.get("text", ""), attachments) for part in content
                       if isinstance(part, dict) and part.get("type") == "text")
    return ""


def _role(message: dict) -> str:
    role = message.get("role")
    return role if isinstance(role, str) and role in _ROLES else "user"


def _sent_messages(sample: dict, attachments: dict) -> list[dict]:
    """What the model was sent: the conversation before its last answer (a solver such
    as multiple_choice rewrites the input into its own prompt), else the sample's input."""
    conversation = sample.get("messages")
    if isinstance(conversation, list) and conversation and all(isinstance(m, dict) for m in conversation):
        last = max((i for i, m in enumerate(conversation) if m.get("role") == "assistant"), default=None)
        if last:
            return [{"role": _role(m), "content": _content_text(m.get("content"), attachments)}
                    for m in conversation[:last]]
    given = _resolve(sample.get("input"), attachments)
    if isinstance(given, str):
        return [{"role": "user", "content": given}]
    if isinstance(given, list):
        return [{"role": _role(m), "content": _content_text(m.get("content"), attachments)}
                for m in given if isinstance(m, dict)]
    return []


def _output_text(sample: dict, attachments: dict) -> str:
    output = sample.get("output") or {}
    completion = _resolve(output.get("completion"), attachments)
    if isinstance(completion, str) and completion:
        return completion
    choices = output.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        return _content_text((choices[0].get("message") or {}).get("content"), attachments)
    return ""


def _int_or_none(value) -> int | None:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0 else None


def _shown_order(value: Any) -> list[int] | None:
    """Our own logs' metadata.option_order (the options' canonical indexes in the order
    they were lettered) when it is one; a letter is then coded as the option it named."""
    if isinstance(value, list) and all(isinstance(i, int) and not isinstance(i, bool) for i in value) \
            and sorted(value) == list(range(len(value))):
        return value
    return None


def read_log(path: str | Path) -> ImportedLog:
    """The answers of an Inspect eval log. A sample is keyed on our question by its
    metadata's `question_key`, else by its id (with an `@condition` suffix read as the
    condition when the metadata names none); its repeat is its epoch - 1."""
    header, samples = _load(Path(path))
    spec = header.get("eval") if isinstance(header.get("eval"), dict) else None
    if spec is None or not isinstance(spec.get("model"), str):
        raise LogError("no 'eval' with a 'model': not an Inspect eval log")
    model = spec["model"]
    answers, problems, skipped = [], [], []
    for sample in samples:
        if not isinstance(sample, dict):
            problems.append("a sample that is not an object")
            continue
        raw_id, epoch = sample.get("id"), sample.get("epoch", 1)
        name = f"sample {raw_id!r} epoch {epoch!r}"
        if not isinstance(epoch, int) or isinstance(epoch, bool) or epoch < 1:
            problems.append(f"{name}: epoch must be a whole number >= 1")
            continue
        metadata = sample.get("metadata") if isinstance(sample.get("metadata"), dict) else {}
        key, condition = metadata.get("question_key"), metadata.get("condition")
        if not isinstance(key, str) or not key.strip():
            key = str(raw_id) if raw_id is not None else ""
            if "@" in key and not condition:
                key, condition = key.rsplit("@", 1)
        if not key:
            problems.append(f"{name}: no question key (the sample's id or metadata.question_key)")
            continue
        if sample.get("error"):
            message = sample["error"].get("message") if isinstance(sample["error"], dict) else sample["error"]
            skipped.append(f"{name}: {str(message)[:200]}")
            continue
        attachments = sample.get("attachments") if isinstance(sample.get("attachments"), dict) else {}
        output = sample.get("output") if isinstance(sample.get("output"), dict) else {}
        usage = output.get("usage") if isinstance(output.get("usage"), dict) else {}
        seconds = output.get("time")
        choices = output.get("choices") if isinstance(output.get("choices"), list) else []
        stop = choices[0].get("stop_reason", "") if choices and isinstance(choices[0], dict) else ""
        answers.append(ImportedAnswer(
            sample=name, question_key=key.strip(), model=model,
            condition=(condition.strip() if isinstance(condition, str) and condition.strip() else "default"),
            repeat=epoch - 1, output=_output_text(sample, attachments),
            messages=_sent_messages(sample, attachments),
            prompt_tokens=_int_or_none(usage.get("input_tokens")),
            completion_tokens=_int_or_none(usage.get("output_tokens")),
            latency_ms=round(seconds * 1000) if isinstance(seconds, (int, float)) and seconds >= 0 else None,
            finish_reason={"max_tokens": "length"}.get(stop, stop) if isinstance(stop, str) else "",
            option_order=_shown_order(metadata.get("option_order"))))
    return ImportedLog(task=str(spec.get("task") or ""), model=model, answers=answers, problems=problems,
                       skipped=skipped)
