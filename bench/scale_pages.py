"""The operators' and analysts' pages on the synthetic benchmark's answers, at whatever scale
the database holds (issue 42: 2.66 M and 10.6 M answers side by side), on PostgreSQL.

    DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/cfpd_scale \\
        .venv/bin/python bench/scale_pages.py [--questions 66473] [--load] [--rounds 5] [--json]

Loads the synthetic answers (`load_synthetic_answers`: --questions x 8 models x 5 repeats,
one finished run) when the benchmark is absent or with --load, VACUUM ANALYZEs the answers,
then measures each page in a fresh Python process (`--one PATH`) through django.test.Client
signed in as an analyst (DEBUG on, as in the other benches): the process's first load of the
page (cold: its imports and templates, its queries not run before), then --rounds warm loads
(best and median), the process's peak resident memory, and the load average beside it. Pages
whose figures a worker computes (the CFPD dashboard's board, the models' headline figures)
are computed after the cold load as the worker would, in that process: their seconds are
the dashboard's (and the profile's) cold build. Then the database's size on disk.

Four languages x 66,473 questions are loaded as --questions 265892 (a language is another
question of the benchmark to every page and count).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import scale_db  # bench/ is sys.path[0] when run as a script

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DATABASE_URL", "postgres://postgres:postgres@127.0.0.1:5432/cfpd_scale")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cfpd_site.settings")
os.environ.setdefault("DEBUG", "1")

BENCHMARK = "synthetic"
ANALYST = "bench-scale-pages"
BUILT_BY_WORKER = ("cfpd-dashboard", "model-headlines")

PAGES = {  # name: path (RUN filled in at run time)
    "run page": "/runs/RUN/",
    "progress JSON": "/runs/RUN/progress.json",
    "answers list, newest first": "/answers/",
    "answers list, one run": "/answers/?run=RUN",
    "answers list, refusals (code R)": "/answers/?code=R",
    "answers list, search 'merit'": "/answers/?q=merit",
    "grid, first page": "/answers/grid/?run=RUN",
    "grid, code R only": "/answers/grid/?run=RUN&code=R",
    "dashboard (CFPD), all answers": "/analysis/cfpd/",
    "profile of synthetic-1": "/models/synthetic-1/",
}


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def one(path: str, rounds: int) -> dict:
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.test import Client
    from django.utils import timezone

    from analysis_app import computed
    from analysis_app.models import ComputedFigure

    client = Client(SERVER_NAME="localhost")
    client.force_login(get_user_model().objects.get(username=ANALYST))

    def load():
        begin = time.perf_counter()
        response = client.get(path)
        if response.status_code == 302:
            response = client.get(response["Location"])
        seconds = time.perf_counter() - begin
        if response.status_code != 200:
            raise SystemExit(f"{path}: HTTP {response.status_code}")
        return seconds

    asked = timezone.now()
    cold = load()
    built = None
    figures = list(ComputedFigure.objects.filter(kind__in=BUILT_BY_WORKER, status="pending", requested_at__gte=asked))
    if figures:
        begin = time.perf_counter()
        for figure in figures:
            computed.compute(figure.pk)
        built = time.perf_counter() - begin
        load()  # the page with its figures, once, before the warm loads
    warm = [load() for _ in range(rounds)]
    return {"path": path, "cold_s": round(cold, 3), "built_s": round(built, 2) if built is not None else None,
            "warm_best_s": round(min(warm), 3), "warm_median_s": round(statistics.median(warm), 3),
            "peak_mib": round(peak_mib()), "load": round(os.getloadavg()[0], 2)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=66_473)
    parser.add_argument("--load", action="store_true")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--page", action="append", help="only these pages (names as listed)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.one, args.rounds)))
        return
    out = sys.stderr if args.json else sys.stdout
    started = time.perf_counter()
    loaded = scale_db.prepared(BENCHMARK, args.load, out, questions=args.questions)
    if loaded:
        print(f"loaded in {time.perf_counter() - started:.0f} s (load {os.getloadavg()[0]:.2f})", file=out)
    from django.db import connection

    from runs_app.models import Response, Run

    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE runs_app_response")
    scale_db.signed_in_client(ANALYST)
    run = Run.objects.filter(benchmark__name=BENCHMARK).order_by("-pk").first()
    answers = Response.objects.filter(run=run).count()
    print(f"{answers:,} answers in run {run.pk}", file=out)
    for name, path in PAGES.items():
        if args.page and name not in args.page:
            continue
        path = path.replace("RUN", str(run.pk))
        result = subprocess.run([sys.executable, __file__, "--one", path, "--rounds", str(args.rounds)],
                                capture_output=True, text=True, check=False)
        if result.returncode:
            print(f"{name}: failed\n{result.stderr[-2000:]}", file=out)
            continue
        record = json.loads(result.stdout.strip().splitlines()[-1])
        record.update(page=name, answers=answers)
        if args.json:
            print(json.dumps(record))
        built = f", built by the worker in {record['built_s']} s" if record["built_s"] is not None else ""
        print(f"{name}: cold {record['cold_s']} s{built}, warm best {record['warm_best_s']} s median "
              f"{record['warm_median_s']} s, peak {record['peak_mib']} MiB (load {record['load']})", file=out)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_size_pretty(pg_database_size(current_database())), "
                       "pg_size_pretty(pg_total_relation_size('runs_app_response'))")
        database, table = cursor.fetchone()
    print(f"database {database} on disk, of which the answers table with its indexes {table}", file=out)


if __name__ == "__main__":
    main()
