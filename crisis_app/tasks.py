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
    except ScorerError as exc:
        # Not transient (the encoder is missing, failed its self-check, or the name holds
        # another configuration): retrying would not help. The message says what to do;
        # `score_inconsistency` scores the run once it is fixed.
        log.error("could not score run %s for inconsistency: %s", run_id, exc)
        return
    for name, counts in summary.by_scorer.items():
        log.info("run %s, scorer %s: %d groups scored, %d already scored, %d with too few samples, "
                 "%d sections missing", run_id, name, counts.scored, counts.already_scored,
                 counts.too_few_samples, counts.sections_missing)
