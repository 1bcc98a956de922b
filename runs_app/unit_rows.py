"""The one writer of answer rows (issue 39; `tests/house/test_single_writers.py` fails when
a second appears): every `Response` row is created here, whoever asks for it — a launch's
units, the follow-ups a live answer asks for (`execution`), a judge's units, the importers
(`response_import`, and the families': the crisis release) and the synthetic loader.

- `insert_units`, `insert_unit_grid`: a launch's units, one row per (question, model,
  condition, repeat), pending.
- `create_rows`: rows given as their fields' values, through the ORM (ids returned).
- `RowInsert`: an import's rows streamed in batches (executemany; COPY on PostgreSQL).
- `copy_rows`: rows already in COPY's text format (the synthetic loader's millions).

A launch's units: on PostgreSQL the rows go in with one COPY (each row its ids and option order before a
tail of defaults formatted once): 20,000 units in well under a second, where the ORM's
bulk_create spent most of a launch preparing 32 fields per row. Elsewhere (SQLite)
bulk_create."""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime
from itertools import islice

from django.db import connection, transaction

from benchmarks_app.models import Question

from . import signals
from .models import Response

IDS = ["run_id", "question_id", "model_id", "condition_id", "repeat", "option_order"]


def copy_text(value) -> str:
    """A value in COPY's text format, for values that hold no tab, newline or backslash
    (defaults, ids, timestamps, JSON of numbers)."""
    if value is None:
        return r"\N"
    if isinstance(value, bool):
        return "t" if value else "f"
    if isinstance(value, (list, dict)):
        return json.dumps(value)
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value)


def _defaults(now: datetime) -> dict:
    """Every other column of a new pending unit, as the model's defaults give it."""
    template = Response(created_at=now, enqueued_at=now)
    values = {}
    for field in Response._meta.concrete_fields:
        if field.primary_key or field.attname in IDS:
            continue
        values[field.column] = now if field.attname in ("created_at", "enqueued_at") else getattr(
            template, field.attname)
    return values


def create_rows(rows: Iterable[dict], batch_size: int = 2000, ignore_conflicts: bool = False) -> list[Response]:
    """Create one answer row per dict of field values; the rows, with their ids (unless
    `ignore_conflicts`: a row the unique unit constraint refuses is left out silently)."""
    return Response.objects.bulk_create([Response(**values) for values in rows], batch_size=batch_size,
                                        ignore_conflicts=ignore_conflicts)


def copy_rows(columns: list[str], chunks: Iterable[str]) -> None:
    """PostgreSQL: rows in COPY's text format (each chunk whole lines, the `columns` in
    order) streamed into the answers' table."""
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        with cursor.cursor.copy(f"COPY {quote(Response._meta.db_table)} ({', '.join(columns)}) FROM STDIN") as copy:
            for chunk in chunks:
                copy.write(chunk)


def insert_units(run_id: int, units: Iterable[tuple[int, int, int, int, list[int]]], now: datetime,
                 step: int = 5000) -> int:
    """Write the units (question_id, model_id, condition_id, repeat, option_order) of a run,
    pending and marked as sent at `now`; `units` is read a slice of `step` at a time (a
    generator keeps a paper-scale launch's memory bounded; it must not query the database,
    which is busy with the COPY while it is read). Returns how many were written."""
    units = iter(units)
    written = 0
    if connection.vendor != "postgresql":
        while chunk := list(islice(units, step)):
            create_rows([dict(run_id=run_id, question_id=q, model_id=m, condition_id=c, repeat=r, option_order=order,
                              enqueued_at=now) for q, m, c, r, order in chunk])
            written += len(chunk)
        return written
    defaults = _defaults(now)
    tail = "\t".join(copy_text(value) for value in defaults.values()) + "\n"
    columns = ", ".join(connection.ops.quote_name(name) for name in [*IDS, *defaults])
    orders: dict[tuple, str] = {}  # an option order's JSON, made once (units share a few orders)

    def order_text(order) -> str:
        key = tuple(order)
        text = orders.get(key)
        if text is None:
            text = orders[key] = json.dumps(order)
        return text

    with connection.cursor() as cursor:
        with cursor.cursor.copy(f"COPY {connection.ops.quote_name(Response._meta.db_table)} ({columns}) "
                                "FROM STDIN") as copy:
            while chunk := list(islice(units, step)):
                copy.write("".join(f"{run_id}\t{q}\t{m}\t{c}\t{r}\t{order_text(order)}\t{tail}"
                                   for q, m, c, r, order in chunk))
                written += len(chunk)
    return written


def insert_unit_grid(run_id: int, pairs: list[tuple[int, int]], models: list[tuple[int, int]], now: datetime) -> int:
    """Write every unit of a launch without permuted options on PostgreSQL, in one
    INSERT … SELECT made by the server: each (question, condition) of `pairs` × each
    (model id, repeats) of `models` × each repeat, in that order (the order `insert_units`
    is given them), option order the canonical one (0 … choice count - 1, as
    `planning.option_order` gives it unpermuted). Nothing of 2.66 million units passes
    through Python. Returns how many were written.

    The i-th unit is computed from i (pair i / n, model and repeat i % n, n the units of a
    pair) over arrays made once: no join and no sort of the wide rows (a sort by the
    pairs' and models' ordinals spilled 36 MB to disk at 266,000 units), and each choice
    count's canonical order made once (a subquery per unit had taken a second at that
    size). JIT off: the row estimates made PostgreSQL compile the statement for 0.5 s.
    Counts kept by triggers may skip the statement and count the grid from
    `signals.unit_grid_written`, sent once it is written (the dashboard's tallies do)."""
    defaults = _defaults(now)
    fields = {field.column: field for field in Response._meta.concrete_fields}
    names = ", ".join(connection.ops.quote_name(name) for name in [*IDS, *defaults])
    placeholders = ", ".join(["%s"] * len(defaults))
    sql = f"""
        WITH pair AS (SELECT array_agg(p.question_id ORDER BY p.ord) AS question_ids,
                             array_agg(p.condition_id ORDER BY p.ord) AS condition_ids,
                             array_agg(q.choice_count ORDER BY p.ord) AS choice_counts
                      FROM unnest(%s::bigint[], %s::bigint[]) WITH ORDINALITY AS p(question_id, condition_id, ord)
                           JOIN {Question._meta.db_table} q ON q.id = p.question_id),
             per_pair AS (SELECT array_agg(m.model_id ORDER BY m.ord, r) AS model_ids,
                                 array_agg(r ORDER BY m.ord, r) AS repeats
                          FROM unnest(%s::bigint[], %s::int[]) WITH ORDINALITY AS m(model_id, repeats, ord)
                               CROSS JOIN LATERAL generate_series(0, m.repeats - 1) AS r),
             canonical AS (SELECT array_agg(COALESCE((SELECT jsonb_agg(i ORDER BY i) FROM generate_series(0, c - 1) i),
                                                     '[]'::jsonb) ORDER BY c) AS orders
                           FROM generate_series(0, (SELECT COALESCE(max(c), 0)
                                                    FROM pair, unnest(pair.choice_counts) c)) c)
        INSERT INTO {connection.ops.quote_name(Response._meta.db_table)} ({names})
        SELECT %s, pair.question_ids[i / n + 1], per_pair.model_ids[i %% n + 1], pair.condition_ids[i / n + 1],
               per_pair.repeats[i %% n + 1], canonical.orders[pair.choice_counts[i / n + 1] + 1], {placeholders}
        FROM pair, per_pair, canonical, cardinality(per_pair.model_ids) AS n,
             generate_series(0, cardinality(pair.question_ids) * n - 1) AS i
        """
    params = [[q for q, _ in pairs], [c for _, c in pairs], [m for m, _ in models], [r for _, r in models], run_id,
              *(fields[column].get_db_prep_save(value, connection) for column, value in defaults.items())]
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL jit = off")
        # For this statement only: triggers that count units may leave them to the signal.
        cursor.execute("SELECT set_config(%s, 'on', true)", [signals.UNIT_GRID_SETTING])
        cursor.execute(sql, params)
        written = cursor.rowcount
        cursor.execute("SELECT set_config(%s, '', true)", [signals.UNIT_GRID_SETTING])
        cursor.execute("RESET jit")
    signals.unit_grid_written.send(sender=Response, run_id=run_id, pairs=pairs, models=models)
    return written


def refresh_statistics():
    """ANALYZE the units' table (PostgreSQL): after a launch of millions of rows the
    planner would otherwise take the new run for an empty one until autovacuum's next
    pass (or never, where it is off) and sort all its units for the run page's latest
    answers (18 s at 2.66 million, 1 ms after; 0.8 s to ANALYZE — bench/launch_scale.py)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(f"ANALYZE {connection.ops.quote_name(Response._meta.db_table)}")


class RowInsert:
    """Rows of one model written with executemany: the values every row shares prepared
    once from a prototype (defaults, the run, the time), the few that differ set per row.
    bulk_create compiles every value of every object and, on SQLite, cuts a batch into
    inserts of ~30 rows (999 parameters): 20 000 answers took 30 s, most of it there.
    `prototype`: the values of the row every row starts from."""

    def __init__(self, **prototype_values):
        prototype = Response(**prototype_values)
        model = Response
        self.fields = [f for f in model._meta.concrete_fields if not f.primary_key]
        self.index = {f.attname: n for n, f in enumerate(self.fields)}
        self.base = [f.get_db_prep_save(f.pre_save(prototype, True), connection) for f in self.fields]
        self.prepare = {f.attname: f for f in self.fields}
        self.orders: dict[int, object] = {}
        quote = connection.ops.quote_name
        columns = f"{quote(model._meta.db_table)} ({', '.join(quote(f.column) for f in self.fields)})"
        self.sql = f"INSERT INTO {columns} VALUES ({', '.join(['%s'] * len(self.fields))})"
        # PostgreSQL: COPY, a stream of rows rather than a statement per row (executemany
        # wrote a million answers in over 5 minutes, the server busy parsing inserts).
        self.copy_sql = f"COPY {columns} FROM STDIN" if connection.vendor == "postgresql" else None

    def order(self, choices: int):
        """The prepared JSON of list(range(choices)), made once per count."""
        if choices not in self.orders:
            self.orders[choices] = self.prepare["option_order"].get_db_prep_save(list(range(choices)), connection)
        return self.orders[choices]

    def row(self, **values) -> list:
        row = list(self.base)
        for name, value in values.items():
            row[self.index[name]] = value
        return row

    def write(self, rows: list[list]):
        if rows:
            with connection.cursor() as cursor:
                if self.copy_sql:
                    with cursor.cursor.copy(self.copy_sql) as copy:
                        for row in rows:
                            copy.write_row(row)
                else:
                    cursor.executemany(self.sql, rows)


# A launch that writes at least this many units on PostgreSQL refreshes the answers table's
# statistics once it has committed (below).
ANALYZE_AFTER = 100_000


def refresh_statistics_after(written: int) -> None:
    """Once the launch's transaction commits, ANALYZE the answers table when it wrote
    `written` >= ANALYZE_AFTER units (PostgreSQL only). Until autovacuum gets to it the
    planner believes the new run has almost no rows: the run page's workers query then
    walked the run's (run, id) index over every unit, 3 s for an open run of 10.6 M pending
    units, 0.04 s once analysed. ANALYZE samples a fixed number of rows (0.5 s at 11 M).
    After the commit, in autocommit, so that its lock (which another ANALYZE waits on) is
    held for the ANALYZE only, not for the launch."""
    if written < ANALYZE_AFTER or connection.vendor != "postgresql":
        return

    def analyze():
        with connection.cursor() as cursor:
            cursor.execute(f"ANALYZE {Response._meta.db_table}")

    transaction.on_commit(analyze)
