"""A number that moves whenever the answers or their codes change, so that figures computed
from them (the models' headline figures, cached dashboards) are keyed by it and computed
again exactly when something they read has changed — a reviewer's correction or undo too,
which adds no row.

`bump()` is called by the one services function of each such change; the number moves
after that change commits (so a figure computed under the new number sees the new data),
in a statement of its own (so concurrent writers hold the row for microseconds, not for
their whole transaction)."""

from django.db import transaction
from django.db.models import F

from .models import DataVersion


def _increment():
    if not DataVersion.objects.filter(pk=1).update(number=F("number") + 1):
        DataVersion.objects.get_or_create(pk=1, defaults={"number": 1})


def bump() -> None:
    """Move the number when the current transaction commits (at once outside one)."""
    transaction.on_commit(_increment)


def current() -> int:
    return DataVersion.objects.filter(pk=1).values_list("number", flat=True).first() or 0
