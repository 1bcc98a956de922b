"""The run page's latest answers (runs_app.views.latest_rows: ORDER BY answered_at DESC
NULLS LAST, id DESC within a run) read from an index on PostgreSQL: at the paper's
2.66 million units a run's rows were sorted for every refresh of the page
(bench/launch_scale.py). SQLite: nothing (it has no NULLS LAST in an index, and its
databases are small)."""

from django.db import migrations

NAME = "response_run_latest"


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"CREATE INDEX IF NOT EXISTS {NAME} ON runs_app_response "
                              "(run_id, answered_at DESC NULLS LAST, id DESC)")


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX IF EXISTS {NAME}")


class Migration(migrations.Migration):

    dependencies = [
        ("runs_app", "0014_capabilities_balance_throughput"),
    ]

    operations = [
        migrations.RunPython(create, drop, elidable=False),
    ]
