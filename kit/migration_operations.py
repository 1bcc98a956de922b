"""Migration operations that keep a live deployment writing.

`AddIndexOnline`: on PostgreSQL, `CREATE INDEX CONCURRENTLY` (django.contrib.postgres's
`AddIndexConcurrently`): the answers table keeps taking writes while the index is built
(a plain CREATE INDEX holds off every insert and update for its whole build: 26 s at the
papers' 2.66 M answers). Elsewhere (SQLite, the embedded default) a plain index. A migration
that uses it must set `atomic = False` (PostgreSQL cannot build an index concurrently inside
a transaction).

A partitioned table (the answers on PostgreSQL once `partition_answers` ran) cannot be indexed
concurrently as a whole: the index is made on the parent alone (`ON ONLY`, invalid until
every partition has its own), then built concurrently on each partition and attached,
which makes the parent's valid; its name on the parent is the one the migration gives.
"""

from django.contrib.postgres.operations import AddIndexConcurrently
from django.db import migrations


class AddIndexOnline(AddIndexConcurrently):
    def describe(self):
        return f"Create index {self.index.name} on {self.model_name} (concurrently on PostgreSQL)"

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            model = to_state.apps.get_model(app_label, self.model_name)
            parts = _partitions(schema_editor, model._meta.db_table)
            if parts is not None:
                return _index_partitioned(schema_editor, model, self.index, parts)
            return super().database_forwards(app_label, schema_editor, from_state, to_state)
        return migrations.AddIndex.database_forwards(self, app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        model = from_state.apps.get_model(app_label, self.model_name)
        if schema_editor.connection.vendor == "postgresql" and _partitions(schema_editor, model._meta.db_table) is None:
            return super().database_backwards(app_label, schema_editor, from_state, to_state)
        return migrations.AddIndex.database_backwards(self, app_label, schema_editor, from_state, to_state)


def _partitions(schema_editor, table: str) -> list[tuple[str, int]] | None:
    with schema_editor.connection.cursor() as cursor:
        return table_partitions(cursor, table)


def table_partitions(cursor, table: str) -> list[tuple[str, int]] | None:
    """The partitions (name, oid) of a partitioned table, by name; None for a plain one
    (PostgreSQL)."""
    cursor.execute("SELECT relkind FROM pg_class WHERE oid = to_regclass(%s)", [table])
    row = cursor.fetchone()
    if not row or row[0] != "p":
        return None
    cursor.execute("SELECT c.relname, c.oid FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
                   "WHERE i.inhparent = to_regclass(%s) ORDER BY c.relname", [table])
    return cursor.fetchall()


def _index_partitioned(schema_editor, model, index, parts):
    table, quote = model._meta.db_table, schema_editor.quote_name
    parent = index.create_sql(model, schema_editor)
    schema_editor.execute(str(parent).replace(f" ON {quote(table)} ", f" ON ONLY {quote(table)} ", 1))
    for part, oid in parts:
        child = index.create_sql(model, schema_editor, concurrently=True)
        child.rename_table_references(table, part)
        name = f"{index.name[:48]}_{oid}"
        child.parts["name"] = quote(name)
        schema_editor.execute(str(child))
        schema_editor.execute(f"ALTER INDEX {quote(index.name)} ATTACH PARTITION {quote(name)}")
