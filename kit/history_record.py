"""Entries of the record of changes (django-auditlog) for writes that send no signal.

django-auditlog writes an entry from the model signals, so `bulk_create` and
`QuerySet.update` leave none. Where a room writes in bulk on purpose (a large import, the
freezing of the versions a run asked), it records the change here: the same `LogEntry`
rows the signals would write, with the same author and extra data the surrounding
`set_actor` / `set_extra_data` context gives (the library's own pre_save receiver fills them in),
in one INSERT per batch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from auditlog.diff import model_instance_diff
from auditlog.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.db.models.signals import pre_save
from django.utils.encoding import smart_str

BATCH = 500


def _entry(instance, action: int, changes: dict) -> LogEntry:
    entry = LogEntry(content_type=ContentType.objects.get_for_model(instance), object_pk=str(instance.pk),
                     object_id=instance.pk if isinstance(instance.pk, int) else None,
                     object_repr=smart_str(instance), action=action, changes=changes)
    # What saving it would do first: a surrounding set_actor / set_extra_data context
    # (connected to this signal while it lasts) fills in the author and extra data.
    pre_save.send(sender=LogEntry, instance=entry, raw=False, using="default", update_fields=None)
    return entry


def record_created(instances: Iterable) -> int:
    """One "create" entry per instance just made by `bulk_create` (each field's new value,
    as django-auditlog computes it for a save). Returns how many."""
    entries = [_entry(instance, LogEntry.Action.CREATE, model_instance_diff(None, instance) or {})
               for instance in instances]
    LogEntry.objects.bulk_create(entries, batch_size=BATCH)
    return len(entries)


def record_updated(instances: Iterable, changes_of: Callable[[object], dict]) -> int:
    """One "update" entry per instance changed by `QuerySet.update`: `changes_of(instance)`
    gives {field: [old, new]}. Returns how many."""
    entries = [_entry(instance, LogEntry.Action.UPDATE, changes_of(instance)) for instance in instances]
    LogEntry.objects.bulk_create(entries, batch_size=BATCH)
    return len(entries)
