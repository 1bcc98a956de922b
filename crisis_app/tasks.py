"""Celery tasks of the free-form crisis family: thin wrappers over `scoring`."""

import logging

from celery import shared_task

from . import scoring
from .scorers import ScorerError

log = logging.getLogger(__name__)


@shared_task(ignore_result=True)
def score_run(run_id: int):
    """Score a finished run's groups with the default scorer (kendall for ranked
    variants). Idempotent: groups already scored are skipped, so a repeated message
    only finds nothing left to do."""
    try:
        summary = scoring.score_run(run_id)
    except ScorerError:
        # Not transient (the encoder is missing or the name holds another configuration):
        # retrying would not help; `score_inconsistency` scores the run once it is fixed.
        log.exception("could not score run %s for inconsistency", run_id)
        return
    for name, counts in summary.by_scorer.items():
        log.info("run %s, scorer %s: %d groups scored, %d already scored, %d with too few samples, "
                 "%d sections missing", run_id, name, counts.scored, counts.already_scored,
                 counts.too_few_samples, counts.sections_missing)
