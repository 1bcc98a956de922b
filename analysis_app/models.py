"""No tables: analysis reads runs and codes. The model exists to carry the permission
that opens the dashboards (given to the analysts role)."""

from django.db import models


class Dashboard(models.Model):
    class Meta:
        managed = False
        default_permissions = ()
        permissions = [("view_dashboard", "Can read the analysis dashboards and reports")]
