"""Which columns and rows a grid of runs has, read by index probes rather than by reading
every answer of the runs (issue 42: the grid of a 2.66 M-answer run read its distinct
(model, condition) pairs and its distinct questions ordered by key over all its answers,
22–32 s, before its page of cells, 19 ms).

- The (model, condition) pairs of a run: a loose index scan over `response_run_grid`
  (run, model, condition, code, status, question): the next model after the last one
  found is one probe (`MIN(model_id) … WHERE run_id = %s AND model_id > %s`), the next
  condition of a model another; a pair is then kept if an answer of it has one of the
  filter's codes and statuses (`EXISTS`, inside the same index). A run of 8 models under
  one condition is about 25 probes, whatever its answers.
- Its rows with no code or status filter: a loose index scan over the unique key (run,
  question, model, condition, repeat) as one recursive query (the next question after the
  last one found, per run, and per condition when rows are by condition), then ordered by
  the questions' keys: one probe per question.
- Its rows with a code or status filter: the distinct questions of the answers that have
  them, inside `response_run_grid` for the pairs found (the filter's codes are index
  conditions there: a refusals-only grid reads its refusals' entries, not every answer).

What the grid shows is the same as reading the answers whole (the tests compare both);
it holds for every run, launched, imported or synthetic, whatever its plan: the answers
themselves are read, through an index. The same SQL runs on SQLite."""

from __future__ import annotations

from django.db import connection

from runs_app.models import Response

TABLE = Response._meta.db_table


def _in(column: str, values) -> tuple[str, list]:
    """` AND column IN (%s, …)` and its parameters ("" when `values` is None: no filter)."""
    if values is None:
        return "", []
    values = sorted(values)
    if not values:
        return " AND 1 = 0", []
    return f" AND {column} IN ({', '.join(['%s'] * len(values))})", list(values)


def _codes(codes) -> tuple[str, list]:
    """The code filter as SQL ("none" is no code, as `filter_params.empty_or`)."""
    if not codes:
        return "", []
    wanted = sorted({"" if c == "none" else c for c in codes})
    return f" AND code IN ({', '.join(['%s'] * len(wanted))})", wanted


def pairs(run_ids, model_ids=None, condition_ids=None, codes=(), statuses=()) -> set[tuple[int, int]]:
    """The (model id, condition id) pairs of the runs' answers that match the filter
    (`model_ids`, `condition_ids`: None for any; `codes`, `statuses`: empty for any)."""
    found = set()
    code_sql, code_params = _codes(codes)
    status_sql, status_params = _in("status", statuses or None)
    with connection.cursor() as cursor:
        def first(sql, params):
            cursor.execute(sql, params)
            return cursor.fetchone()[0]

        for run in run_ids:
            model = first(f"SELECT MIN(model_id) FROM {TABLE} WHERE run_id = %s", [run])
            while model is not None:
                if model_ids is None or model in model_ids:
                    condition = first(f"SELECT MIN(condition_id) FROM {TABLE} WHERE run_id = %s AND model_id = %s",
                                      [run, model])
                    while condition is not None:
                        if (condition_ids is None or condition in condition_ids) and (model, condition) not in found:
                            if not (code_sql or status_sql) or first(
                                    f"SELECT EXISTS (SELECT 1 FROM {TABLE} WHERE run_id = %s AND model_id = %s "
                                    f"AND condition_id = %s{code_sql}{status_sql})",
                                    [run, model, condition, *code_params, *status_params]):
                                found.add((model, condition))
                        condition = first(f"SELECT MIN(condition_id) FROM {TABLE} WHERE run_id = %s AND model_id = %s "
                                          "AND condition_id > %s", [run, model, condition])
                model = first(f"SELECT MIN(model_id) FROM {TABLE} WHERE run_id = %s AND model_id > %s", [run, model])
    return found


def rows(run_ids, found_pairs, by_condition: bool, model_ids=None, condition_ids=None, codes=(),
         statuses=()) -> list[tuple]:
    """Every row of the grid in its order — (question id,) by question, (question id,
    condition id) by condition — ordered by the question's key (then the condition's
    position and name): the rows of which some answer matches the filter. `found_pairs`:
    what `pairs` found for the same filter (the rows' answers are of those pairs)."""
    if not found_pairs:
        return []
    conditions = sorted({c for _, c in found_pairs})
    if codes or statuses:
        # Inside response_run_grid: the pairs' ranges with the codes as index conditions.
        models = sorted({m for m, _ in found_pairs})
        where, params = _in("run_id", run_ids)
        for column, values in (("model_id", models), ("condition_id", conditions)):
            sql, more = _in(column, values)
            where, params = where + sql, params + more
        for sql, more in (_codes(codes), _in("status", statuses or None)):
            where, params = where + sql, params + more
        keys = "question_id, condition_id" if by_condition else "question_id"
        distinct = f"SELECT DISTINCT {keys} FROM {TABLE} WHERE 1 = 1{where}"
    else:
        # Loose index scan over the unique key (run, question, …): per run (and condition,
        # when rows are by condition), the next question after the last one found.
        model_sql, model_params = _in("model_id", model_ids)
        if by_condition:
            seeds = [(run, condition) for run in run_ids for condition in conditions]
            scope_sql, scope_params = " AND condition_id = seen.condition_id", []
        else:
            seeds = [(run, 0) for run in run_ids]  # (no condition: any)
            scope_sql, scope_params = _in("condition_id", condition_ids)
        filter_sql, filter_params = model_sql + scope_sql, model_params + scope_params
        seed_sql = " UNION ALL ".join(["SELECT CAST(%s AS INTEGER) AS run_id, CAST(%s AS INTEGER) AS condition_id"]
                                      * len(seeds))
        seed_params = [value for seed in seeds for value in seed]
        scan = (f"WITH RECURSIVE seen(run_id, condition_id, question_id) AS ("
                f"SELECT seed.run_id, seed.condition_id, (SELECT MIN(question_id) FROM {TABLE} WHERE "
                f"run_id = seed.run_id{filter_sql.replace('seen.', 'seed.')}) FROM ({seed_sql}) seed "
                f"UNION ALL SELECT seen.run_id, seen.condition_id, (SELECT MIN(question_id) FROM {TABLE} WHERE "
                f"run_id = seen.run_id AND question_id > seen.question_id{filter_sql}) FROM seen "
                f"WHERE seen.question_id IS NOT NULL) ")
        keys = "question_id, condition_id" if by_condition else "question_id"
        distinct = f"SELECT DISTINCT {keys} FROM seen WHERE question_id IS NOT NULL"
        params = filter_params + seed_params + filter_params  # in the order of their placeholders
        return _ordered(scan, distinct, params, by_condition)
    return _ordered("", distinct, params, by_condition)


def _ordered(prefix: str, distinct: str, params: list, by_condition: bool) -> list[tuple]:
    """The distinct row keys of `distinct` ordered as the grid lays them out."""
    if by_condition:
        sql = (f"{prefix}SELECT found.question_id, found.condition_id FROM ({distinct}) found "
               "JOIN benchmarks_app_question q ON q.id = found.question_id "
               "JOIN benchmarks_app_condition c ON c.id = found.condition_id "
               "ORDER BY q.key, c.position, c.name")
    else:
        sql = (f"{prefix}SELECT found.question_id FROM ({distinct}) found "
               "JOIN benchmarks_app_question q ON q.id = found.question_id ORDER BY q.key")
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [tuple(row) for row in cursor.fetchall()]
