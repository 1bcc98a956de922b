"""The worker's claim on answers partitioned by run (`partition_answers`), by unit id alone
and naming its run, at a given number of partitions: planning time, execution time and the
locks its transaction holds after it (each try rolled back). Empty done runs are added
until there are --partitions (the triggers make their partitions; they stay).

    DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/cfpd_x \\
        nice .venv/bin/python bench/claim_partitions.py RUN [--partitions 301] [--tries 7]

RUN: a run with answers (e.g. from `load_synthetic_answers --benchmark small --questions
100`), its first 10 units claimed. The statement is `transitions.claim`'s shape.
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cfpd_site.settings")

import django  # noqa: E402

django.setup()

from django.db import connection, transaction  # noqa: E402

from runs_app import partitions  # noqa: E402
from runs_app.models import Response, Run  # noqa: E402

CLAIM = ("UPDATE runs_app_response SET status = 'running', claim_token = 'bench' WHERE id IN ({ids}) {run} "
         "AND (status = 'pending' OR (status = 'running' AND lease_expires_at < now())) "
         "AND run_id IN (SELECT id FROM runs_app_run WHERE status IN ('queued', 'running'))")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("run", type=int)
    parser.add_argument("--partitions", type=int, default=301)
    parser.add_argument("--tries", type=int, default=7)
    args = parser.parse_args()
    with connection.cursor() as cursor:
        if not partitions.is_partitioned(cursor):
            sys.exit("the answers are not partitioned: run `manage.py partition_answers` first")
        have = len(partitions.partitions(cursor))
    run = Run.objects.get(pk=args.run)
    if have < args.partitions:
        Run.objects.bulk_create([Run(benchmark=run.benchmark, status="done") for _ in range(args.partitions - have)])
    ids = ", ".join(map(str, Response.objects.filter(run=run).order_by("pk").values_list("pk", flat=True)[:10]))
    print(f"partitions: {len(partitions.partitions(connection.cursor()))}")
    for label, named in (("by id alone", ""), ("naming its run", f"AND run_id IN ({run.pk})")):
        plans, runs, locks = [], [], 0
        for _ in range(args.tries):
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute("EXPLAIN (ANALYZE, SUMMARY) " + CLAIM.format(ids=ids, run=named))
                text = "\n".join(row[0] for row in cursor.fetchall())
                plans.append(float(re.search(r"Planning Time: ([\d.]+)", text).group(1)))
                runs.append(float(re.search(r"Execution Time: ([\d.]+)", text).group(1)))
                cursor.execute("SELECT count(*) FROM pg_locks WHERE pid = pg_backend_pid()")
                (locks,) = cursor.fetchone()
                transaction.set_rollback(True)
        print(f"{label}: planning median {statistics.median(plans[1:]):.2f} ms (first {plans[0]:.2f}), "
              f"execution median {statistics.median(runs[1:]):.2f} ms, locks held {locks}")


if __name__ == "__main__":
    main()
