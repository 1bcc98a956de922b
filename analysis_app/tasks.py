"""Celery tasks of the analysis app: thin wrappers over `computing`."""

import logging

from celery import shared_task

from . import computing

log = logging.getLogger(__name__)


@shared_task(acks_late=True, ignore_result=True)
def compute_figure(figure_id: int):
    """Compute one `ComputedFigure` row. Idempotent: the row is claimed, so a repeated
    message finds it taken or done. A failure is on the row (the page shows it)."""
    try:
        computing.compute(figure_id)
    except Exception:
        log.exception("could not compute figure %s", figure_id)
