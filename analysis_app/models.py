"""The analysis app owns no answers. `Dashboard` carries the permission that opens every
family's dashboards (given to the analysts role); `ComputedFigure` keeps the figures the
worker computes for any family's page (`computed.py`)."""

from django.db import models


class Dashboard(models.Model):
    class Meta:
        managed = False
        default_permissions = ()
        permissions = [("view_dashboard", "Can read the analysis dashboards and reports")]


class ComputedFigure(models.Model):
    """A figure too slow to compute inside a request (an encoder to load, seconds of
    bootstrap), computed by the worker (`analysis_app.tasks.compute_figure`) and kept here
    for every process (the embedded default's cache is per process). `key` names
    everything the result depends on; the page shows `result` with `computed_at`, or a
    placeholder while the row is pending or running (`analysis_app.computed`)."""

    class Status(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    key = models.CharField(max_length=128, unique=True)
    kind = models.CharField(max_length=40)
    params = models.JSONField(default=dict)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    requested_at = models.DateTimeField()
    started_at = models.DateTimeField(null=True, blank=True)
    computed_at = models.DateTimeField(null=True, blank=True)
    seconds = models.FloatField(null=True, blank=True)

    class Meta:
        default_permissions = ()

    def __str__(self):
        return f"{self.kind} {self.key[:12]} ({self.status})"
