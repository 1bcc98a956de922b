"""The answers list (/answers/) at the paper's scale: a page of 50 answers out of about
2.66 million on PostgreSQL, cold and warm, for the filters, searches, sorts and a deep page.

    DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/cfpd_scale .venv/bin/python bench/answers_list.py
    ... bench/answers_list.py --load             # (re)load the synthetic answers first
    ... bench/answers_list.py --rounds 5 --json  # JSON lines only
    ... bench/answers_list.py --explain          # EXPLAIN (ANALYZE, BUFFERS) of each case's page query

Creates and migrates the database if needed and loads the synthetic answers
(`load_synthetic_answers`, 66,473 questions x 8 models x 5 repeats) when its benchmark is
absent, then VACUUM ANALYZEs the answers. Each case is measured in a fresh Python process
(`--one CASE`) through django.test.Client as an analyst (DEBUG on, as in the other benches):

- first: the process's first request (a new database connection, Django's first request:
  imports, URL resolving, template compiling), of another filter of the list, reported
  apart (seconds on a loaded machine, whatever the database holds);
- cold: then the case's page, its query not run before in the process;
- warm: the same request again, best and median of --rounds.

Target: under 0.5 s a page. The PostgreSQL buffers are shared between processes, so
"cold" is cold for the process and its connection, not for the server's cache (the
machine's cache cannot be dropped without root).
"""

import argparse
import json
import os
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
# As the other benches: DEBUG on, so static files need no collectstatic manifest (a page
# runs about ten statements: the debug cursor's cost is well under a millisecond each).
os.environ.setdefault("DEBUG", "1")

TARGET = 0.5
BENCHMARK = "synthetic"
ANALYST = "bench-answers-analyst"

# name: the query string's values (RUN and DEEP filled in at run time)
CASES = {
    "all, newest first": {},
    "one run": {"run": "RUN"},
    "one model": {"model": "synthetic-3"},
    "refusals (code R)": {"code": "R"},
    "no code": {"code": "none"},
    "code source choice, two models": {"source": "choice", "model": ["synthetic-1", "synthetic-2"]},
    "search 'recommend' (2 % of answers)": {"q": "recommend"},
    "search 'merit' and one model": {"q": "merit", "model": "synthetic-5"},
    "search a word in no answer": {"q": "zebra"},
    "deep page (cursor half-way)": {"cursor": "DEEP"},
    "by question": {"sort": "question"},
    "by model, one run": {"sort": "model", "run": "RUN"},
    "slowest first": {"sort": "slowest"},
}


def setup(args):
    out = sys.stderr if args.json else sys.stdout
    scale_db.prepared(BENCHMARK, args.load, out)
    from django.db import connection

    with connection.cursor() as cursor:
        started = time.perf_counter()
        cursor.execute("VACUUM (ANALYZE) runs_app_response")
        cursor.execute("SELECT count(*) FROM runs_app_response")
        answers = cursor.fetchone()[0]
    print(f"VACUUM ANALYZE of the answers: {time.perf_counter() - started:.1f} s; {answers:,} answers", file=out)
    return answers


def values_of(case):
    from runs_app.models import Response, Run

    run = Run.objects.filter(benchmark__name=BENCHMARK).order_by("pk").values_list("pk", flat=True).first()
    query = {}
    for key, value in CASES[case].items():
        if value == "RUN":
            value = str(run)
        elif value == "DEEP":
            from explorer_app.answer_query import AFTER, encode_cursor

            ids = Response.objects.filter(run_id=run).order_by("id").values_list("id", flat=True)
            middle = ids[ids.count() // 2]
            value = encode_cursor(AFTER, middle, middle)
        query[key] = value
    return query


def client():
    return scale_db.signed_in_client(ANALYST)


def measure_one(case, rounds):
    """One case in this (fresh) process: the first request, then `rounds` more."""
    import django

    django.setup()
    from django.db import connection

    query = values_of(case)
    browser = client()
    connection.close()  # the first request opens its own connection
    started = time.perf_counter()
    browser.get("/answers/", {"status": "cancelled"}, secure=True)  # Django's first request: imports, templates
    first = time.perf_counter() - started
    started = time.perf_counter()
    response = browser.get("/answers/", query, secure=True)
    cold = time.perf_counter() - started
    if response.status_code != 200:
        raise SystemExit(f"{case}: status {response.status_code}: {response.content[:300]!r}")
    rows = response.content.count(b"<tr data-answer=")
    warm = []
    for _ in range(rounds):
        started = time.perf_counter()
        browser.get("/answers/", query, secure=True)
        warm.append(time.perf_counter() - started)
    return {"bench": "answers_list", "case": case, "rows": rows, "process_first_s": round(first, 4),
            "cold_s": round(cold, 4),
            "warm_best_s": round(min(warm), 4), "warm_median_s": round(statistics.median(warm), 4),
            "under_target": max(cold, statistics.median(warm)) < TARGET}


def explain(case):
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.http import QueryDict

    from explorer_app import answer_list
    from explorer_app.answer_query import SORTS

    query = QueryDict(mutable=True)
    for key, value in values_of(case).items():
        query.setlist(key, value if isinstance(value, list) else [value])
    user = get_user_model().objects.get(username=ANALYST)
    f = answer_list.read_filter(query)
    sort = SORTS[f.sort]
    answers = answer_list._sorted(answer_list.filtered(f, user), sort)
    fenced = answer_list.few_matches(answers, f)
    answers = answers.order_by(*answer_list._order(sort, False, fenced)).values_list("id", flat=True)
    print(f"--- {case}{' (few matches: found by the index, then sorted)' if fenced else ''}")
    print(answers[:51].explain(analyze=True, buffers=True))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--load", action="store_true", help="(Re)load the synthetic answers first.")
    parser.add_argument("--rounds", type=int, default=5, help="Warm requests per case (default 5).")
    parser.add_argument("--json", action="store_true", help="JSON lines only on stdout.")
    parser.add_argument("--explain", action="store_true", help="EXPLAIN ANALYZE each case's page query.")
    parser.add_argument("--case", action="append", help="Only these cases (names as listed).")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure_one(args.one, args.rounds)))
        return
    answers = setup(args)
    client()  # the analyst exists before the measuring processes start
    cases = args.case or list(CASES)
    results = []
    for case in cases:
        out = subprocess.run([sys.executable, __file__, "--one", case, "--rounds", str(args.rounds)],
                             capture_output=True, text=True, check=False, env=os.environ.copy())
        if out.returncode != 0:
            print(f"{case}: failed\n{out.stderr[-2000:]}", file=sys.stderr)
            continue
        result = json.loads(out.stdout.strip().splitlines()[-1])
        result["answers"] = answers
        results.append(result)
        if args.json:
            print(json.dumps(result), flush=True)
        else:
            print(f"{case:40} {result['rows']:3} rows  cold {result['cold_s'] * 1000:7.0f} ms  warm best "
                  f"{result['warm_best_s'] * 1000:6.0f} ms  median {result['warm_median_s'] * 1000:6.0f} ms  "
                  f"{'ok' if result['under_target'] else 'OVER ' + str(TARGET) + ' s'}  (process's first request "
                  f"{result['process_first_s']:.1f} s)", flush=True)
    if args.explain:
        for case in cases:
            explain(case)


if __name__ == "__main__":
    main()
