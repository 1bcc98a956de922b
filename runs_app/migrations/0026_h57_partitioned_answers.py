"""The answers partitioned by run on PostgreSQL (issue 42; `runs_app.partitions`): one
partition per run, made and dropped by triggers on the runs, so that a finished run's
answers go in one DROP TABLE. Every answer is rewritten with the table locked: an upgrade
to make with no run live (docs/deployment.md). The reverse makes one plain table again.
SQLite: nothing (Django's model state is unchanged)."""

from django.db import migrations

from runs_app import partitions


def partitioned(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        with schema_editor.connection.cursor() as cursor:
            partitions.convert(cursor, partitioned=True)


def unpartitioned(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        with schema_editor.connection.cursor() as cursor:
            partitions.convert(cursor, partitioned=False)


class Migration(migrations.Migration):

    dependencies = [
        ("runs_app", "0025_h51_run_left_out"),
        # No database foreign key may point at a partitioned table's id alone.
        ("encoding_app", "0004_h57_answer_keys_kept_by_django"),
    ]

    operations = [migrations.RunPython(partitioned, unpartitioned, elidable=False)]
