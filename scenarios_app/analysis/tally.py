"""Answers counted ahead of the CFPD dashboard (`PassTally`, `QuestionTally`), on PostgreSQL.

Every write to `runs_app_response` — a worker's status and answer, a code from the
automatic encoder, a reviewer, an undo, an import, COPY, a cascade when a run is
deleted — goes through three statement-level triggers that add the rows' new keys
(+1) and take away their old keys (-1), grouped, as one upsert per tally. The app's
write paths need no hook, and none can forget one. Keys are upserted in sorted order,
so two statements that touch the same tally rows lock them in the same order.

A launch's grid of units (one INSERT … SELECT, `runs_app.unit_rows.insert_unit_grid`) is
the one write the insert trigger leaves alone: `count_unit_grid` counts it from the grid
(its pairs and models), the same rows, in the same transaction.

Rows may fall to n = 0 (every pending answer of a pass done): readers skip them and
`rebuild` drops them. Judge units are counted like any answer and taken away on read
(`grouped`): their JudgeRequest is written after the unit itself.

The dashboard reads the tallies when they answer the question (`grouped` returns None
otherwise: per-repeat counts for picked actors, or SQLite, where the tables exist but
no trigger fills them and the answers are counted directly).
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from django.core.exceptions import EmptyResultSet
from django.db import connection, transaction
from django.db.models import CharField, Sum, TextField

from runs_app.signals import UNIT_GRID_SETTING
from scenarios_app.tallies import PassTally, QuestionTally

if TYPE_CHECKING:  # pandas on first use: 0.4 s of every process's start (this module loads with the app)
    import pandas as pd

# The triggers' functions name the tables (scenarios_app.tallies) and the sequence: made again
# when either is renamed (scenarios_app migration 0008).
PASS_TABLE, QUESTION_TABLE = PassTally._meta.db_table, QuestionTally._meta.db_table
SEQUENCE = "scenarios_app_tally_change"

RESPONSE_KEYS = 'run_id, model_id, condition_id, question_id, "repeat", code, code_source, status'
QUESTION_KEYS = ["run_id", "model_id", "condition_id", "question_id", "code", "code_source", "status"]
PASS_KEYS = ["run_id", "model_id", "condition_id", "scenario_id", "domain_id", "variant", "choice_count", '"repeat"',
             "code", "code_source", "status"]


def _numbers(count: int) -> str:
    return ", ".join(str(i) for i in range(1, count + 1))


def _upsert_tail(table: str, keys: str) -> str:
    return f"ON CONFLICT ({keys}) DO UPDATE SET n = {table}.n + EXCLUDED.n, changed = EXCLUDED.changed"


def _upserts(delta: str) -> str:
    """The two upserts that add `delta` (rows of response keys and d = +1 / -1) to the tallies.
    Only CFPD's questions with options are counted (the readers ask for nothing else): the
    first join leaves another family's answers out before any grouping, so a territories or
    crisis write costs the triggers one index probe per row and no tally row."""
    question, passes = ", ".join(QUESTION_KEYS), ", ".join(PASS_KEYS)
    return f"""
        WITH delta AS ({delta}),
        ours AS (
            SELECT delta.*, cfpd.scenario_id, cfpd.domain_id, cfpd.variant, q.choice_count
            FROM delta JOIN scenarios_app_scenarioquestion cfpd ON cfpd.question_id = delta.question_id
                       JOIN benchmarks_app_question q ON q.id = delta.question_id
            WHERE q.choice_count > 0),
        by_question AS (
            INSERT INTO {QUESTION_TABLE} ({question}, n, changed)
            SELECT {question}, SUM(d), nextval('{SEQUENCE}') FROM ours
            GROUP BY {_numbers(len(QUESTION_KEYS))} HAVING SUM(d) <> 0 ORDER BY {_numbers(len(QUESTION_KEYS))}
            {_upsert_tail(QUESTION_TABLE, question)})
        INSERT INTO {PASS_TABLE} ({passes}, n, changed)
        SELECT {passes}, SUM(d), nextval('{SEQUENCE}') FROM ours
        GROUP BY {_numbers(len(PASS_KEYS))} HAVING SUM(d) <> 0 ORDER BY {_numbers(len(PASS_KEYS))}
        {_upsert_tail(PASS_TABLE, passes)};"""


def _grid_upserts() -> str:
    """The same two upserts for a launch's grid of pending units (`count_unit_grid`), from
    its (question, condition) pairs and (model, repeats), without its units: a question
    row per pair and model (n = its repeats), a pass row per group of pairs, model and
    repeat. Parameters: run, questions, conditions, models, repeats, then the new units'
    code, code source and status (the three once for each upsert)."""
    question, passes = ", ".join(QUESTION_KEYS), ", ".join(PASS_KEYS)
    return f"""
        WITH pair AS (SELECT p.question_id, p.condition_id, q.choice_count
                      FROM unnest(%(questions)s::bigint[], %(conditions)s::bigint[]) AS p(question_id, condition_id)
                           JOIN benchmarks_app_question q ON q.id = p.question_id
                           JOIN scenarios_app_scenarioquestion ours ON ours.question_id = p.question_id
                      WHERE q.choice_count > 0),
        model AS (SELECT * FROM unnest(%(models)s::bigint[], %(repeats)s::int[]) AS m(model_id, repeats)
                  WHERE m.repeats > 0),
        by_question AS (
            INSERT INTO {QUESTION_TABLE} ({question}, n, changed)
            SELECT %(run)s::bigint, model.model_id, pair.condition_id, pair.question_id, %(code)s, %(code_source)s,
                   %(status)s, model.repeats, nextval('{SEQUENCE}')
            FROM pair CROSS JOIN model ORDER BY {_numbers(len(QUESTION_KEYS))}
            {_upsert_tail(QUESTION_TABLE, question)})
        INSERT INTO {PASS_TABLE} ({passes}, n, changed)
        SELECT %(run)s::bigint, model.model_id, pair.condition_id, cfpd.scenario_id, cfpd.domain_id, cfpd.variant,
               pair.choice_count, r, %(code)s, %(code_source)s, %(status)s, COUNT(*), nextval('{SEQUENCE}')
        FROM pair JOIN scenarios_app_scenarioquestion cfpd ON cfpd.question_id = pair.question_id
             CROSS JOIN model CROSS JOIN LATERAL generate_series(0, model.repeats - 1) AS r
        WHERE pair.choice_count > 0
        GROUP BY {_numbers(len(PASS_KEYS))} ORDER BY {_numbers(len(PASS_KEYS))}
        {_upsert_tail(PASS_TABLE, passes)}"""


def _trigger_function(name: str, delta: str, guard: str = "") -> str:
    return f"""CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $body$
        BEGIN {guard} {_upserts(delta)}
        RETURN NULL; END $body$;"""


# A launch's grid of units (runs_app.signals.unit_grid_written) is counted from the grid
# by `count_unit_grid`, not from its rows: at the paper's scale the insert trigger's
# grouping of 2.66 million rows was a third of the launch's time in the database.
GRID_SKIPPED = f"IF current_setting('{UNIT_GRID_SETTING}', true) = 'on' THEN RETURN NULL; END IF;"


ADDED = f"SELECT {RESPONSE_KEYS}, 1 AS d FROM new_rows"
REMOVED = f"SELECT {RESPONSE_KEYS}, -1 AS d FROM old_rows"
# An update that leaves the keys alone (a lease, the raw output) adds and takes away the
# same key: SUM(d) = 0 and HAVING drops it, so it locks no tally row.
INSTALL = [
    f"CREATE SEQUENCE IF NOT EXISTS {SEQUENCE}",
    _trigger_function("analysis_tally_inserted", ADDED, guard=GRID_SKIPPED),
    _trigger_function("analysis_tally_updated", f"{ADDED} UNION ALL {REMOVED}"),
    _trigger_function("analysis_tally_deleted", REMOVED),
    "DROP TRIGGER IF EXISTS analysis_tally_insert ON runs_app_response",
    "DROP TRIGGER IF EXISTS analysis_tally_update ON runs_app_response",
    "DROP TRIGGER IF EXISTS analysis_tally_delete ON runs_app_response",
    """CREATE TRIGGER analysis_tally_insert AFTER INSERT ON runs_app_response
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analysis_tally_inserted()""",
    """CREATE TRIGGER analysis_tally_update AFTER UPDATE ON runs_app_response
       REFERENCING NEW TABLE AS new_rows OLD TABLE AS old_rows FOR EACH STATEMENT
       EXECUTE FUNCTION analysis_tally_updated()""",
    """CREATE TRIGGER analysis_tally_delete AFTER DELETE ON runs_app_response
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION analysis_tally_deleted()""",
]
UNINSTALL = [
    "DROP TRIGGER IF EXISTS analysis_tally_insert ON runs_app_response",
    "DROP TRIGGER IF EXISTS analysis_tally_update ON runs_app_response",
    "DROP TRIGGER IF EXISTS analysis_tally_delete ON runs_app_response",
    "DROP FUNCTION IF EXISTS analysis_tally_inserted()",
    "DROP FUNCTION IF EXISTS analysis_tally_updated()",
    "DROP FUNCTION IF EXISTS analysis_tally_deleted()",
    f"DROP SEQUENCE IF EXISTS {SEQUENCE}",
]
# Readers scan the pass tally of a run, model or domain; the question tally per model
# (the heatmap) and by question (the per-country panels join on it).
INDEXES = [
    f"CREATE INDEX IF NOT EXISTS analysis_questiontally_model ON {QUESTION_TABLE} (model_id, question_id)",
]


def available() -> bool:
    """Whether the triggers keep the tallies (PostgreSQL)."""
    return connection.vendor == "postgresql"


def install(*, keep_counts: bool = False):
    """Triggers first, then the counts, in one transaction: CREATE TRIGGER locks the
    answers against writes until the counts are in, so none is missed or counted twice.
    `keep_counts`: tallies that hold counts already (kept by the same triggers, which this
    replaces) keep them; empty ones are filled."""
    if not available():
        return
    with transaction.atomic(), connection.cursor() as cursor:
        for statement in INSTALL + INDEXES:
            cursor.execute(statement)
        if keep_counts:
            cursor.execute(f"SELECT EXISTS (SELECT 1 FROM {QUESTION_TABLE})")
            if cursor.fetchone()[0]:
                return
        _fill(cursor)


def uninstall():
    if available():
        with connection.cursor() as cursor:
            for statement in UNINSTALL:
                cursor.execute(statement)


def _fill(cursor):
    cursor.execute(f"DELETE FROM {QUESTION_TABLE}")
    cursor.execute(f"DELETE FROM {PASS_TABLE}")
    cursor.execute(_upserts(f"SELECT {RESPONSE_KEYS}, 1 AS d FROM runs_app_response"))


def count_unit_grid(run_id: int, pairs: list[tuple[int, int]], models: list[tuple[int, int]], **kwargs):
    """The tally rows of a launch's grid of pending units, written in the launch's
    transaction (the receiver of runs_app.signals.unit_grid_written; the insert trigger
    skipped that statement): the same counts the trigger would have made from the rows."""
    if not available():
        return
    from runs_app.models import Response

    with connection.cursor() as cursor:
        cursor.execute(_grid_upserts(), {
            "run": run_id, "questions": [q for q, _ in pairs], "conditions": [c for _, c in pairs],
            "models": [m for m, _ in models], "repeats": [r for _, r in models],
            "code": "", "code_source": "", "status": Response.Status.PENDING.value})


def rebuild() -> dict[str, int]:
    """Count every answer again (after a restore, or to drop the rows at n = 0). SHARE
    mode lets analysts read and holds writers until the new counts are in."""
    if not available():
        return {}
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("LOCK TABLE runs_app_response IN SHARE MODE")
        _fill(cursor)
    return {"passes": PassTally.objects.count(), "questions": QuestionTally.objects.count()}


def version() -> int | None:
    """Moves with every committed change to an answer's run, model, status or code. A
    sum, not a maximum: a transaction that took an earlier sequence value may commit
    after a later one, and a maximum would not see it."""
    if not available():
        return None
    return PassTally.objects.aggregate(v=Sum("changed"))["v"]


# --- reading ------------------------------------------------------------------------

REPEAT_KEYS = {"run_id", "repeat"}
PASS_FIELDS = {"question__cfpd__scenario_id": "scenario_id", "question__cfpd__variant": "variant"}


def grouped(filters, keys: list[str]) -> pd.DataFrame | None:
    """`tidy_query._grouped`'s frame (the `keys` and n) from the tallies, or None when they
    cannot give it: per-repeat counts narrowed to actors or languages, or split by them."""
    if not available():
        return None
    if "repeat" in keys:
        # The pass tally has no question: a question's actor or language is counted directly.
        if filters.actors or filters.languages or any(key.startswith("question__") and key not in PASS_FIELDS
                                                      for key in keys):
            return None
        rows = filters.narrow(PassTally.objects.filter(n__gt=0), question="", scenario="")
        fields = [PASS_FIELDS.get(key, key) for key in keys]
    else:
        rows = filters.narrow(QuestionTally.objects.filter(n__gt=0, question__cfpd__isnull=False,
                                                           question__choice_count__gt=0))
        fields = keys
    frame = _fetch(rows.values(*fields).annotate(total=Sum("n")).order_by().values_list(*fields, "total"),
                   [*keys, "n"])
    return _without_judge_units(frame, filters, keys)


def _fetch(rows, columns: list[str]) -> pd.DataFrame:
    """The rows as a frame named `columns`, sent by PostgreSQL as CSV (COPY) and read by
    pandas' C parser: making Python tuples of 270,000 grouped rows and a frame of them
    cost 0.4 s, more than a third of the query itself (`bench/dashboard_scale.py`). Text
    columns stay text ("" is not missing)."""
    import pandas as pd

    try:
        sql, params = rows.query.sql_with_params()
    except EmptyResultSet:  # a filter that matches nothing (a model or domain that does not exist)
        return pd.DataFrame.from_records([], columns=columns)
    fields = dict(zip(columns, (_field(rows.model, path) for path in rows.query.values_select)))
    text = {column: str for column, field in fields.items() if isinstance(field, (CharField, TextField))}
    # NULL travels as \\N; a text value "\\N" too (quoted, which pandas does not tell
    # apart), so only the columns that may hold NULL read it as missing.
    missing = {column: ["\\N"] for column in columns if column not in text or fields[column].null}
    received = io.BytesIO()
    with transaction.atomic(), connection.cursor() as cursor:
        # The per-country count hashes 330,000 question rows into 57,000 groups: 4 MB
        # spills that to disk; JIT would compile for longer than the query runs.
        cursor.execute("SET LOCAL work_mem = '64MB'")
        cursor.execute("SET LOCAL jit = off")
        query = connection.ops.compose_sql(sql, params)
        with cursor.cursor.copy(f"COPY ({query}) TO STDOUT WITH (FORMAT csv, NULL '\\N')") as copy:
            for block in copy:
                received.write(block)
    if not received.tell():
        return pd.DataFrame.from_records([], columns=columns)
    received.seek(0)
    return pd.read_csv(received, header=None, names=columns, dtype=text, keep_default_na=False, na_values=missing)


def _field(model, path: str):
    """The field at `path` (Django's `a__b__c`, or "pk")."""
    *relations, name = path.split("__")
    for part in relations:
        model = model._meta.get_field(part).related_model
    return model._meta.pk if name == "pk" else model._meta.get_field(name)


def _without_judge_units(frame: pd.DataFrame, filters, keys: list[str]) -> pd.DataFrame:
    """The tallies count judge units (a judge model reading an answer) as answers; they
    are few, counted here from their requests and taken away."""
    import pandas as pd
    from django.db.models import Count

    from runs_app.models import Response

    judged = filters.narrow(Response.objects.judge_units().filter(question__choice_count__gt=0,
                                                                  question__cfpd__isnull=False))
    records = list(judged.values(*keys).annotate(total=Count("id")).order_by().values_list(*keys, "total"))
    if not records:
        return frame
    judge = pd.DataFrame.from_records(records, columns=[*keys, "n"])
    judge["n"] = -judge["n"]
    both = pd.concat([frame, judge], ignore_index=True).groupby(keys, dropna=False, sort=False, as_index=False)["n"].sum()
    return both[both["n"] > 0].reset_index(drop=True)
