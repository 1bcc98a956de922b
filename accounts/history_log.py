"""The site-wide record in the console (/admin/auditlog/logentry/): every change django-auditlog
wrote, filtered by person, kind of object, action and date, and exported as CSV. Read only:
no entry can be added, changed or deleted through the site (docs/architecture.md, "The record")."""

import csv
import json

from auditlog.admin import LogEntryAdmin
from auditlog.models import LogEntry
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.http import StreamingHttpResponse

from kit.csv_safety import neutralise_row

CSV_HEADER = ["when", "who", "command", "action", "kind", "object id", "object", "field", "old", "new"]


class PersonFilter(admin.SimpleListFilter):
    title = "person"
    parameter_name = "person"

    def lookups(self, request, model_admin):
        authors = LogEntry.objects.exclude(actor=None).values_list("actor", flat=True).distinct()
        people = get_user_model().objects.filter(pk__in=authors).order_by("username")
        return [(str(user.pk), user.username) for user in people] + [("none", "nobody (a command or the system)")]

    def queryset(self, request, queryset):
        if self.value() == "none":
            return queryset.filter(actor=None)
        if self.value() and self.value().isdigit():
            return queryset.filter(actor_id=int(self.value()))
        return queryset


def csv_rows(entries):
    """One row per changed field of each entry (one row with empty field cells for an entry
    that lists none, such as a delete), oldest first."""
    yield CSV_HEADER
    for entry in entries.select_related("actor", "content_type").order_by("timestamp", "pk").iterator():
        extra = entry.additional_data if isinstance(entry.additional_data, dict) else {}
        command = extra.get("command", "")
        if command and extra.get("os_user"):
            command = f"{command} (OS user {extra['os_user']})"
        head = [entry.timestamp.isoformat(), entry.actor.get_username() if entry.actor else "", command,
                entry.get_action_display(), entry.content_type.model if entry.content_type else "",
                entry.object_pk, entry.object_repr]
        changes = entry.changes_dict or {}
        if not changes:
            yield head + ["", "", ""]
        for field, values in sorted(changes.items()):
            old, new = (values + [None, None])[:2] if isinstance(values, list) else (values, None)
            yield head + [field, _cell(old), _cell(new)]


def _cell(value) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


class _Echo:
    def write(self, value):
        return value


admin.site.unregister(LogEntry)


@admin.register(LogEntry)
class RecordAdmin(LogEntryAdmin):
    list_filter = [PersonFilter, *LogEntryAdmin.list_filter]
    actions = ["export_csv"]

    @admin.action(description="Export the selected entries as CSV")
    def export_csv(self, request, queryset):
        writer = csv.writer(_Echo())
        response = StreamingHttpResponse((writer.writerow(neutralise_row(row)) for row in csv_rows(queryset)),
                                         content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = 'attachment; filename="cfpd-history.csv"'
        return response


def quiet_sign_ins():
    """A sign-in saves only `last_login`, which the record leaves out: skip django-auditlog's
    read of the old user row for such a save (a sign-in stays one UPDATE). Its own receiver,
    connected from settings by the auditlog app (ready before this one), is swapped for one
    that lets every other save of a user through."""
    from auditlog.receivers import log_update
    from auditlog.registry import auditlog
    from django.db.models.signals import pre_save

    user_model = get_user_model()
    if not auditlog.contains(user_model):
        return
    pre_save.disconnect(sender=user_model, dispatch_uid=auditlog._dispatch_uid(pre_save, log_update))

    def log_user_update(sender, instance, update_fields=None, **kwargs):
        if update_fields is not None and set(update_fields) <= {"last_login"}:
            return
        log_update(sender, instance, update_fields=update_fields, **kwargs)

    pre_save.connect(log_user_update, sender=user_model, dispatch_uid="accounts.log_user_update", weak=False)
