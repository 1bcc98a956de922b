"""Batch delivery: a run's units asked through the provider's batch interface (OpenAI's,
through LiteLLM's file and batch API: `create_file`, `create_batch`, `retrieve_batch`,
`cancel_batch`, `file_content`), within 24 hours at about half the price. The transport
(the provider's files and batches, its answers read and priced) is the gateway's
(`gateway.batches`); this module keeps which units a batch holds and writes their answers.

A batch run's units are never sent as live messages (`queueing` sends the run a
`provider_batches` message instead). `advance_run` moves a run's batches on, and the
watcher of every worker calls it for every batch run each tick (`advance_all`):

* **take**: in one transaction, a `ProviderBatch` row and up to CFPD_BATCH_MAX_REQUESTS
  of the run's pending units of one model, claimed by a conditional update (pending →
  running, claim token `batch-<id>`, no lease: the sweeps leave them alone);
* **send**: the requests built as the live path builds them (`execution.prepare` →
  `build_request`), one JSONL file (`gateway.batches`), uploaded, the batch created with our
  batch's id in its metadata; ids kept on the row after each step, so a send cut off is
  resumed (a batch already created is found again by its metadata, not created twice);
* **poll**: every CFPD_BATCH_POLL_SECONDS (one poller at a time: a conditional update of
  `polled_at`), `retrieve_batch`; once the batch has ended, **collect**: the output and
  error files read, and every unit still running under the batch's claim written by
  `execution.write_answers`, the live path's one writer (only where the claim still
  holds, so a second collect writes nothing); a line's error classified as the live path
  classifies it (transient: back to pending for a new batch, until CFPD_MAX_ATTEMPTS;
  permanent: failed); units the batch did not answer (expired, cancelled) back to pending,
  or cancelled if their run is; a batch that failed as a whole fails its units with the
  provider's message (the same file would fail again). Then `finished_at` is written once;
* **cancel**: a cancelled run's open batches are cancelled at the provider; what they
  answered before is kept, the rest ends cancelled.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

import gateway
from gateway import batches

from .execution import UNIT_FIELDS, Unit, answer_from_cache, prepare, write_answers
from .models import LLMModel, ProviderBatch, Response, Run
from .transitions import cancel_batch_units, finish_run_if_complete, start_runs, take_for_batch

log = logging.getLogger(__name__)

SUPPORTED_PROVIDERS = batches.SUPPORTED_PROVIDERS
SEND_LEASE = 300  # seconds before a batch whose send was cut off (its worker died) is sent again
WRITE_CHUNK = 500  # units written per `write_answers` call when a batch is collected


def token(batch: ProviderBatch) -> str:
    """The claim its units run under while the batch is open."""
    return f"batch-{batch.pk}"


def provider_of(model: LLMModel) -> str:
    return batches.provider_of(model.litellm_model)


def refusal(model: LLMModel) -> str:
    """Why the model cannot be asked by batch ("" when it can)."""
    if model.is_external:
        return f"{model.name} holds imported answers; it is never called"
    if model.is_bundled:
        return f"{model.name} is a bundled model, computed in the worker: it has no batch interface"
    if model.answer_mode == LLMModel.AnswerMode.RANK:
        return (f"{model.name} is in rank mode, which scores continuations on /v1/completions with echo; batch "
                "delivery sends chat requests only")
    probed = ((model.capabilities or {}).get("findings") or {}).get("batches") or {}
    if probed.get("ok") is False and provider_of(model) in SUPPORTED_PROVIDERS:
        return f"{model.name}'s connection test found no batch interface: {probed.get('summary', '')}"
    if (model.capabilities or {}).get("batch") is False:
        return f"{model.name}'s server has no batch interface: {model.capabilities.get('batch_message', '')}".strip()
    provider = provider_of(model)
    if provider not in SUPPORTED_PROVIDERS:
        return (f"{model.name} is a {provider or 'unknown'} model; batch delivery goes through OpenAI's batch "
                "interface (openai/… models and OpenAI-compatible servers with /v1/batches)")
    return ""


def _connection(model: LLMModel) -> dict:
    """How the gateway reaches the model's batch interface (`batches.connection`)."""
    return batches.connection(model.api_base)


# ------------------------------------------------------------------ moving runs on

def batch_runs() -> list[int]:
    """Runs with batch delivery that may have work: active, cancelled and not finished, or
    holding an open batch."""
    unfinished = Q(status__in=[Run.Status.QUEUED, Run.Status.RUNNING]) | Q(status=Run.Status.CANCELLED,
                                                                        finished_at__isnull=True)
    open_batches = ProviderBatch.objects.filter(finished_at__isnull=True).values("run_id")
    return list(Run.objects.filter(Q(delivery=Run.Delivery.BATCH) & (unfinished | Q(pk__in=open_batches)))
                .values_list("pk", flat=True))


def advance_all() -> int:
    """Every batch run moved on (the watcher's tick). How many runs were looked at."""
    runs = batch_runs()
    for run_id in runs:
        try:
            advance_run(run_id)
        except Exception:  # noqa: BLE001 — one run's provider failing must not stop the others
            log.exception("batch delivery of run %s", run_id)
    return len(runs)


def advance_run(run_id: int):
    """Cancel, poll and collect the run's open batches, then send its pending units."""
    run = Run.objects.filter(pk=run_id).first()
    if run is None or run.delivery != Run.Delivery.BATCH:
        return
    for batch in ProviderBatch.objects.filter(run_id=run_id, finished_at__isnull=True).select_related("model"):
        if run.status == Run.Status.CANCELLED and not batch.cancel_requested:
            cancel(batch)
        poll(batch)
    if run.status in (Run.Status.QUEUED, Run.Status.RUNNING):
        submit_pending(run)


def submit_pending(run: Run) -> list[ProviderBatch]:
    """The run's pending units, each model's in batches of at most CFPD_BATCH_MAX_REQUESTS, sent."""
    sent = []
    for model in run.llm_models.all():
        while (batch := take(run, model)) is not None:
            send(batch)
            sent.append(batch)
    return sent


def take(run: Run, model: LLMModel) -> ProviderBatch | None:
    """A new batch holding up to CFPD_BATCH_MAX_REQUESTS pending units of (run, model),
    claimed in one conditional update (a unit another batch or worker took is not taken);
    None when there are none."""
    now = timezone.now()
    with transaction.atomic():
        ids = list(Response.objects.filter(run_id=run.pk, model_id=model.pk, status=Response.Status.PENDING)
                   .order_by("pk").values_list("pk", flat=True)[:settings.CFPD_BATCH_MAX_REQUESTS])
        if not ids:
            return None
        # polled_at: a poller leaves a batch being sent alone for SEND_LEASE seconds.
        batch = ProviderBatch.objects.create(run=run, model=model, polled_at=now)
        take_for_batch(ids, batch, token(batch))
        size = Response.objects.filter(pk__in=ids, run_id=run.pk, claim_token=token(batch)).count()
        if not size:
            batch.delete()
            return None
        ProviderBatch.objects.filter(pk=batch.pk).update(size=size)
        batch.size = size
    start_runs([run.pk], now)
    return batch


def _held(batch: ProviderBatch):
    return Response.objects.filter(run_id=batch.run_id, provider_batch=batch, claim_token=token(batch),
                                   status=Response.Status.RUNNING)


def _units(batch: ProviderBatch, ids=None) -> list[Unit]:
    held = _held(batch) if ids is None else _held(batch).filter(pk__in=ids)
    units = [Unit(response) for response in held.select_related(*UNIT_FIELDS).order_by("pk")]
    for unit in units:
        prepare(unit)
    return units


def send(batch: ProviderBatch):
    """Build, upload and create the batch at the provider (each step's id kept, so that a
    send cut off resumes where it stopped). Units whose request cannot be built, or whose
    answer is in the cache, are written at once (as live)."""
    model = batch.model
    units = _units(batch)
    answer_from_cache([u for u in units if u.key and u.error is None])
    now_written = [u for u in units if u.error is not None or u.cache_hit]
    if now_written:
        write_answers(token(batch), now_written)
    asked = [u for u in units if u.error is None and not u.cache_hit]
    if not asked:
        _finish(batch, ProviderBatch.Status.COMPLETED, "no unit left to ask")
        return
    Response.objects.bulk_update([u.response for u in asked if _record(u)], ["messages", "params"],
                                 batch_size=1000)
    content = batches.request_file(model.litellm_model, [(str(u.response.pk), u.request) for u in asked])
    connection = _connection(model)
    try:
        if not batch.input_file_id:
            batch.input_file_id = batches.upload(f"cfpd-run{batch.run_id}-batch{batch.pk}.jsonl", content,
                                                 connection)
            ProviderBatch.objects.filter(pk=batch.pk).update(input_file_id=batch.input_file_id,
                                                             polled_at=timezone.now())
        # A send cut off after the provider made the batch, before its id was kept, finds it again.
        remote = batches.created_before({"cfpd_batch": str(batch.pk)}, batch.input_file_id, connection) or \
            batches.create(batch.input_file_id, {"cfpd_batch": str(batch.pk), "cfpd_run": str(batch.run_id)},
                           connection)
    except Exception as exc:  # noqa: BLE001 — LiteLLM wraps the provider's errors in its own classes
        error = batches.classify(exc)
        if error.transient:
            log.warning("batch %s not sent (%s); sent again in %s s", batch.pk, error.message, SEND_LEASE)
            ProviderBatch.objects.filter(pk=batch.pk).update(message=f"not sent yet: {error.message}")
            return
        _refused(batch, error)
        return
    now = timezone.now()
    ProviderBatch.objects.filter(pk=batch.pk).update(provider_batch_id=remote.id, submitted_at=now, polled_at=now,
                                                     status=_status(remote.status), message="")
    batch.provider_batch_id, batch.status = remote.id, _status(remote.status)


def _record(unit: Unit) -> bool:
    """The request's messages and parameters on the row (a later collect rebuilds the same request)."""
    changed = unit.response.messages != unit.record["messages"] or unit.response.params != unit.record["params"]
    unit.response.messages, unit.response.params = unit.record["messages"], unit.record["params"]
    return changed


def _refused(batch: ProviderBatch, error: gateway.LLMError):
    """The provider refused the file or the batch (no batch interface: 404; a bad key):
    its units fail with the provider's message, and a server with no /batches is noted on
    the model, so that the next launch refuses it plainly."""
    if "NotFound" in error.message or "404" in error.message:
        model = batch.model
        capabilities = dict(model.capabilities or {}, batch=False,
                            batch_message=f"{model.api_base or 'the provider'} answered 404 on /batches")
        LLMModel.objects.filter(pk=model.pk).update(capabilities=capabilities)
    units = _units(batch)
    for unit in units:
        unit.error = gateway.LLMError(error.kind, f"batch delivery refused: {error.message}", transient=False)
    write_answers(token(batch), units)
    _finish(batch, ProviderBatch.Status.FAILED, error.message)


def _status(value) -> str:
    return value if value in ProviderBatch.Status.values else ProviderBatch.Status.IN_PROGRESS


def _finish(batch: ProviderBatch, status: str, message: str = "", counts: dict | None = None):
    fields = dict(finished_at=timezone.now(), status=status)
    if message:
        fields["message"] = message[:2000]
    if counts is not None:
        fields["counts"] = counts
    ProviderBatch.objects.filter(pk=batch.pk, finished_at__isnull=True).update(**fields)


# ------------------------------------------------------------------ polling and collecting

def poll(batch: ProviderBatch, force: bool = False) -> bool:
    """Look at the batch at the provider if it is due (one poller at a time); collect it
    once it has ended. Whether it was looked at."""
    now = timezone.now()
    wait = SEND_LEASE if batch.status == ProviderBatch.Status.PREPARING else settings.CFPD_BATCH_POLL_SECONDS
    if not force and batch.polled_at is not None and batch.polled_at > now - timedelta(seconds=wait):
        return False
    if not ProviderBatch.objects.filter(pk=batch.pk, polled_at=batch.polled_at, finished_at__isnull=True).update(
            polled_at=now):
        return False  # another poller has it
    batch.polled_at = now
    if batch.status == ProviderBatch.Status.PREPARING:
        send(batch)  # a send cut off: resumed
        return True
    try:
        remote = batches.retrieve(batch.provider_batch_id, _connection(batch.model))
    except Exception as exc:  # noqa: BLE001
        log.warning("batch %s not polled: %s", batch.pk, batches.classify(exc).message)
        return True
    status = _status(remote.status)
    counts = remote.counts
    message = remote.message
    ProviderBatch.objects.filter(pk=batch.pk).update(
        status=status, counts=counts, message=message, output_file_id=remote.output_file_id,
        error_file_id=remote.error_file_id)
    batch.status, batch.output_file_id, batch.error_file_id = status, remote.output_file_id, remote.error_file_id
    if status in batches.TERMINAL:
        collect(batch, status, message, counts)
    return True


def collect(batch: ProviderBatch, status: str, message: str = "", counts: dict | None = None):
    """Write the ended batch's results on its units still under its claim (once: a written
    unit holds no claim any more), in chunks through `execution.write_answers`."""
    results, problems = batches.results(batch.output_file_id, batch.error_file_id, _connection(batch.model))
    if problems:
        log.warning("batch %s: %d lines not read: %s", batch.pk, len(problems), "; ".join(problems[:3]))
    ids = list(_held(batch).order_by("pk").values_list("pk", flat=True))
    answered = failed = returned = 0
    for start in range(0, len(ids), WRITE_CHUNK):
        units = _units(batch, ids[start:start + WRITE_CHUNK])
        for unit in units:
            if unit.error is not None:
                continue  # its request cannot be built: failed as the live path fails it
            line = results.get(str(unit.response.pk))
            if line is not None and line.body is not None:
                try:
                    unit.result = batches.read_answer(unit.request, line.body)
                except gateway.LLMError as error:
                    unit.error = error
            elif line is not None:
                unit.error = gateway.LLMError(line.error.kind, line.error.message, line.error.transient)
            else:
                unit.error = _not_answered(status, message)
        for outcome in write_answers(token(batch), units).values():
            answered += outcome.action == "done"
            failed += outcome.action == "failed"
            returned += outcome.action in ("retry", "requeue")
    _finish(batch, status, message, counts={**(counts or {}), "written": answered, "failed_units": failed,
                                            "returned": returned})
    run = Run.objects.filter(pk=batch.run_id).first()
    if returned and run is not None and run.status in (Run.Status.QUEUED, Run.Status.RUNNING):
        submit_pending(run)


def _not_answered(status: str, message: str) -> gateway.LLMError:
    """A unit the ended batch has no line for. A batch that failed as a whole (its file
    refused): the provider's message, permanent (the same file fails again). Expired or
    cancelled: transient, asked again in a new batch (or ends cancelled with its run)."""
    if status == ProviderBatch.Status.FAILED:
        return gateway.LLMError("bad_request", f"the provider failed the batch: {message or 'no reason given'}",
                            transient=False)
    return gateway.LLMError("server", f"the provider's batch ended {status} before this request was answered",
                        transient=True)


# ------------------------------------------------------------------ the run page

def _when(moment) -> str | None:
    return timezone.localtime(moment).strftime("%Y-%m-%d %H:%M:%S") if moment else None


def batch_rows(run: Run) -> list[dict]:
    """The run's batches for its page and progress.json: state, counts and times."""
    statuses = dict(ProviderBatch.Status.choices)
    return [{"id": b.pk, "model": b.model.name, "provider_batch_id": b.provider_batch_id, "status": b.status,
             "status_label": statuses.get(b.status, b.status).split(":")[0], "size": b.size,
             "completed": (b.counts or {}).get("completed"), "failed": (b.counts or {}).get("failed"),
             "written": (b.counts or {}).get("written"), "returned": (b.counts or {}).get("returned"),
             "message": b.message, "submitted_at": _when(b.submitted_at), "polled_at": _when(b.polled_at),
             "finished_at": _when(b.finished_at)}
            for b in run.provider_batches.select_related("model").order_by("pk")[:200]]


# ------------------------------------------------------------------ cancelling

def cancel(batch: ProviderBatch):
    """Cancel the batch at the provider (its run was cancelled); a batch not yet created
    there ends at once, its units cancelled."""
    ProviderBatch.objects.filter(pk=batch.pk).update(cancel_requested=True)
    batch.cancel_requested = True
    if not batch.provider_batch_id:
        cancel_batch_units(batch, token(batch))
        _finish(batch, ProviderBatch.Status.CANCELLED, "cancelled before it was sent")
        finish_run_if_complete(batch.run_id)
        return
    try:
        remote = batches.cancel(batch.provider_batch_id, _connection(batch.model))
    except Exception as exc:  # noqa: BLE001 — polled on; cancelled again at the next look if it fails
        ProviderBatch.objects.filter(pk=batch.pk).update(cancel_requested=False)
        log.warning("batch %s not cancelled: %s", batch.pk, batches.classify(exc).message)
        return
    ProviderBatch.objects.filter(pk=batch.pk).update(status=_status(remote.status), polled_at=None)
    batch.status, batch.polled_at = _status(remote.status), None
