"""Two runs' answers matched and counted in the database: the same rule as
`comparison.match` (pairs by question, model, condition and repeat, or without the
condition; a key asked more than once in a run pairs with nothing and is counted as
ambiguous), written as one self-join so that comparing runs of 100,000 answers each moves
a few thousand counts to Python, not 200,000 answers.

`count_pairs` returns the transitions (code A, code B) → n per model and per question,
kept codes included, and the answers of each run (all, and those whose key is unique);
`changed_pairs` one page of the changed pairs' ids, in the order of A's ids.
`tests/explorer_app/test_answer_grid.py` holds these equal to `comparison.match` on the
same answers."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from django.db import connection

from runs_app.models import Response

TABLE = Response._meta.db_table


def _pairs_sql(model_ids, ignore_condition: bool) -> tuple[str, list]:
    """The WITH clause naming a, b (each run's answers, k = how often its key occurs) and
    pairs (the matched ones), with its parameters after the two run ids."""
    only = f" AND model_id IN ({', '.join(['%s'] * len(model_ids))})" if model_ids else ""
    # With the condition, a key is one unit: unique in its run (the constraint
    # one_response_per_unit), so k is 1 and both sides are read in the order of that
    # constraint's index, merge-joined without a sort. Without it, a key may occur under
    # several conditions: a window counts them.
    k = ('COUNT(*) OVER (PARTITION BY question_id, model_id, "repeat")' if ignore_condition else "1")
    side = (f'SELECT id, question_id, model_id, condition_id, "repeat", code, {k} AS k '
            f"FROM {TABLE} WHERE run_id = %s{only}")
    join = ('a.question_id = b.question_id AND a.model_id = b.model_id AND a."repeat" = b."repeat"'
            + ("" if ignore_condition else " AND a.condition_id = b.condition_id"))
    sql = (f"WITH a AS ({side}), b AS ({side}), pairs AS (SELECT a.id AS a_id, b.id AS b_id, a.question_id, "
           f"a.model_id, a.code AS a_code, b.code AS b_code FROM a JOIN b ON {join} WHERE a.k = 1 AND b.k = 1) ")
    return sql, list(model_ids)


@dataclass
class PairCounts:
    by_model: dict = field(default_factory=dict)  # model id → Counter{(code A, code B): n}
    by_question: dict = field(default_factory=dict)  # question id → Counter
    answers_a: int = 0
    answers_b: int = 0
    unique_a: int = 0  # answers whose key occurs once in their run
    unique_b: int = 0

    @property
    def transitions(self) -> Counter:
        total = Counter()
        for counts in self.by_model.values():
            total.update(counts)
        return total

    @property
    def matched(self) -> int:
        return sum(sum(c.values()) for c in self.by_model.values())

    @property
    def changed(self) -> int:
        return sum(n for c in self.by_model.values() for (a, b), n in c.items() if a != b)

    @property
    def only_a(self) -> int:
        return self.unique_a - self.matched

    @property
    def only_b(self) -> int:
        return self.unique_b - self.matched

    @property
    def ambiguous(self) -> int:
        return self.answers_a - self.unique_a + self.answers_b - self.unique_b


def count_pairs(run_a: int, run_b: int, model_ids=(), ignore_condition: bool = False) -> PairCounts:
    """Two queries: the pairs' transitions per model and per question (each run read once,
    in index order), then each run's answers by how often their key occurs (a run's side
    referenced twice in one query would be materialised and sorted again: 0.9 s instead of
    0.3 s at 100,000 answers a run on PostgreSQL)."""
    with_clause, models = _pairs_sql(model_ids, ignore_condition)
    parameters = [run_a, *models, run_b, *models]
    found = PairCounts()
    with connection.cursor() as cursor:
        cursor.execute(with_clause + (
            "SELECT 'm', model_id, a_code, b_code, COUNT(*) FROM pairs GROUP BY model_id, a_code, b_code "
            "UNION ALL "
            "SELECT 'q', question_id, a_code, b_code, COUNT(*) FROM pairs GROUP BY question_id, a_code, b_code"),
            parameters)
        for kind, key, code_a, code_b, n in cursor.fetchall():
            target = found.by_model if kind == "m" else found.by_question
            target.setdefault(key, Counter())[code_a, code_b] += n
        cursor.execute(with_clause + "SELECT 'a', k, COUNT(*) FROM a GROUP BY k UNION ALL "
                                     "SELECT 'b', k, COUNT(*) FROM b GROUP BY k", parameters)
        for side, k, n in cursor.fetchall():
            total, unique = ("answers_a", "unique_a") if side == "a" else ("answers_b", "unique_b")
            setattr(found, total, getattr(found, total) + n)
            if k == 1:
                setattr(found, unique, n)
    return found


def changed_pairs(run_a: int, run_b: int, model_ids=(), ignore_condition: bool = False, *, offset: int = 0,
                  limit: int = 50) -> list[tuple[int, int]]:
    """(answer of A, answer of B) of the changed pairs, in the order of A's ids, one page."""
    with_clause, models = _pairs_sql(model_ids, ignore_condition)
    sql = with_clause + "SELECT a_id, b_id FROM pairs WHERE a_code <> b_code ORDER BY a_id LIMIT %s OFFSET %s"
    with connection.cursor() as cursor:
        cursor.execute(sql, [run_a, *models, run_b, *models, limit, offset])
        return [tuple(row) for row in cursor.fetchall()]


def conditions_of(run_ids) -> dict[int, list[int]]:
    """The conditions each run's answers were asked under."""
    found: dict[int, list[int]] = {run: [] for run in run_ids}
    for run, condition in (Response.objects.filter(run_id__in=run_ids).order_by()
                           .values_list("run_id", "condition_id").distinct()):
        found[run].append(condition)
    return found
