"""The rows a `serialized_rollback` test starts from, put back with one INSERT per table;
and on PostgreSQL the flush that ends such a test emptying only the tables that hold rows.

Django restores them (`deserialize_db_from_string`) with one `save()` per row: an UPDATE
then an INSERT for each of the ~700 rows the migrations make (actors, permissions, content
types, conditions...), about 0.7 s on PostgreSQL before every such test (the browser tests,
the engine's tests with real workers). Here the same objects, parsed once per process, are
inserted table by table, then the many-to-many rows, then the same constraint check
(issue 37). Django's flush truncates every table (65) in one TRUNCATE, about 0.5 s on
PostgreSQL whatever they hold; a test fills a few of them. `tests/deployment/test_db_restore.py`
checks that what is put back is what was saved and that a flush leaves every table empty."""

from io import StringIO

from django.core import serializers
from django.db import models, transaction

_PARSED: dict[str, tuple[dict, dict]] = {}


def _parse(data: str, alias: str) -> tuple[dict, dict]:
    """(rows by model, many-to-many rows by through model) of a serialized database."""
    if data not in _PARSED:
        rows: dict[type, list] = {}
        links: dict[type, list] = {}
        for found in serializers.deserialize("json", StringIO(data), using=alias):
            model = type(found.object)
            rows.setdefault(model, []).append(found.object)
            for name, values in (found.m2m_data or {}).items():
                field = model._meta.get_field(name)
                through = field.remote_field.through
                source, target = f"{field.m2m_field_name()}_id", f"{field.m2m_reverse_field_name()}_id"
                links.setdefault(through, []).extend(
                    through(**{source: found.object.pk, target: value}) for value in values)
        _PARSED[data] = (rows, links)
    return _PARSED[data]


def deserialize_in_bulk(self, data: str) -> None:
    """`BaseDatabaseCreation.deserialize_db_from_string`, table by table, into empty tables
    (after the flush that ends every such test). Tables that still hold rows (the first
    such test of a process: the migrations' rows are there) take Django's own way, which
    updates a row that exists."""
    alias = self.connection.alias
    rows, links = _parse(data, alias)
    if _holding_rows(self.connection, [model._meta.db_table for model in rows]):
        return _DJANGOS(self, data)
    with transaction.atomic(using=alias):
        with self.connection.constraint_checks_disabled():
            for model, objects in rows.items():
                if model._meta.parents:  # multi-table inheritance: bulk_create cannot; Django's own way
                    for instance in objects:
                        models.Model.save_base(instance, using=alias, raw=True, force_insert=True)
                else:
                    _insert_raw(model, objects, alias)
            for through, objects in links.items():
                _insert_raw(through, objects, alias)
        self.connection.check_constraints(table_names={model._meta.db_table for model in [*rows, *links]})


def _insert_raw(model, objects: list, alias: str) -> None:
    """The rows as they are, `save(raw=True)`'s INSERT a batch at a time (`bulk_create`
    would give `auto_now_add` fields the time of now)."""
    fields = [field for field in model._meta.local_concrete_fields  # a many-to-many row's id: the database's
              if not (field.primary_key and objects[0].pk is None)]
    manager = model._base_manager.using(alias)
    for start in range(0, len(objects), 500):
        manager._insert(objects[start:start + 500], fields=fields, raw=True, using=alias)


def sql_flush_of_the_full(style, connection, reset_sequences=True, allow_cascade=False) -> list[str]:
    """`django.core.management.sql.sql_flush`: on PostgreSQL (sequences kept, as a test's
    flush keeps them) a DELETE of each table that holds a row, found in one query, with
    triggers and foreign-key checks off for the transaction (every table that holds a row
    is emptied, so none is left pointing at a deleted one)."""
    if connection.vendor != "postgresql" or reset_sequences:
        statements = _DJANGOS_FLUSH(style, connection, reset_sequences=reset_sequences, allow_cascade=allow_cascade)
        return statements + ([SWEEP_PARTITIONS] if connection.vendor == "postgresql" and statements else [])
    full = _holding_rows(connection, connection.introspection.django_table_names(only_existing=True,
                                                                                 include_views=False))
    if not full:
        return []
    quote = connection.ops.quote_name
    return ["SET LOCAL session_replication_role = replica", *(f"DELETE FROM {quote(table)}" for table in full),
            *([SWEEP_PARTITIONS] if "runs_app_run" in full else [])]


# The runs deleted with triggers off (or truncated) leave their answers' partitions
# (runs_app.partitions): dropped here, or they would pile up over the services pass.
SWEEP_PARTITIONS = """DO $$ BEGIN
    IF to_regproc('runs_app_response_sweep') IS NOT NULL THEN PERFORM runs_app_response_sweep(); END IF;
END $$"""


def _holding_rows(connection, tables: list[str]) -> list[str]:
    """The tables among `tables` that hold a row, in one query."""
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join(f"SELECT %s WHERE EXISTS (SELECT 1 FROM {quote(table)})" for table in tables),
                       tables)
        return [row[0] for row in cursor.fetchall()]


def install() -> None:
    global _DJANGOS, _DJANGOS_FLUSH
    from django.core.management.commands import flush
    from django.db.backends.base.creation import BaseDatabaseCreation

    if BaseDatabaseCreation.deserialize_db_from_string is not deserialize_in_bulk:
        _DJANGOS = BaseDatabaseCreation.deserialize_db_from_string
        BaseDatabaseCreation.deserialize_db_from_string = deserialize_in_bulk
    if flush.sql_flush is not sql_flush_of_the_full:
        _DJANGOS_FLUSH = flush.sql_flush
        flush.sql_flush = sql_flush_of_the_full


_DJANGOS = _DJANGOS_FLUSH = None
