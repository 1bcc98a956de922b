"""The full-text index of the answers' output holds the answers that have an output
(`WHERE raw_output <> ''`); the answers list's search asks for the same condition
(explorer_app.answer_list.searched), so the planner still uses it. A launch's units have
no output yet, and GIN gave each of them an "empty item" entry: ~1–2 s of CPU per
266,000 units, a fifth of what was left of a paper-scale launch (bench/launch_scale.py).
SQLite: nothing (it has no such index)."""

from django.db import migrations

INDEX = "response_output_search"
EXPRESSION = "USING gin (to_tsvector('english'::regconfig, COALESCE(raw_output, '')))"


def answered_only(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(f"DROP INDEX IF EXISTS {INDEX}")
    schema_editor.execute(f"CREATE INDEX {INDEX} ON runs_app_response {EXPRESSION} WHERE raw_output <> ''")


def every_unit(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(f"DROP INDEX IF EXISTS {INDEX}")
    schema_editor.execute(f"CREATE INDEX {INDEX} ON runs_app_response {EXPRESSION}")


class Migration(migrations.Migration):

    dependencies = [
        ("explorer_app", "0002_answer_sort_indexes"),
    ]

    operations = [
        migrations.RunPython(answered_only, every_unit, elidable=False),
    ]
