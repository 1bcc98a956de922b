"""Migration operations that keep a live deployment writing.

`AddIndexOnline`: on PostgreSQL, `CREATE INDEX CONCURRENTLY` (django.contrib.postgres's
`AddIndexConcurrently`): the answers table keeps taking writes while the index is built
(a plain CREATE INDEX holds off every insert and update for its whole build: 26 s at the
papers' 2.66 M answers). Elsewhere (SQLite, the embedded default) a plain index. A migration
that uses it must set `atomic = False` (PostgreSQL cannot build an index concurrently inside
a transaction).
"""

from django.contrib.postgres.operations import AddIndexConcurrently
from django.db import migrations


class AddIndexOnline(AddIndexConcurrently):
    def describe(self):
        return f"Create index {self.index.name} on {self.model_name} (concurrently on PostgreSQL)"

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            return super().database_forwards(app_label, schema_editor, from_state, to_state)
        return migrations.AddIndex.database_forwards(self, app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            return super().database_backwards(app_label, schema_editor, from_state, to_state)
        return migrations.AddIndex.database_backwards(self, app_label, schema_editor, from_state, to_state)
