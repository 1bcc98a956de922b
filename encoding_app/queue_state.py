"""A reviewer's own view of a queue, read without changing it: whose the items are
(`reviewer_counts`, worded by `queue_words`), what became of the item a tab shows
(`shown_task`: another tab of the same reviewer may have coded or skipped it), and what
a code just given added to the queues (`follow_ups`). The workspace asks for these at
every key and every few seconds (`views.queue_status`), so each is a few counts."""

from __future__ import annotations

from django.db.models import Count
from django.utils import timezone

from . import queue_words
from .filters import Filters
from .models import Code, ReviewTask
from .services import REVIEW_PURPOSES, available

Status = ReviewTask.Status


def _purposes(queue: str):
    return [ReviewTask.Purpose.ADJUDICATION] if queue == "adjudication" else REVIEW_PURPOSES


def reviewer_counts(user, filters: Filters = Filters(), queue: str = "review", now=None) -> dict:
    """The queue's items by whose they are (see `queue_words` for each count). The open
    ones are split in this order: skipped by this reviewer, on an answer they coded (by
    purpose; an admin may adjudicate their own disagreement, as `services.available`
    says), free for them, and the rest held by another person."""
    now = now or timezone.now()
    tasks = filters.apply(ReviewTask.objects.filter(purpose__in=_purposes(queue)))
    done = tasks.filter(status=Status.DONE)
    mine = done.filter(done_by=user).count()
    others = done.count() - mine
    open_tasks = tasks.filter(status=Status.OPEN)
    left = open_tasks.count()
    skipped = open_tasks.filter(skipped_by=user).count()
    rest = open_tasks.exclude(skipped_by=user)
    own: dict[str, int] = {}
    if not (queue == "adjudication" and user.is_superuser):
        coded = Code.objects.filter(coder=user, undone_at__isnull=True).values("response_id")
        own = dict(rest.filter(response_id__in=coded).order_by().values_list("purpose")
                   .annotate(n=Count("id")).values_list("purpose", "n"))
    free = available(user, queue, filters, now).count()
    return {"mine": mine, "others": others, "left": left, "available": free, "skipped": skipped, "own": own,
            "held": left - skipped - sum(own.values()) - free}


def progress(user, filters: Filters = Filters(), queue: str = "review") -> dict:
    """The counts with their words: the parts of the progress line and, for an empty card,
    why it is empty."""
    counts = reviewer_counts(user, filters, queue)
    return {**counts, "parts": queue_words.parts(counts, queue), "empty_reason": queue_words.empty_reason(counts, queue)}


def shown_task(task_id: int, user, now=None) -> dict:
    """What became of an item a tab of `user` shows: `state` is `yours` (still theirs to
    code), `lapsed` (their hold ran out and nobody took it: the next request leases it
    again), or the item is gone from them (`coded-by-you`, `skipped-by-you`,
    `done-by-another`, `withdrawn`, `held-by-another`, `gone`), with the sentence to show."""
    now = now or timezone.now()
    task = ReviewTask.objects.filter(pk=task_id).first()
    if task is None:
        return {"task": task_id, "state": "gone", "message": f"Item {task_id} is no longer in the queue."}

    def state(name, message=""):
        return {"task": task.pk, "state": name, "message": message}

    if task.status == Status.DONE and task.done_by_id == user.pk:
        letter = (Code.objects.filter(task=task, coder=user, undone_at__isnull=True).order_by("-id")
                  .values_list("presented_letter", flat=True).first())
        return state("coded-by-you", f"Item {task.pk} was coded {letter or '?'} in your other tab; this tab moved on.")
    if task.status == Status.DONE:
        return state("done-by-another", f"Item {task.pk} was done by someone else; this tab moved on.")
    if task.status == Status.WITHDRAWN:
        return state("withdrawn", f"Item {task.pk} was withdrawn (its answer was coded again, or the code that "
                                  f"asked for it was undone); this tab moved on.")
    if task.skipped_by.filter(pk=user.pk).exists():
        return state("skipped-by-you", f"You skipped item {task.pk} in your other tab; this tab moved on.")
    unexpired = task.lease_expires_at is not None and task.lease_expires_at >= now
    if task.leased_by_id == user.pk and unexpired:
        return state("yours")
    if task.leased_by_id is not None and unexpired:
        return state("held-by-another", f"Your hold on item {task.pk} ran out and another reviewer took it; "
                                        f"this tab moved on.")
    return state("lapsed")


def follow_ups(code: Code) -> list[dict]:
    """The items a code just given opened (a blind second code, an adjudication), each with
    its sentence for the reviewer."""
    purposes = (ReviewTask.objects.filter(caused_by=code, status=Status.OPEN).order_by("id")
                .values_list("purpose", flat=True))
    return [{"purpose": purpose, "text": queue_words.follow_up(purpose)} for purpose in purposes]
