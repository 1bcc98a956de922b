from django.apps import AppConfig
from django.db.models.signals import post_delete, post_migrate


def _run_deleted(**kwargs):
    from benchmarks_app import data_version

    data_version.bump()  # its answers are gone: figures computed from them must be again


def _migrated(using="default", **kwargs):
    from . import progress_counts

    progress_counts.ensure_sqlite_triggers(using)  # a remade units table lost them (SQLite)
    app_config = kwargs.get("app_config")
    if app_config is not None and app_config.name == "runs_app":
        from . import partitions

        partitions.sweep(using)  # a flush's TRUNCATE left the runs' partitions (PostgreSQL)


class RunsAppConfig(AppConfig):
    default_auto_field = 'django.db.models.BigAutoField'
    name = 'runs_app'
    verbose_name = "Runs and models"

    def ready(self):
        post_migrate.connect(_migrated, dispatch_uid="run-progress-triggers-kept")
        post_delete.connect(_run_deleted, sender="runs_app.Run", dispatch_uid="run-deleted-moves-data-version")
