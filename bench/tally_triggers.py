"""What CFPD's tally triggers cost another family's answers (issue 39), side by side: the
triggers as they were (every answer grouped into the question tally), as they are (a first
join on CFPD's questions leaves other families' answers out), and none.

N answers of a non-CFPD benchmark (a territorial question set) and N CFPD answers are written
once. Each round, for each configuration in turn and each family: the answers deleted, put
back and their codes changed, one SQL statement each (no Python per row: the triggers' work
and PostgreSQL's), in a transaction rolled back. Prints the median wall time per statement
kind and configuration, and the part of it spent in the triggers' functions (PostgreSQL's own
count, `track_functions`), which the machine's load moves far less than the wall time.

    BENCH_DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/cfpd_bench_tally \\
        .venv/bin/python bench/tally_triggers.py [--answers 20000] [--rounds 5] [--json]

Needs PostgreSQL (the database is dropped, created and migrated, as bench/run_throughput.py).
"""

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("BENCH_DATABASE_URL", "postgres://postgres:postgres@127.0.0.1:5432/cfpd_bench_tally")
sys.path.insert(0, str(Path(__file__).resolve().parent))
import run_throughput  # noqa: E402 — sets the bench's database


def old_upserts(delta: str) -> str:
    """The triggers' upserts before issue 39's change (kept here to compare): every answer's
    keys grouped into the question tally, CFPD's joined for the pass tally only."""
    from scenarios_app.analysis import tally as t

    question, passes = ", ".join(t.QUESTION_KEYS), ", ".join(t.PASS_KEYS)
    return f"""
        WITH delta AS ({delta}),
        by_question AS (
            INSERT INTO {t.QUESTION_TABLE} ({question}, n, changed)
            SELECT {question}, SUM(d), nextval('{t.SEQUENCE}') FROM delta
            GROUP BY {t._numbers(len(t.QUESTION_KEYS))} HAVING SUM(d) <> 0 ORDER BY {t._numbers(len(t.QUESTION_KEYS))}
            {t._upsert_tail(t.QUESTION_TABLE, question)})
        INSERT INTO {t.PASS_TABLE} ({passes}, n, changed)
        SELECT delta.run_id, delta.model_id, delta.condition_id, cfpd.scenario_id, cfpd.domain_id, cfpd.variant,
               question.choice_count, delta."repeat", delta.code, delta.code_source, delta.status, SUM(d),
               nextval('{t.SEQUENCE}')
        FROM delta JOIN scenarios_app_scenarioquestion cfpd ON cfpd.question_id = delta.question_id
                   JOIN benchmarks_app_question question ON question.id = delta.question_id
        WHERE question.choice_count > 0
        GROUP BY {t._numbers(len(t.PASS_KEYS))} HAVING SUM(d) <> 0 ORDER BY {t._numbers(len(t.PASS_KEYS))}
        {t._upsert_tail(t.PASS_TABLE, passes)};"""


def install(kind: str):
    from django.db import connection

    from scenarios_app.analysis import tally as t

    if kind == "none":
        t.uninstall()
        return
    original = t._upserts
    if kind == "before":
        t._upserts = old_upserts
    try:
        with connection.cursor() as cursor:
            for statement in t.INSTALL:
                cursor.execute(statement)
    finally:
        t._upserts = original


def questions_of(benchmark_name: str, family: str, count: int):
    from benchmarks_app.models import Benchmark, Question

    benchmark = Benchmark.objects.create(name=benchmark_name, title=benchmark_name, family=family)
    return Question.objects.bulk_create([
        Question(benchmark=benchmark, key=f"{benchmark_name}/{i}", text=f"Q{i}", options=[{"text": "X"}, {"text": "Y"}],
                 option_order=[0, 1], choice_count=2) for i in range(count)])


def make_answers(run, model, question_ids, answers) -> str:
    """`answers` rows over the questions, kept; a temporary table holds a copy (named back)."""
    from django.db import connection

    from runs_app.unit_rows import create_rows

    per = max(1, answers // len(question_ids))
    create_rows([dict(run=run, question_id=q, model=model, repeat=r, option_order=[0, 1], status="done",
                      chosen_letter="A", code="A", code_source="choice") for q in question_ids for r in range(per)],
                batch_size=5000)
    name = f"snapshot_{question_ids[0]}"
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE TEMP TABLE {name} AS SELECT * FROM runs_app_response WHERE question_id = ANY(%s)",
                       [list(question_ids)])
    return name


TRIGGER_MS = ("SELECT coalesce(sum(total_time), 0) FROM pg_stat_xact_user_functions "
              "WHERE funcname LIKE 'analysis_tally_%%'")


def timed_writes(snapshot: str):
    """[(statement, wall seconds, the triggers' own milliseconds)] of one SQL statement each
    over the snapshot's rows — delete, put back, codes changed — in a transaction rolled back.
    The triggers' time is PostgreSQL's own count (track_functions, per transaction), apart
    from the index upkeep and the table's work, which every configuration pays alike."""
    from django.db import connection, transaction

    found = []
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL track_functions = 'pl'")
        for statement, sql in (("delete", f"DELETE FROM runs_app_response WHERE id IN (SELECT id FROM {snapshot})"),
                               ("insert", f"INSERT INTO runs_app_response SELECT * FROM {snapshot}"),
                               ("update", f"UPDATE runs_app_response SET code = 'B' WHERE id IN "
                                          f"(SELECT id FROM {snapshot})")):
            cursor.execute(TRIGGER_MS)
            before = cursor.fetchone()[0]
            started = time.perf_counter()
            cursor.execute(sql)
            wall = time.perf_counter() - started
            cursor.execute(TRIGGER_MS)
            found.append((statement, wall, cursor.fetchone()[0] - before))
        transaction.set_rollback(True)
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--answers", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    run_throughput.ensure_database()
    import django

    django.setup()
    from django.core.management import call_command

    from runs_app.models import LLMModel
    from runs_app.services import create_run

    call_command("migrate", verbosity=0)
    call_command("load_synthetic_answers", questions=2000, models=1, repeats=1, verbosity=0)
    from benchmarks_app.models import Benchmark, Question

    cfpd_ids = list(Question.objects.filter(benchmark__name="synthetic").values_list("pk", flat=True)[:1000])
    other_ids = [q.pk for q in questions_of("disputes", "territories", 1000)]
    model = LLMModel.objects.get(name="local-smollm2")
    run = create_run("import", Benchmark.objects.get(name="disputes"), [model])
    snapshots = {"territories": make_answers(run, model, other_ids, args.answers),
                 "cfpd": make_answers(run, model, cfpd_ids, args.answers)}
    times, trigger = {}, {}
    for _ in range(args.rounds):
        for kind in ("before", "after", "none"):
            install(kind)
            for family, snapshot in snapshots.items():
                for statement, seconds, trigger_ms in timed_writes(snapshot):
                    times.setdefault((kind, family, statement), []).append(seconds)
                    trigger.setdefault((kind, family, statement), []).append(trigger_ms)
    install("after")
    for (kind, family, statement), values in sorted(times.items()):
        median, own = statistics.median(values), statistics.median(trigger[(kind, family, statement)])
        line = {"bench": "tally_triggers", "configuration": f"{family} answers, {statement}, triggers {kind}",
                "triggers": kind, "family": family, "statement": statement, "answers": args.answers,
                "rounds": args.rounds, "seconds": round(median, 4), "best": round(min(values), 4),
                "trigger_ms": round(own, 1)}
        print(json.dumps(line) if args.json else
              f"{family:<12} {statement:<7} triggers {kind:<7} {median * 1000:8.1f} ms (best {min(values) * 1000:.1f}); "
              f"in the triggers {own:7.1f} ms")


if __name__ == "__main__":
    main()
