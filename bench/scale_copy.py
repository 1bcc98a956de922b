"""Four times the papers' scale from the papers' scale, in the database: the synthetic
benchmark's finished run (`load_synthetic_answers`, 2.66 M coded answers) copied into
--copies more runs of the same benchmark by one INSERT ... SELECT each (the tally and
progress triggers count them as any write), so that the table holds (1 + copies) x its
answers: 10.6 M with --copies 3, as 66,473 questions x 8 models x 5 repeats x 4 languages
would. Loading 10.6 M answers through `load_synthetic_answers` takes over an hour on this
shared machine; a copy takes minutes.

    DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/cfpd_scale .venv/bin/python bench/scale_copy.py [--copies 3]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cfpd_site.settings")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=3)
    parser.add_argument("--benchmark", default="synthetic")
    args = parser.parse_args()
    import django

    django.setup()
    from django.db import connection, transaction

    from runs_app.models import Response, Run

    source = Run.objects.filter(benchmark__name=args.benchmark).order_by("pk").first()
    models = list(source.llm_models.all())
    columns = [f.column for f in Response._meta.concrete_fields if f.column not in ("id", "run_id")]
    names = ", ".join(f'"{c}"' for c in columns)
    for copy in range(args.copies):
        started = time.perf_counter()
        with transaction.atomic():
            run = Run.objects.get(pk=source.pk)
            run.pk = None
            run.name = f"{source.name} (copy {copy + 1})" if hasattr(run, "name") else None
            run.save()
            run.llm_models.set(models)
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL jit = off")
                cursor.execute(f"INSERT INTO runs_app_response (run_id, {names}) SELECT %s, {names} "
                               f"FROM runs_app_response WHERE run_id = %s", [run.pk, source.pk])
                rows = cursor.rowcount
        print(f"copy {copy + 1}: run {run.pk}, {rows:,} answers in {time.perf_counter() - started:.0f} s "
              f"(load {os.getloadavg()[0]:.2f})", flush=True)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE runs_app_response")
    print(f"{Response.objects.count():,} rows in the answers table", flush=True)


if __name__ == "__main__":
    main()
