"""The run page's latest answers read from an index that holds only answered units
(`runs_app.views.latest_rows` reads the unanswered apart, through the unit key's index): a
paper-scale launch's 2.66 million pending units entered it, about 4-6 s of the launch's
PostgreSQL time (docs/performance.md). SQLite: nothing (as 0015)."""

from django.db import migrations

NAME = "response_run_latest"


def answered_only(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX IF EXISTS {NAME}")
        schema_editor.execute(f"CREATE INDEX {NAME} ON runs_app_response (run_id, answered_at DESC, id DESC) "
                              "WHERE answered_at IS NOT NULL")


def every_unit(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX IF EXISTS {NAME}")
        schema_editor.execute(f"CREATE INDEX {NAME} ON runs_app_response "
                              "(run_id, answered_at DESC NULLS LAST, id DESC)")


class Migration(migrations.Migration):

    dependencies = [
        ("runs_app", "0018_response_keys_kept_by_django"),
    ]

    operations = [
        migrations.RunPython(answered_only, every_unit, elidable=False),
    ]
