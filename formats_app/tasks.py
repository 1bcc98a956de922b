"""Celery tasks of the formats app: thin wrappers over `report_exports`."""

import logging

from celery import shared_task

from . import report_exports

log = logging.getLogger(__name__)


@shared_task(acks_late=True, ignore_result=True)
def export_report(job_id: int):
    """Make one `ReportExport`. Idempotent: the row is claimed, so a repeated message finds
    it taken or done. A failure is on the row (the report's page shows it)."""
    try:
        report_exports.run_export(job_id)
    except Exception:
        log.exception("could not export report %s", job_id)
