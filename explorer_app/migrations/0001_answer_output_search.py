"""The GIN index that serves the answers list's full-text search on PostgreSQL
(explorer_app.answer_list.searched):

    WHERE to_tsvector('english'::regconfig, COALESCE(raw_output, '')) @@ websearch_to_tsquery(...)

The expression is the one Django writes for SearchVector("raw_output", config="english"), so
the planner matches it with the index. SQLite has no such index (the list falls back to
containment there): the operation does nothing on it."""

from django.db import migrations

INDEX = "response_output_search"


def create(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(
        f"CREATE INDEX IF NOT EXISTS {INDEX} ON runs_app_response "
        "USING gin (to_tsvector('english'::regconfig, COALESCE(raw_output, '')))")


def drop(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(f"DROP INDEX IF EXISTS {INDEX}")


class Migration(migrations.Migration):

    dependencies = [
        ("runs_app", "0012_run_kind"),
    ]

    operations = [
        migrations.RunPython(create, drop, elidable=False),
    ]
