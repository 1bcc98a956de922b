"""A report asked for from a dashboard's button (`ReportExport`): made by the worker
(`formats_app.tasks.export_report`), followed on its page, downloaded by whoever asked."""

from django.conf import settings
from django.db import models


class ReportExport(models.Model):
    """One export of one dashboard view (`page` and `query` as the reader had them) as
    `format`; `step`, `done` and `total` say what the worker is doing; `file` is the
    result's name in the files' storage (formats_app.report_exports.storage_name: the HTML
    file, or the folder zipped); deleting the row deletes it (formats_app.receivers)."""

    class Format(models.TextChoices):
        HTML = "html", "one HTML file"
        FOLDER = "folder", "figures (SVG, PNG) and tables (CSV, LaTeX)"

    class Status(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    page = models.CharField(max_length=200)
    query = models.TextField(blank=True)
    format = models.CharField(max_length=10, choices=Format.choices)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    step = models.CharField(max_length=300, blank=True)
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    file = models.CharField(max_length=200, blank=True)
    size = models.BigIntegerField(null=True, blank=True)
    requested_at = models.DateTimeField()
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        default_permissions = ()
        ordering = ["-pk"]

    def __str__(self):
        return f"report {self.pk} of {self.page} ({self.format}, {self.status})"

    @property
    def url(self) -> str:
        return self.page + (f"?{self.query}" if self.query else "")
