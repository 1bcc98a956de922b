"""Score a free-form run for inconsistency once its answers are all in: when the engine
finishes it (`run_finished`) or when answers are imported as a finished run
(`responses_imported`)."""

import logging

from django.db import transaction
from django.dispatch import receiver

from runs_app.models import Run
from runs_app.signals import responses_imported, run_finished

from .family import NAME as FAMILY

log = logging.getLogger(__name__)


def queue_scoring(run_id: int):
    """Queue `score_run` for a free-form run, after the transaction commits (so the
    worker sees the finished run). Never raises: the unit that finished the run was
    already paid for; a run left unscored is scored by `score_inconsistency`."""
    try:
        if not Run.objects.filter(pk=run_id, benchmark__family=FAMILY).exists():
            return
        from .tasks import score_run

        transaction.on_commit(lambda: _send(run_id, score_run))
    except Exception:
        log.exception("could not queue inconsistency scoring of run %s", run_id)


def _send(run_id, task):
    try:
        task.delay(run_id)
    except Exception:
        log.exception("could not queue inconsistency scoring of run %s", run_id)


@receiver(run_finished, dispatch_uid="crisis-score-finished-run")
def score_finished_run(sender, run_id, **kwargs):
    queue_scoring(run_id)


@receiver(responses_imported, dispatch_uid="crisis-score-imported-run")
def score_imported_run(sender, run_id, **kwargs):
    queue_scoring(run_id)
