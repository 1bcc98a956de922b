"""Two orders of the answers list, served by an index on PostgreSQL at 2.66 million
answers (explorer_app.answer_list, bench/answers_list.py):

- by model: ORDER BY model_id, id — the foreign key's own index on model_id alone left a
  sort of one model's 330,000 answers by id (1.4 s);
- slowest/fastest first: ORDER BY COALESCE(latency_ms, 0), id — no index at all: a sort
  of every answer (4.7 s).

SQLite: nothing (small databases sort fast enough)."""

from django.db import migrations

INDEXES = {
    "response_model_id_order": "(model_id, id)",
    "response_latency_order": "(COALESCE(latency_ms, 0), id)",
}


def create(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name, columns in INDEXES.items():
        schema_editor.execute(f"CREATE INDEX IF NOT EXISTS {name} ON runs_app_response {columns}")


def drop(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name in INDEXES:
        schema_editor.execute(f"DROP INDEX IF EXISTS {name}")


class Migration(migrations.Migration):

    dependencies = [
        ("explorer_app", "0001_answer_output_search"),
    ]

    operations = [
        migrations.RunPython(create, drop, elidable=False),
    ]
