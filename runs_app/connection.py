"""Test connection: the workflows that find out what a model's server supports and keep it
on the model (`LLMModel.capabilities`, `capabilities_checked_at`), and the launch's checks
that read it. The page, the console's action, the API and `manage.py test_connection`
call these; the probing itself is the gateway's (`gateway.probe`, no Django), its reading
`gateway.capabilities` (pure).

A test is a job kept in `capabilities` itself: {"status": queued | running | done |
failed, "job": its token, "requested_at", "started_at", "finished_at", "step", "done",
"total", "findings", "recommended", "probed", "error"}. The findings of the last finished
test stay while a new one runs. A worker claims a queued job by its token with a
conditional update, so a job sent twice is run once, and a job replaced by a newer one
writes nothing.
"""

from __future__ import annotations

import logging
import uuid
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

import gateway
from gateway import capabilities

from . import queueing
from .models import LLMModel

TASK = "runs_app.tasks.connection_test"  # runs_app.tasks registers its task under this name
STALE_AFTER = timedelta(minutes=15)  # a queued or running job older than this (and than every request timing out) has no worker


class ConnectionTestRefused(ValueError):
    """A model that cannot be tested (imported answers only); the message says why."""


def _now_text() -> str:
    return timezone.now().isoformat()


def _testable(model: LLMModel):
    if model.is_external:
        raise ConnectionTestRefused(f"{model.name} only holds imported answers: it has no server to test")
    if not model.litellm_model:
        raise ConnectionTestRefused(f"{model.name} has no LiteLLM model string to call")


def request_connection_test(model: LLMModel) -> dict:
    """Queue a connection test of `model` for a worker (off the request thread); the job's
    state as stored. A test already queued or running recently is returned, not doubled."""
    _testable(model)
    with transaction.atomic():
        model = LLMModel.objects.select_for_update().get(pk=model.pk)
        state = dict(model.capabilities or {})
        if state.get("status") in ("queued", "running") and not is_stale(state, model.timeout_seconds):
            return state
        job = uuid.uuid4().hex
        # What a batch send found (no /batches: provider_batch._refused) is found out again.
        state.pop("batch", None)
        state.pop("batch_message", None)
        state.update(status="queued", job=job, requested_at=_now_text(), started_at=None, finished_at=None,
                     step="waiting for a worker", done=0, total=gateway.PROBE_STEPS, error="")
        LLMModel.objects.filter(pk=model.pk).update(capabilities=state)
        transaction.on_commit(lambda: queueing.publish(TASK, [model.pk, job], **queueing.routing_of_model(model.pk)))
    return state


def is_stale(state: dict, timeout_seconds: int = 0) -> bool:
    """A queued or running job that no worker can still be working on: older than
    STALE_AFTER and than every one of its requests timing out in turn."""
    moment = state.get("started_at") or state.get("requested_at")
    if not moment:
        return True
    limit = max(STALE_AFTER, timedelta(seconds=(gateway.PROBE_STEPS + 2) * (timeout_seconds or 0)))
    try:
        return timezone.now() - datetime.fromisoformat(moment) > limit
    except (TypeError, ValueError):
        return True


def _write(model_id: int, job: str, state: dict) -> bool:
    """Write the job's state if the job is still the model's own (a newer test replaces it)."""
    return bool(LLMModel.objects.filter(pk=model_id, capabilities__job=job).update(capabilities=state))


def test_connection(model: LLMModel, job: str | None = None) -> dict:
    """Run the connection test of `model` now, in this process (a worker's task, or
    `manage.py test_connection`), and store what it found on the model. With `job`, only
    that queued job is run (claimed once); without, a new job is made. Returns the state
    stored, or {} when the job was no longer the model's to run."""
    _testable(model)
    started = _now_text()
    if job is None:
        job = uuid.uuid4().hex
        state = {**(model.capabilities or {}), "status": "running", "job": job, "requested_at": started}
        LLMModel.objects.filter(pk=model.pk).update(capabilities=state)
    else:
        claimed = LLMModel.objects.filter(pk=model.pk, capabilities__job=job, capabilities__status="queued")
        model = claimed.first()
        if model is None:
            return {}
        state = {**model.capabilities, "status": "running"}
        if not claimed.update(capabilities=state):
            return {}  # another worker claimed it between the read and the update
    state.update(started_at=started, finished_at=None, step="", done=0, total=gateway.PROBE_STEPS, error="")
    _write(model.pk, job, state)

    def progress(step: str, done: int, total: int):
        state.update(step=step, done=done, total=total)
        _write(model.pk, job, state)

    if model.is_bundled:
        gateway.configure_local(settings.CFPD_MODELS_DIR, settings.CFPD_LOCAL_THREADS)
    target = gateway.Target(model=model.litellm_model,
                            api_base=None if model.is_bundled else (model.api_base or None),
                            timeout=model.timeout_seconds, top_logprobs=model.top_logprobs)
    try:
        found = gateway.probe(target, progress)
    except Exception as exc:  # the probe's own failure (not a refusal, which is a finding): recorded, not raised
        logging.getLogger(__name__).exception("connection test of %s failed", model.name)
        state.update(status="failed", finished_at=_now_text(), step="", error=f"{type(exc).__name__}: {exc}"[:500])
        _write(model.pk, job, state)
        return state
    finished = timezone.now()
    state.update(found, status="done", finished_at=finished.isoformat(), step="", done=gateway.PROBE_STEPS)
    if LLMModel.objects.filter(pk=model.pk, capabilities__job=job).update(capabilities=state,
                                                                         capabilities_checked_at=finished):
        return state
    return {}


def use_found_strategy(model: LLMModel) -> str:
    """Set the model's choice strategy to the one its last connection test found to work
    (guided choice, then grammar, then log-probabilities); the strategy now set. Raises
    ConnectionTestRefused when the test found none, or none was run."""
    found = ((model.capabilities or {}).get("recommended") or {}).get("choice")
    if not found:
        raise ConnectionTestRefused(f"the last connection test of {model.name} found no choice strategy that works "
                                    "on its server" if model.capabilities.get("findings") else
                                    f"{model.name}'s connection has not been tested")
    LLMModel.objects.filter(pk=model.pk).update(choice_strategy=found)
    model.choice_strategy = found
    return found


# --- what the pages and the launch read ------------------------------------------------------

def checked_at_text(model: LLMModel) -> str:
    if not model.capabilities_checked_at:
        return ""
    return timezone.localtime(model.capabilities_checked_at).strftime("%Y-%m-%d %H:%M")


def facts(model: LLMModel) -> capabilities.ModelFacts:
    return capabilities.ModelFacts(
        name=model.name, endpoint=model.api_base or model.litellm_model, mode=model.answer_mode,
        strategy=model.choice_strategy, temperature=model.temperature, capabilities=model.capabilities or {},
        checked_at=checked_at_text(model), bundled=model.is_bundled)


def launch_checks(models) -> list[dict]:
    """The launch's verdict per model, from what its last connection test found:
    [{"model", "level" (refuse, warn, note), "text", "never_probed", "url" (its Test
    connection page)}]."""
    checks = []
    for model in models:
        check = capabilities.mode_check(facts(model))
        if check is not None:
            checks.append({"model": model.name, "level": check.level, "text": check.text,
                           "never_probed": check.never_probed,
                           "url": reverse("run-model-connection", args=[model.pk])})
    return checks


def refusals(models) -> list[str]:
    """The reasons a launch cannot ask these models in their modes (a refusal per model)."""
    return [check["text"].rstrip(".") for check in launch_checks(models) if check["level"] == "refuse"]


def job_view(model: LLMModel) -> dict:
    """The job and its findings as the page, its progress poll and the API show them."""
    state = model.capabilities or {}
    findings = state.get("findings") or {}
    rows = [{"key": key, "label": capabilities.LABELS[key], **findings[key]}
            for key in capabilities.FINDINGS if key in findings]
    status = state.get("status") or "never"
    stale = status in ("queued", "running") and is_stale(state, model.timeout_seconds)
    return {
        "model": model.name, "model_id": model.pk, "status": status, "stale": stale,
        "active": status in ("queued", "running") and not stale,
        "step": state.get("step") or "", "done": state.get("done") or 0,
        "total": state.get("total") or gateway.PROBE_STEPS,
        "requested_at": state.get("requested_at"), "started_at": state.get("started_at"),
        "finished_at": state.get("finished_at"), "checked_at": checked_at_text(model),
        "error": state.get("error") or "", "findings": rows, "recommended": state.get("recommended") or {},
        "probed": state.get("probed") or {},
    }
