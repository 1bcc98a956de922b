"""The console's *History* page of an object: every create, change and delete of it that
django-auditlog recorded (who, when, each field's old and new value), read only.

`HistoryAdminMixin` before `admin.ModelAdmin` makes the change page's History button (Django's
`history_view`) show that record instead of the console's own short log of admin edits, so
an edit made by a command or a page of the site shows there too (docs/architecture.md,
"The record")."""

from urllib.parse import unquote

from auditlog.mixins import AuditlogHistoryAdminMixin
from django.http import Http404


class HistoryAdminMixin(AuditlogHistoryAdminMixin):
    auditlog_history_per_page = 50

    def get_urls(self):
        # The record is served at the admin's own history/ address only (no second auditlog/ one).
        return super(AuditlogHistoryAdminMixin, self).get_urls()

    def history_view(self, request, object_id, extra_context=None):
        try:
            obj = self.get_object(request, unquote(object_id))
        except (OverflowError, ValueError):  # an id no column can hold
            obj = None
        if obj is None:
            raise Http404(f"No {self.opts.verbose_name} with the id {object_id!r}.")
        context = {"title": f"History: {obj}", **(extra_context or {})}
        return self.auditlog_history_view(request, object_id, extra_context=context)


def leave_reverse_relations_out():
    """django-auditlog records every field `_meta.get_fields()` gives, and that includes the
    other tables' links to the object (a scenario's options, dyads, questions, the runs that
    asked it): a new scenario's entry listed each as "scenarios_app.ResponseOption.None".
    Those are not the object's fields (their own changes are recorded on their own rows):
    each tracked model's reverse relations are added to what its entries leave out. Run once
    the registry is made from the settings (the kit is installed after auditlog)."""
    from auditlog.registry import auditlog

    for model in auditlog.get_models():
        reverse = [f.name for f in model._meta.get_fields() if f.auto_created and not f.concrete]
        registered = auditlog._registry[model]
        registered["exclude_fields"] = sorted(set(registered["exclude_fields"]) | set(reverse))
