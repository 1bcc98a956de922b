"""The counters' delete trigger steps aside while `services.delete_run` deletes a run's units
(`progress_counts.RUN_DELETION_SETTING`): that service deletes the run's counter rows by run.
PostgreSQL only (SQLite's row triggers look up one key per row)."""

from django.db import migrations

from runs_app import progress_counts


def guarded(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(progress_counts.pg_deleted_function(guarded=True))


def unguarded(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(progress_counts.pg_deleted_function(guarded=False))


class Migration(migrations.Migration):

    dependencies = [("runs_app", "0022_h42b_response_worker_db_default")]

    operations = [migrations.RunPython(guarded, unguarded, elidable=False)]
