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
- Its rows with no code or status filter: the benchmark's questions, each kept when the
  unique key (run, question, model, condition, repeat) holds an answer of it (one index
  probe each, a nested-loop semi-join), ordered by key. (A loose index scan of the unique
  key, a recursive query stepping to the next question, did the same probes at ~3x the
  cost per step: 2.0 s against 0.75 s for 66,473 questions at load 7.)
  Kept in the cache under the runs' stamp (`kept_rows`): only a unit added or removed
  changes them.
- Its rows with a code or status filter: the distinct questions of the answers that have
  them, inside `response_run_grid` for the pairs found (the filter's codes are index
  conditions there: a refusals-only grid reads its refusals' entries, not every answer).

What the grid shows is the same as reading the answers whole (the tests compare both);
it holds for every run, launched, imported or synthetic, whatever its plan: the answers
themselves are read, through an index (a run's answers are to its benchmark's questions:
the launch asks them, an import takes one benchmark's keys). The same SQL runs on SQLite."""

from __future__ import annotations

import hashlib

from django.core.cache import cache
from django.db import connection
from django.db.models import Max, Sum

from runs_app.models import Response, Run, RunProgress

TABLE = Response._meta.db_table
KEPT_SECONDS = 3600  # rows kept in the cache; any unit added or removed changes the key sooner


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


def rows(benchmark_id: int, run_ids, found_pairs, by_condition: bool, model_ids=None, condition_ids=None,
         codes=(), statuses=()) -> list[tuple]:
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
        # The benchmark's questions, each kept if the unique key (run, question, …) holds an
        # answer of it (one index probe each; the model and condition filters are index
        # conditions there), then ordered by key: a run's answers are to its benchmark's
        # questions (the launch asks them, an import takes one benchmark's keys).
        model_sql, model_params = _in("model_id", model_ids)
        run_sql, run_params = _in("run_id", run_ids)
        if by_condition:
            scope_sql, scope_params = " AND condition_id = c.id", []
            condition_sql, condition_params = _in("c.id", conditions)
            sql = (f"SELECT q.id, c.id FROM benchmarks_app_question q, benchmarks_app_condition c "
                   f"WHERE q.benchmark_id = %s{condition_sql} AND EXISTS (SELECT 1 FROM {TABLE} WHERE "
                   f"question_id = q.id{run_sql}{model_sql}{scope_sql}) ORDER BY q.key, c.position, c.name")
            params = [benchmark_id, *condition_params, *run_params, *model_params, *scope_params]
        else:
            scope_sql, scope_params = _in("condition_id", condition_ids)
            sql = (f"SELECT q.id FROM benchmarks_app_question q WHERE q.benchmark_id = %s AND EXISTS (SELECT 1 "
                   f"FROM {TABLE} WHERE question_id = q.id{run_sql}{model_sql}{scope_sql}) ORDER BY q.key")
            params = [benchmark_id, *run_params, *model_params, *scope_params]
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return [tuple(row) for row in cursor.fetchall()]
    return _ordered(distinct, params, by_condition)


def _ordered(distinct: str, params: list, by_condition: bool) -> list[tuple]:
    """The distinct row keys of `distinct` ordered as the grid lays them out."""
    if by_condition:
        sql = (f"SELECT found.question_id, found.condition_id FROM ({distinct}) found "
               "JOIN benchmarks_app_question q ON q.id = found.question_id "
               "JOIN benchmarks_app_condition c ON c.id = found.condition_id "
               "ORDER BY q.key, c.position, c.name")
    else:
        sql = (f"SELECT found.question_id FROM ({distinct}) found "
               "JOIN benchmarks_app_question q ON q.id = found.question_id ORDER BY q.key")
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [tuple(row) for row in cursor.fetchall()]


def stamp(run_ids) -> tuple:
    """What changes whenever a unit is added to or removed from one of the runs: per run,
    its creation time (ids can come back on SQLite after a rollback), its units counted
    by the progress counters (`RunProgress`, kept by triggers) and its highest unit id
    (one probe of the (run, id) index: ids only grow). A code or a status changing
    leaves it as it is, and the rows without a code or status filter with it."""
    created = dict(Run.objects.filter(pk__in=run_ids).values_list("pk", "created_at"))
    counted = dict(RunProgress.objects.filter(run_id__in=run_ids).values("run_id").annotate(n=Sum("n"))
                   .values_list("run_id", "n"))
    highest = {run: Response.objects.filter(run_id=run).aggregate(top=Max("id"))["top"] for run in run_ids}
    return tuple((run, created.get(run) and created[run].isoformat(), counted.get(run), highest[run])
                 for run in sorted(run_ids))


def kept_rows(benchmark_id: int, run_ids, found_pairs, by_condition: bool, model_ids=None, condition_ids=None,
              codes=(), statuses=()) -> list[tuple]:
    """`rows`, kept in the cache while the runs' units are the same (`stamp`) when the filter
    has no code or status (those rows change only with the units; a paper-scale run's
    take 66,473 probes, ~0.7 s on a loaded machine, and every page of the grid needs them).
    A code or status filter reads its rows each time (through response_run_grid)."""
    if codes or statuses:
        return rows(benchmark_id, run_ids, found_pairs, by_condition, model_ids, condition_ids, codes, statuses)
    described = repr((benchmark_id, stamp(run_ids), sorted(found_pairs), by_condition,
                      sorted(model_ids) if model_ids is not None else None,
                      sorted(condition_ids) if condition_ids is not None else None))
    key = "grid-rows:" + hashlib.sha256(described.encode()).hexdigest()
    try:
        found = cache.get(key)
    except Exception:  # the cache is a shortcut: without Redis the rows are read, the page shown
        found = None
    if found is None:
        found = rows(benchmark_id, run_ids, found_pairs, by_condition, model_ids, condition_ids)
        try:
            cache.set(key, found, KEPT_SECONDS)
        except Exception:
            pass
    return found
