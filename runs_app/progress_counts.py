"""The run page's counters (`RunProgress`): units per (run, model, status) with their sums,
kept by triggers on `runs_app_response` in the database itself.

Every write to a unit — the launch's COPY or INSERT, a worker's claim and answer, a
cancel, a resume, an import, a run's deletion — passes through them, so no write path
needs a hook and none can forget one (as the dashboard's tallies, `scenarios_app.analysis.tally`).
On PostgreSQL three statement-level triggers append the statement's change, grouped by
(run, model, status), as new rows: no counter row is updated, so concurrent workers never
wait on one another's counters (an upsert of one row per (run, model, status) held every
worker of a model behind the others' commits: the product's throughput fell by a
quarter to a third, bench/run_throughput.py); readers sum a run's rows and the sweep folds
them (`compact`). When units are deleted, a run left without any has its rows removed. On
SQLite (one writer at a time) row-level triggers upsert one row per key; a removal only
updates a row (a row a flush has already emptied stays gone) and rows at n = 0 of a run
whose units are deleted are removed.

The figures mirror `services.progress_by_model`'s grouped aggregate and the API's
`run_states`: SUM skips NULL (prompt and completion tokens, latency), the cost is NULL
where no unit of the group has one (`priced` = 0), `paid` is the cost of calls not
answered from the cache, latency counts calls not answered from the cache.
"""

from __future__ import annotations

TABLE = "runs_app_runprogress"
UNITS = "runs_app_response"
KEYS = ["run_id", "model_id", "status"]
FIGURES = ["n", "cached", "prompt_tokens", "completion_tokens", "cost", "priced", "paid", "latency_sum", "latency_n"]


def figures(row: str = "") -> list[str]:
    """One unit's contribution to each of FIGURES, in SQL both databases read (`row`: a
    prefix such as "NEW." in a row-level trigger)."""
    r = row
    return [
        "1",
        f"CASE WHEN {r}cache_hit THEN 1 ELSE 0 END",
        f"COALESCE({r}prompt_tokens, 0)",
        f"COALESCE({r}completion_tokens, 0)",
        f"COALESCE({r}cost, 0)",
        f"CASE WHEN {r}cost IS NULL THEN 0 ELSE 1 END",
        f"CASE WHEN {r}cache_hit THEN 0 ELSE COALESCE({r}cost, 0) END",
        f"CASE WHEN {r}cache_hit THEN 0 ELSE COALESCE({r}latency_ms, 0) END",
        f"CASE WHEN NOT {r}cache_hit AND {r}latency_ms IS NOT NULL THEN 1 ELSE 0 END",
    ]


def fill_sql() -> str:
    """Every unit counted (the migration that made the table; `rebuild`)."""
    sums = ", ".join(f"SUM({term})" for term in figures())
    keys = ", ".join(KEYS)
    return f"INSERT INTO {TABLE} ({keys}, {', '.join(FIGURES)}) SELECT {keys}, {sums} FROM {UNITS} GROUP BY {keys}"


# --- PostgreSQL: statement-level triggers over the transition tables ----------------

# Aggregates over a transition table that skip NULLs themselves: no expression per row
# beyond them (a launch's 2.66 million rows pass through here once).
PG_AGGREGATES = [
    "COUNT(*)",
    "COUNT(*) FILTER (WHERE cache_hit)",
    "COALESCE(SUM(prompt_tokens), 0)",
    "COALESCE(SUM(completion_tokens), 0)",
    "COALESCE(SUM(cost), 0)",
    "COUNT(cost)",
    "COALESCE(SUM(cost) FILTER (WHERE NOT cache_hit), 0)",
    "COALESCE(SUM(latency_ms) FILTER (WHERE NOT cache_hit), 0)",
    "COUNT(latency_ms) FILTER (WHERE NOT cache_hit)",
]


def _pg_grouped(source: str, sign: int) -> str:
    terms = ", ".join(f"{sign} * {term} AS {name}" for term, name in zip(PG_AGGREGATES, FIGURES))
    return f"SELECT {', '.join(KEYS)}, {terms} FROM {source} GROUP BY 1, 2, 3"


def _pg_add(delta: str) -> str:
    keys = ", ".join(KEYS)
    sums = ", ".join(f"SUM({name})" for name in FIGURES)
    changed = " OR ".join(f"SUM({name}) <> 0" for name in FIGURES)
    return f"""
        WITH delta AS ({delta})
        INSERT INTO {TABLE} ({keys}, {', '.join(FIGURES)})
        SELECT {keys}, {sums} FROM delta GROUP BY 1, 2, 3 HAVING {changed};"""


def _pg_take_away(source: str) -> str:
    """Units deleted: their figures taken away, and every row of a run left without units
    removed (a deleted run leaves none)."""
    return f"""{_pg_add(_pg_grouped(source, -1))}
        DELETE FROM {TABLE} WHERE run_id IN (SELECT DISTINCT run_id FROM {source})
            AND NOT EXISTS (SELECT 1 FROM {UNITS} unit WHERE unit.run_id = {TABLE}.run_id);"""


def _pg_function(name: str, body: str, guard: str = "") -> str:
    return f"""CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $body$
        BEGIN {guard} {body}
        RETURN NULL; END $body$;"""


# A run deleted by statements (`run_deletion.delete_run`) sets this, transaction-local, for
# its units' statements: the delete trigger takes nothing away and looks for no unit left,
# and delete_run deletes the run's counter rows by run in the same transaction. Without it
# a statement's NOT EXISTS (any unit of the run left?) stepped over the index entries of
# every unit deleted before it in the transaction: the last of a 2.66 M-unit run read them
# all from the heap (minutes; docs/performance.md, issue 42).
RUN_DELETION_SETTING = "cfpd.run_deletion"
DELETION_SKIPPED = f"IF current_setting('{RUN_DELETION_SETTING}', true) = 'on' THEN RETURN NULL; END IF;"


def pg_deleted_function(guarded: bool = True) -> str:
    """The delete trigger's function (runs_app migration 0023 made it skip a run's deletion)."""
    return _pg_function("run_progress_deleted", _pg_take_away("old_rows"), DELETION_SKIPPED if guarded else "")


PG_INSTALL = [
    _pg_function("run_progress_inserted", _pg_add(_pg_grouped("new_rows", 1))),
    # An update that changes no figure (a lease, the raw output, a code) adds and takes
    # away the same amounts: HAVING drops the group, no row is written.
    _pg_function("run_progress_updated",
                 _pg_add(f"{_pg_grouped('new_rows', 1)} UNION ALL {_pg_grouped('old_rows', -1)}")),
    pg_deleted_function(),
    f"""CREATE TRIGGER run_progress_insert AFTER INSERT ON {UNITS}
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION run_progress_inserted()""",
    f"""CREATE TRIGGER run_progress_update AFTER UPDATE ON {UNITS}
       REFERENCING NEW TABLE AS new_rows OLD TABLE AS old_rows FOR EACH STATEMENT
       EXECUTE FUNCTION run_progress_updated()""",
    f"""CREATE TRIGGER run_progress_delete AFTER DELETE ON {UNITS}
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION run_progress_deleted()""",
]
PG_UNINSTALL = [
    f"DROP TRIGGER IF EXISTS run_progress_insert ON {UNITS}",
    f"DROP TRIGGER IF EXISTS run_progress_update ON {UNITS}",
    f"DROP TRIGGER IF EXISTS run_progress_delete ON {UNITS}",
    "DROP FUNCTION IF EXISTS run_progress_inserted()",
    "DROP FUNCTION IF EXISTS run_progress_updated()",
    "DROP FUNCTION IF EXISTS run_progress_deleted()",
]


# --- SQLite: row-level triggers --------------------------------------------------------

def _sqlite_add(row: str) -> str:
    keys = ", ".join(KEYS)
    values = ", ".join([*(f"{row}{key}" for key in KEYS), *figures(row)])
    updates = ", ".join(f"{name} = {name} + excluded.{name}" for name in FIGURES)
    return (f"INSERT INTO {TABLE} ({keys}, {', '.join(FIGURES)}) VALUES ({values}) "
            f"ON CONFLICT ({keys}) DO UPDATE SET {updates};")


def _sqlite_take_away(row: str, remove_empty: bool) -> str:
    updates = ", ".join(f"{name} = {name} - ({term})" for name, term in zip(FIGURES, figures(row)))
    matched = " AND ".join(f"{key} = {row}{key}" for key in KEYS)
    sql = f"UPDATE {TABLE} SET {updates} WHERE {matched};"
    return sql + (f" DELETE FROM {TABLE} WHERE run_id = {row}run_id AND n = 0;" if remove_empty else "")


WATCHED = "run_id, model_id, status, cache_hit, prompt_tokens, completion_tokens, cost, latency_ms"
SQLITE_INSTALL = [
    f"CREATE UNIQUE INDEX IF NOT EXISTS run_progress_key ON {TABLE} (run_id, model_id, status)",
    f"CREATE TRIGGER run_progress_insert AFTER INSERT ON {UNITS} BEGIN {_sqlite_add('NEW.')} END",
    f"CREATE TRIGGER run_progress_update AFTER UPDATE OF {WATCHED} ON {UNITS} BEGIN "
    f"{_sqlite_take_away('OLD.', False)} {_sqlite_add('NEW.')} END",
    f"CREATE TRIGGER run_progress_delete AFTER DELETE ON {UNITS} BEGIN {_sqlite_take_away('OLD.', True)} END",
]
SQLITE_UNINSTALL = [
    "DROP INDEX IF EXISTS run_progress_key",
    "DROP TRIGGER IF EXISTS run_progress_insert",
    "DROP TRIGGER IF EXISTS run_progress_update",
    "DROP TRIGGER IF EXISTS run_progress_delete",
]


def install(schema_editor):
    """The triggers, then every existing unit counted, in the migration's transaction."""
    statements = PG_INSTALL if schema_editor.connection.vendor == "postgresql" else SQLITE_INSTALL
    for statement in statements:
        schema_editor.execute(statement)
    schema_editor.execute(f"DELETE FROM {TABLE}")
    schema_editor.execute(fill_sql())


def uninstall(schema_editor):
    for statement in PG_UNINSTALL if schema_editor.connection.vendor == "postgresql" else SQLITE_UNINSTALL:
        schema_editor.execute(statement)


def ensure_sqlite_triggers(using: str = "default") -> bool:
    """SQLite drops a table's triggers when a migration remakes the table (most field
    changes do): after every migrate, triggers that went missing are made again and the
    counters counted afresh. Whether they were. PostgreSQL keeps its triggers."""
    from django.db import connections, transaction

    connection = connections[using]
    if connection.vendor != "sqlite":
        return False
    with connection.cursor() as cursor:
        cursor.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name = %s", [TABLE])
        if cursor.fetchone() is None:  # not migrated this far
            return False
        cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = %s", [UNITS])
        present = {row[0] for row in cursor.fetchall()}
    if {"run_progress_insert", "run_progress_update", "run_progress_delete"} <= present:
        return False
    with transaction.atomic(using=using), connection.cursor() as cursor:
        for statement in SQLITE_UNINSTALL + SQLITE_INSTALL:
            cursor.execute(statement)
        cursor.execute(f"DELETE FROM {TABLE}")
        cursor.execute(fill_sql())
    return True


def compact(run_id: int) -> None:
    """Fold a run's rows into one per (model, status) (PostgreSQL appends a row per
    statement that changes a unit; the sweep folds them while the run is active). One
    statement: rows appended meanwhile are not among those it deletes, so none is lost
    or counted twice; a second compaction at the same time folds only what it deleted."""
    from django.db import connection

    if connection.vendor != "postgresql":  # SQLite keeps one row per key already
        return
    keys = ", ".join(KEYS)
    sums = ", ".join(f"SUM({name})" for name in FIGURES)
    with connection.cursor() as cursor:
        cursor.execute(f"""
            WITH gone AS (DELETE FROM {TABLE} WHERE run_id = %s RETURNING {keys}, {', '.join(FIGURES)})
            INSERT INTO {TABLE} ({keys}, {', '.join(FIGURES)})
            SELECT {keys}, {sums} FROM gone GROUP BY 1, 2, 3 HAVING SUM(n) <> 0""", [run_id])

