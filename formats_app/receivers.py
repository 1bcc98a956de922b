"""A report's file lives as long as its row: deleting a `ReportExport` (by hand, in the
admin, or with its user) deletes its file from the files' storage once the deletion is
committed (a rolled-back deletion keeps both)."""

from django.db import transaction
from django.db.models.signals import post_delete
from django.dispatch import receiver

from . import report_exports
from .models import ReportExport


@receiver(post_delete, sender=ReportExport, dispatch_uid="formats_app.report_file_goes_with_its_row")
def delete_the_reports_file(sender, instance, **kwargs):
    name = instance.file
    if name:
        transaction.on_commit(lambda: report_exports.delete_result(name))
