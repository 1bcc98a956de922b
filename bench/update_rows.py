"""Worker CPU of writing a batch's answers: the statement `answer_rows._update_rows`
sends, side by side with the one it sent before.

Both write the 20 answer fields of B rows (B = 64: the batch size at concurrency 128) in
one UPDATE on PostgreSQL:

* ``placeholders`` (before): ``UPDATE … FROM (VALUES (%s::varchar(10), …), …)``, one
  placeholder per value (21 per row, 1,344 for 64 rows): psycopg splits the long
  statement and quotes every value in Python at each batch (a statement over 4 KiB is
  not in its cache);
* ``json`` (now): ``UPDATE … FROM jsonb_to_recordset(%s::jsonb)``: the rows as one JSON
  text, made by the json module's C encoder; PostgreSQL types the columns.

Each round writes the same rows with both, in turn, inside one transaction that is
rolled back (nothing kept; the answers' tally triggers run as they do in a worker).
Prints, per statement, this process's CPU time per batch (what the worker spends) and
the wall time per batch (CPU plus PostgreSQL's work and the round trip), best and
median of --rounds, and their ratio.

    .venv/bin/python bench/update_rows.py [--rows 64] [--rounds 200] [--json]

Needs PostgreSQL (BENCH_DATABASE_URL, as bench/run_throughput.py: that database is
dropped, created and migrated).
"""

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run_throughput  # noqa: E402 — sets the bench's database


def placeholders_update(rows):
    """The statement as `_update_rows` sent it up to this change (kept here to compare)."""
    from django.db import connection

    from runs_app.answer_rows import ANSWER_FIELDS
    from runs_app.models import Response

    fields = [Response._meta.get_field(name) for name in ANSWER_FIELDS]
    quote = connection.ops.quote_name
    table, pk = quote(Response._meta.db_table), quote(Response._meta.pk.column)
    values = [[field.get_db_prep_save(getattr(row, field.attname), connection) for field in fields] + [row.pk]
              for row in rows]
    casts = [f"%s::{field.db_type(connection)}" for field in fields] + ["%s::bigint"]
    row_sql = "(" + ", ".join(casts) + ")"
    names = ", ".join([quote(field.column) for field in fields] + ["id"])
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} AS t SET "
            + ", ".join(f"{quote(field.column)} = v.{quote(field.column)}" for field in fields)
            + f" FROM (VALUES {', '.join([row_sql] * len(values))}) AS v ({names}) WHERE t.{pk} = v.id",
            [value for row in values for value in row])


def answered_rows(count):
    """`count` pending units of a fresh run, with the answer fields a batch writes set as
    `execution._answer_row` sets them for a choice answer."""
    from django.utils import timezone

    from gateway import llm
    from runs_app import services
    from runs_app.execution import Unit, _answer_row
    from runs_app.models import LLMModel, Response

    benchmark = run_throughput.questions(count)
    model, _ = LLMModel.objects.update_or_create(name="bench-update-rows", defaults=dict(
        litellm_model="openai/fake", api_base="http://127.0.0.1:9/v1", answer_mode="choice"))
    run = services.launch_run(benchmark, [model], use_cache=False)
    now = timezone.now()
    rows = []
    for response in Response.objects.filter(run=run).order_by("pk"):
        unit = Unit(response, record={"messages": [{"role": "user", "content": f"Question {response.pk}?"}],
                                       "params": {"temperature": 0, "max_tokens": 1, "logprobs": True}})
        unit.result = llm.LLMResult(text="A", resolved_model="fake", finish_reason="stop", latency_ms=203,
                                    prompt_tokens=41, completion_tokens=1, cost=0.0000123,
                                    option_logprobs={"A": -0.01, "B": -4.6}, chosen_letter="A")
        rows.append(_answer_row(unit, now))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=64, help="rows per batch (64: the batch at concurrency 128)")
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    run_throughput.ensure_database()
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import transaction

    from runs_app.answer_rows import _update_rows

    call_command("migrate", verbosity=0)
    rows = answered_rows(args.rows)
    statements = {"placeholders": placeholders_update, "json": _update_rows}
    cpu = {name: [] for name in statements}
    wall = {name: [] for name in statements}
    for _ in range(args.rounds):
        for name, write in statements.items():
            with transaction.atomic():
                cpu_started, started = time.process_time(), time.perf_counter()
                write(rows)
                cpu[name].append(time.process_time() - cpu_started)
                wall[name].append(time.perf_counter() - started)
                transaction.set_rollback(True)
    for name in statements:
        figures = {"cpu_ms_best": min(cpu[name]) * 1000, "cpu_ms_median": statistics.median(cpu[name]) * 1000,
                   "wall_ms_best": min(wall[name]) * 1000, "wall_ms_median": statistics.median(wall[name]) * 1000}
        if args.json:
            print(json.dumps({"bench": "update_rows", "configuration": f"{name}: worker CPU per batch of {args.rows}",
                              "statement": name, "rows": args.rows, "rounds": args.rounds,
                              "seconds": statistics.median(cpu[name]),
                              **{key: round(value, 3) for key, value in figures.items()}}), flush=True)
        else:
            print(f"{name:<13} {args.rows} rows: worker CPU {figures['cpu_ms_median']:.2f} ms per batch "
                  f"(best {figures['cpu_ms_best']:.2f}), wall {figures['wall_ms_median']:.2f} ms "
                  f"(best {figures['wall_ms_best']:.2f}); median of {args.rounds}")
    if not args.json:
        ratio = statistics.median(cpu["placeholders"]) / statistics.median(cpu["json"])
        print(f"worker CPU, placeholders / json: {ratio:.1f}x")


if __name__ == "__main__":
    main()
