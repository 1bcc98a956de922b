"""The answers (`runs_app_response`) partitioned by run on PostgreSQL (issue 42): a finished
run's answers are one table, dropped in one statement by `run_deletion.delete_run`.

Django's model state is unchanged (primary key `id`; SQLite keeps one plain table). On
PostgreSQL the table is `PARTITION BY LIST (run_id)` with primary key (id, run_id), as a
partitioned table's unique keys must hold its partition key; so no database foreign key
can point at the answers, and the keys to them are kept by Django (`db_constraint=False`,
encoding_app 0004). One partition per run, `runs_app_response_r<run id>`, made by the
database itself when the run's row is inserted (a row trigger on `runs_app_run`), so that
every path that makes a run — a launch, an import, a judge run, a panel, a synthetic load,
a test's factory, bulk_create, a fixture — gets one without a hook. It is made by
`CREATE TABLE … LIKE` and `ATTACH PARTITION`, which take SHARE UPDATE EXCLUSIVE on the
answers (workers' reads and writes go on), not `CREATE TABLE … PARTITION OF`, whose
ACCESS EXCLUSIVE would hold every worker until the launch's transaction commits. There
is no default partition: an answer for a run with no partition fails loudly. A run's
partition is dropped when its row is deleted (a row trigger: Django's collector, the
admin); a TRUNCATE of the runs, or a delete with triggers off (a test's flush), fires no
such trigger, and `sweep` (runs_app's post_migrate, after every migrate and Django's flush;
the tests' own flush, tests/db_restore.py) drops the partitions whose run is gone, so that
empty partitions do not pile up. A run whose partition was left (its id used again
after a flush reset the sequence) finds it there, empty, and keeps it.

Opt-in: `convert(cursor, partitioned=True)` (the `partition_answers` command, not a
migration) rewrites the table into that shape, every row, id, index (by name), constraint
and trigger kept, and installs the triggers on the runs; with `partitioned=False`
(`partition_answers --undo`) back to one plain table, the triggers and functions removed.
A database never converted has none of this: `sweep` and the tests' flush find no sweep
function and do nothing. Why opt-in: a query that names no run (a unit by id alone) is
planned over, and locks, every partition (docs/performance.md).
"""

from __future__ import annotations

from kit.migration_operations import table_partitions

TABLE = "runs_app_response"
RUNS = "runs_app_run"
PREFIX = "runs_app_response_r"  # + the run's id
OLD = "runs_app_response_unpartitioned"

# One function makes a run's partition (the trigger and `convert` call it): nothing if
# the run has one already (a restore's COPY of runs_app_run after its schema).
MAKE_FUNCTION = f"""
CREATE OR REPLACE FUNCTION runs_app_response_partition(run bigint) RETURNS void LANGUAGE plpgsql AS $body$
DECLARE part text := '{PREFIX}' || run;
BEGIN
    IF to_regclass(quote_ident(part)) IS NOT NULL THEN RETURN; END IF;
    EXECUTE format('CREATE TABLE %I (LIKE {TABLE} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', part);
    EXECUTE format('ALTER TABLE {TABLE} ATTACH PARTITION %I FOR VALUES IN (%s)', part, run);
END $body$"""

TRIGGERS = [
    MAKE_FUNCTION,
    """CREATE OR REPLACE FUNCTION runs_app_run_partition_made() RETURNS trigger LANGUAGE plpgsql AS $body$
    BEGIN PERFORM runs_app_response_partition(NEW.id); RETURN NULL; END $body$""",
    f"""CREATE OR REPLACE FUNCTION runs_app_run_partition_dropped() RETURNS trigger LANGUAGE plpgsql AS $body$
    BEGIN EXECUTE format('DROP TABLE IF EXISTS %I', '{PREFIX}' || OLD.id); RETURN NULL; END $body$""",
    # Every partition whose run is gone (after a TRUNCATE of the runs: a test's flush, which
    # fires no delete trigger). Each is locked before its run is looked for again: a run
    # being made by a transaction not yet committed is found once that transaction ends,
    # and its partition kept.
    f"""CREATE OR REPLACE FUNCTION runs_app_response_sweep() RETURNS integer LANGUAGE plpgsql AS $body$
    DECLARE part text; run bigint; dropped integer := 0;
    BEGIN
        FOR part, run IN SELECT c.relname, substring(c.relname FROM {len(PREFIX) + 1})::bigint
                    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                    WHERE i.inhparent = '{TABLE}'::regclass AND c.relname ~ '^{PREFIX}[0-9]+$'
                      AND NOT EXISTS (SELECT 1 FROM {RUNS} r
                                      WHERE r.id = substring(c.relname FROM {len(PREFIX) + 1})::bigint)
        LOOP
            EXECUTE format('LOCK TABLE %I IN ACCESS EXCLUSIVE MODE', part);
            IF NOT EXISTS (SELECT 1 FROM {RUNS} WHERE id = run) THEN
                EXECUTE format('DROP TABLE %I', part);
                dropped := dropped + 1;
            END IF;
        END LOOP;
        RETURN dropped;
    END $body$""",
    f"DROP TRIGGER IF EXISTS run_partition_insert ON {RUNS}",
    f"DROP TRIGGER IF EXISTS run_partition_delete ON {RUNS}",
    f"""CREATE TRIGGER run_partition_insert AFTER INSERT ON {RUNS}
        FOR EACH ROW EXECUTE FUNCTION runs_app_run_partition_made()""",
    f"""CREATE TRIGGER run_partition_delete AFTER DELETE ON {RUNS}
        FOR EACH ROW EXECUTE FUNCTION runs_app_run_partition_dropped()""",
]
UNTRIGGERS = [
    f"DROP TRIGGER IF EXISTS run_partition_insert ON {RUNS}",
    f"DROP TRIGGER IF EXISTS run_partition_delete ON {RUNS}",
    "DROP FUNCTION IF EXISTS runs_app_run_partition_made()",
    "DROP FUNCTION IF EXISTS runs_app_run_partition_dropped()",
    "DROP FUNCTION IF EXISTS runs_app_response_sweep()",
    "DROP FUNCTION IF EXISTS runs_app_response_partition(bigint)",
]


def sweep(using: str = "default") -> int:
    """Drop every partition whose run is gone (PostgreSQL, once partitioned); how many."""
    from django.db import connections, transaction

    connection = connections[using]
    if connection.vendor != "postgresql":
        return 0
    with transaction.atomic(using=using), connection.cursor() as cursor:
        cursor.execute("SELECT to_regproc('runs_app_response_sweep') IS NOT NULL")
        if not cursor.fetchone()[0]:  # never partitioned (or undone)
            return 0
        cursor.execute("SELECT runs_app_response_sweep()")
        return cursor.fetchone()[0]


def partition_name(run_id: int) -> str:
    return f"{PREFIX}{int(run_id)}"


def is_partitioned(cursor) -> bool:
    return table_partitions(cursor, TABLE) is not None


def partitions(cursor) -> list[str]:
    return [name for name, _ in table_partitions(cursor, TABLE) or []]


def _shape(cursor):
    """The table's indexes (not those of its constraints), unique and primary keys, and its
    own triggers, as statements that make them again on a table of the same name."""
    cursor.execute("""
        SELECT i.relname, pg_get_indexdef(i.oid) FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
        WHERE x.indrelid = %s::regclass
          AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.oid AND c.conrelid = x.indrelid)
        ORDER BY i.relname""", [TABLE])
    # A partitioned table's indexes read "ON ONLY table": made again on the whole table.
    indexes = [(name, sql.replace(f" ON ONLY public.{TABLE} ", f" ON public.{TABLE} ")
                .replace(f" ON ONLY {TABLE} ", f" ON {TABLE} ")) for name, sql in cursor.fetchall()]
    cursor.execute("SELECT conname, contype, pg_get_constraintdef(oid) FROM pg_constraint "
                   "WHERE conrelid = %s::regclass AND contype IN ('p', 'u') ORDER BY conname", [TABLE])
    keys = cursor.fetchall()
    cursor.execute("SELECT tgname, pg_get_triggerdef(oid) FROM pg_trigger WHERE tgrelid = %s::regclass "
                   "AND NOT tgisinternal ORDER BY tgname", [TABLE])
    triggers = cursor.fetchall()
    return indexes, keys, triggers


def convert(cursor, partitioned: bool = True) -> None:
    """Rewrite the answers as a table partitioned by run (or, `partitioned=False`, as one
    plain table): the same columns, defaults, identity, checks, ids, index and constraint
    names and triggers. Every row is copied with the table locked (ACCESS EXCLUSIVE), in
    the caller's transaction; the rows go in before the triggers are made again, so the
    tallies and run counters count none of them twice. Nothing when already in that shape."""
    if is_partitioned(cursor) == partitioned:
        return
    cursor.execute(f"LOCK TABLE {TABLE} IN ACCESS EXCLUSIVE MODE")
    indexes, keys, triggers = _shape(cursor)
    cursor.execute("SELECT pg_get_serial_sequence(%s, 'id')", [TABLE])
    (old_sequence,) = cursor.fetchone()
    cursor.execute(f"SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM {old_sequence}")
    (issued,) = cursor.fetchone()
    if not partitioned:
        for statement in UNTRIGGERS:
            cursor.execute(statement)
    cursor.execute(f"ALTER TABLE {TABLE} RENAME TO {OLD}")
    for name, _ in indexes:
        cursor.execute(f'DROP INDEX "{name}"')
    for name, _, _ in keys:
        cursor.execute(f'ALTER TABLE {OLD} DROP CONSTRAINT "{name}"')
    for name, _ in triggers:
        cursor.execute(f'DROP TRIGGER "{name}" ON {OLD}')
    shape = "INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING IDENTITY INCLUDING STORAGE INCLUDING COMMENTS"
    cursor.execute(f"CREATE TABLE {TABLE} (LIKE {OLD} {shape})" + (" PARTITION BY LIST (run_id)" if partitioned else ""))
    if partitioned:
        cursor.execute(MAKE_FUNCTION)
        cursor.execute(f"SELECT runs_app_response_partition(id) FROM (SELECT id FROM {RUNS} "
                       f"UNION SELECT DISTINCT run_id FROM {OLD}) AS run ORDER BY id")
    cursor.execute(f"INSERT INTO {TABLE} SELECT * FROM {OLD}")
    for name, kind, definition in keys:
        if kind == "p":
            definition = "PRIMARY KEY (id, run_id)" if partitioned else "PRIMARY KEY (id)"
        cursor.execute(f'ALTER TABLE {TABLE} ADD CONSTRAINT "{name}" {definition}')
    for _, sql in indexes:
        cursor.execute(sql)
    for _, sql in triggers:
        cursor.execute(sql)
    cursor.execute(f"DROP TABLE {OLD}")
    cursor.execute("SELECT pg_get_serial_sequence(%s, 'id')", [TABLE])
    (sequence,) = cursor.fetchone()
    if old_sequence and sequence != old_sequence:
        cursor.execute(f"ALTER SEQUENCE {sequence} RENAME TO {old_sequence.split('.')[-1]}")
        sequence = old_sequence
    # Past every id issued before (not only those left): no id is given twice.
    cursor.execute(f"SELECT setval(%s, GREATEST(%s, COALESCE((SELECT max(id) FROM {TABLE}), 0)) + 1, false)",
                   [sequence, issued])
    if partitioned:
        for statement in TRIGGERS:
            cursor.execute(statement)
    cursor.execute(f"ANALYZE {TABLE}")
