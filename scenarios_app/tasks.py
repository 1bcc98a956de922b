"""Celery tasks of CFPD scenarios: thin wrappers over the services."""

from celery import shared_task

from . import drafting


@shared_task(name=drafting.TASK, ignore_result=True)
def translation_draft(draft_id: int):
    """A model's draft of a translation (`drafting.run_draft`), run once per draft (claimed)."""
    drafting.run_draft(draft_id)
