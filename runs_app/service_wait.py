"""Runs under a failing service (issue 32): `watch_services`, the one writer of
`Run.service_wait` (called by each worker's watcher), answers whose coding was lost
coded again (`code_uncoded_answers`), and the notice the run page and the API show
(`service_notice`)."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from . import queueing
from .models import Response, Run
from .signals import responses_answered
from .sweeping import sweep_run


BROKERS = ("redis", "queue")  # runs_app.infra.REDIS, QUEUE: an outage whose messages may be lost


def watch_services(down: dict, ended: dict | None = None, now=None, broker_life: tuple | None = None,
                   refusing: dict | None = None, uncoded_from=False) -> dict:
    """The one writer of `Run.service_wait`, called by each worker's watcher
    (`runs_app.watcher`) every CFPD_SWEEP_SECONDS with the services it finds failing
    (`down`: service -> since) and the outages it saw end since its last look (`ended`).
    Each active run is taken under its row lock (skipped when another watcher holds
    it; on SQLite the transaction's IMMEDIATE start serialises the watchers):

    * while a service is down the run says which, since when and how many units wait
      (pending or running), and nothing is sent;
    * once none is, a run that waited on the broker, or whose broker outage this
      watcher saw and no watcher has recovered since, has every pending unit sent again
      (the broker may have lost them: no persistence, a send that failed), its notice
      cleared and the recovery time kept, so that a second watcher does not send them
      twice; after a database outage or a full disk the notice is cleared (the tasks
      met it and were retried through the broker);
    * the broker's life (`broker_life`: (marker, born), see `queueing.broker_life`),
      when it is not the one the run recorded (or was born after the run started), means
      the broker lost its messages though no watcher saw it down (a flush, a restart
      within a period): every pending unit is sent again, once, and the run says so;
    * the models of the run whose provider refuses connections (`refusing`: model id ->
      since) are recorded for the run page while its units wait;
    * then the run is swept (`sweep_run`: units whose worker died, never sent, passed by
      the queue).
    Answers whose coding was lost are coded (`code_uncoded_answers`, the answers written
    from `uncoded_from`, see `uncoded_since`; False: not looked for).
    What it did: runs noted, units sent again after an outage, units swept."""
    now = now or timezone.now()
    ended = ended or {}
    noted = requeued = swept = 0
    uncoded = code_uncoded_answers(now, since=uncoded_from) if uncoded_from is not False else 0
    unfinished = Q(status__in=[Run.Status.QUEUED, Run.Status.RUNNING]) | Q(status=Run.Status.CANCELLED,
                                                                        finished_at__isnull=True)
    # A run that finished while it waited (its last units written once the disk had room)
    # has its notice cleared too.
    watched = unfinished | Q(service_wait__has_key="waiting") | Q(service_wait__has_key="refusing")
    for run_id in list(Run.objects.filter(watched).values_list("pk", flat=True)):
        with transaction.atomic():
            run = Run.objects.select_for_update(skip_locked=True).filter(watched, pk=run_id).first()
            if run is None:
                continue
            state = dict(run.service_wait or {})
            waiting = state.get("waiting")
            if not Run.objects.filter(unfinished, pk=run.pk).exists():
                _clear_finished(run, state, waiting, down, now)
                continue
            if down and run.status != Run.Status.CANCELLED:
                noted += _note_waiting(run, state, waiting, down)
                continue
            requeued += _after_outage(run, state, waiting, ended, refusing, broker_life, now)
            count, _ = sweep_run(run.pk)
            swept += count
    return {"noted": noted, "requeued": requeued, "swept": swept, "coded": uncoded}


def _clear_finished(run: Run, state: dict, waiting: dict | None, down: dict, now):
    """A watched run no longer unfinished: its notice cleared once no service is down,
    and the models that refused, since its units no longer wait."""
    refused = state.pop("refusing", None) is not None  # its units no longer wait
    if not down and waiting is not None:
        state.pop("waiting", None)
        state.update(recovered_at=now.isoformat(), requeued=0, last=waiting)
        Run.objects.filter(pk=run.pk).update(service_wait=state)
    elif refused:
        Run.objects.filter(pk=run.pk).update(service_wait=state)


def _note_waiting(run: Run, state: dict, waiting: dict | None, down: dict) -> int:
    """While a service is down: the run says which, since when and how many units wait
    (nothing is sent). 1 when its notice was written, else 0."""
    open_units = run.responses.filter(status__in=[Response.Status.PENDING, Response.Status.RUNNING])
    service, since = min(down.items(), key=lambda item: item[1])
    # An outage this watcher saw begin before the last recovery was that one.
    recovered_at = state.get("recovered_at")
    if waiting is None and recovered_at and since.isoformat() <= recovered_at:
        return 0
    notice = {"service": service, "since": since.isoformat(), "units": open_units.count()}
    if waiting != notice:
        state["waiting"] = notice
        Run.objects.filter(pk=run.pk).update(service_wait=state)
        return 1
    return 0


def _after_outage(run: Run, state: dict, waiting: dict | None, ended: dict, refusing: dict | None,
                  broker_life: tuple | None, now) -> int:
    """No service down: the models refusing recorded, a broker found emptied or back from
    an outage has the run's pending units sent again, and its notice cleared. How many
    units were sent again."""
    requeued = 0
    lost_messages = (waiting is not None and waiting["service"] in BROKERS) or any(
        service in BROKERS and since.isoformat() > (state.get("recovered_at") or "")
        for service, since in ended.items())
    changed = False
    if refusing is not None:
        names = dict(run.llm_models.filter(pk__in=list(refusing)).values_list("pk", "name"))
        now_refusing = {names[pk]: since.isoformat() for pk, since in refusing.items() if pk in names}
        if now_refusing != state.get("refusing", {}):
            # Kept only while some model refuses: a run finished with it is watched once more.
            state.pop("refusing", None)
            state.update({"refusing": now_refusing} if now_refusing else {})
            changed = True
    if broker_life is not None and run.status != Run.Status.CANCELLED:
        marker, born = broker_life
        known = state.get("broker_life")
        if known != marker:
            emptied = known is not None or born > (run.started_at or run.created_at)
            state["broker_life"] = marker
            changed = True
            if emptied and not lost_messages:
                ids = list(run.responses.filter(status=Response.Status.PENDING).values_list("pk", flat=True))
                if ids:
                    queueing.enqueue(ids)
                state["emptied"] = {"at": now.isoformat(), "units": len(ids)}
                requeued += len(ids)
    if changed and waiting is None and not lost_messages:
        Run.objects.filter(pk=run.pk).update(service_wait=state)
    if waiting is not None or lost_messages:
        ids = []
        if lost_messages:
            ids = list(run.responses.filter(status=Response.Status.PENDING).values_list("pk", flat=True))
            if ids:
                queueing.enqueue(ids)
        state.pop("waiting", None)
        state.update(recovered_at=now.isoformat(), requeued=len(ids),
                     last=waiting or {"service": next(iter(ended), ""), "units": len(ids)})
        Run.objects.filter(pk=run.pk).update(service_wait=state)
        requeued += len(ids)
    return requeued


WRITE_OUTAGES = ("database", "disk_full")  # runs_app.infra.DATABASE, DISK_FULL: coding may have failed
UNCODED_SLACK = timedelta(minutes=10)  # an answer written just before the outage, coded just after it began
UNCODED_WINDOW = timedelta(minutes=10)  # how far back each look reads, past the grace
UNCODED_CHUNK = 500


def uncoded_since(now, ended: dict, first_look: bool):
    """From when a watcher's look reads answers left uncoded (`code_uncoded_answers`):
    the last UNCODED_WINDOW before the grace; from a little before an outage of the
    database or its disk that ended since the last look; everything on a process's first
    look (None), so a worker restarted after a long stop codes what the dead one left."""
    if first_look:
        return None
    since = now - timedelta(seconds=settings.CFPD_UNCODED_GRACE) - UNCODED_WINDOW
    write_outages = [start - UNCODED_SLACK for service, start in ended.items() if service in WRITE_OUTAGES]
    return min([since, *write_outages])


def code_uncoded_answers(now=None, since=None) -> int:
    """Answers written but never coded nor queued for a reviewer (no code, no code
    source) though their question has options: their coding was lost between the answer's
    write and its code (a worker killed there, the database gone or its disk full right
    after the write; issue 44). Sent again through `responses_answered` (the coding app
    codes or queues them, as on arrival). Read among the launched runs unfinished or
    finished since `since` (None: every one), the answers written from `since` and
    longer than CFPD_UNCODED_GRACE ago (the engine codes an answer right after writing
    it: within the grace it may still be doing so). Each run under its row lock, skipped
    when another watcher holds it: two watchers never send the same answer together.
    How many answers were sent."""
    now = now or timezone.now()
    settled = now - timedelta(seconds=settings.CFPD_UNCODED_GRACE)
    unfinished = Q(status__in=[Run.Status.QUEUED, Run.Status.RUNNING]) | Q(status=Run.Status.CANCELLED,
                                                                        finished_at__isnull=True)
    runs = Run.objects.filter(kind=Run.Kind.LAUNCH)
    if since is not None:
        runs = runs.filter(unfinished | Q(finished_at__gte=since))
    total = 0
    for run_id in list(runs.values_list("pk", flat=True)):
        with transaction.atomic():
            if not Run.objects.select_for_update(skip_locked=True).filter(pk=run_id).exists():
                continue
            uncoded = Response.objects.uncoded().filter(run_id=run_id, answered_at__lt=settled)
            if since is not None:
                uncoded = uncoded.filter(answered_at__gte=since)
            ids = list(uncoded.values_list("pk", flat=True))
            for start in range(0, len(ids), UNCODED_CHUNK):
                responses_answered.send(sender=Response, response_ids=ids[start:start + UNCODED_CHUNK])
        total += len(ids)
    return total


def service_notice(run: Run) -> str:
    """What the run page and the API say about the services under the run ("" when
    nothing): while it waits on a service, "Redis unreachable since 12:04; 1,532 units
    will be queued again when it returns"; the models whose provider refuses
    connections, while their units wait; and once its broker came back without its
    messages, "Redis restarted empty at 12:04; 1,080 units queued again"."""
    state = run.service_wait or {}
    parts = [_waiting_text(state.get("waiting"))]
    refusing = state.get("refusing") or {}
    if refusing and run.status in (Run.Status.QUEUED, Run.Status.RUNNING):
        parts.append(" ".join(f"{name}'s provider refuses connections since {_clock(since)}: its units wait "
                              "and are asked when it answers." for name, since in sorted(refusing.items())))
    emptied = state.get("emptied")
    if emptied:
        units = emptied.get("units", 0)
        parts.append(f"Redis restarted empty at {_clock(emptied['at'])}; {units:,} unit{'s' if units != 1 else ''} "
                     "queued again.")
    return " ".join(part for part in parts if part)


def _clock(iso: str) -> str:
    return timezone.localtime(datetime.fromisoformat(iso)).strftime("%H:%M")


def _waiting_text(waiting: dict | None) -> str:
    if not waiting:
        return ""
    since = _clock(waiting["since"])
    units = f"{waiting.get('units', 0):,} unit{'s' if waiting.get('units', 0) != 1 else ''}"
    service = waiting.get("service")
    if service == "disk_full":
        return (f"The database's disk is full since {since}: no answer can be written; {units} will be asked "
                f"again once it has room.")
    label = {"redis": "Redis", "queue": "The queue folder", "database": "The database"}.get(service, service)
    return f"{label} unreachable since {since}; {units} will be queued again when it returns."
