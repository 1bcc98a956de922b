"""The analysts' dashboard at the paper's scale (66,473 questions x 8 models x 5 repeats,
about 2.66 million coded answers) on PostgreSQL.

    DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/cfpd_scale .venv/bin/python bench/dashboard_scale.py
    ... bench/dashboard_scale.py --load            # (re)load the synthetic answers first
    ... bench/dashboard_scale.py --rounds 1 --no-answers --json   # tallies only, JSON lines
    ... bench/dashboard_scale.py --explain                        # and the slowest GROUP BY explained

Creates and migrates the database if needed, loads the synthetic answers
(`load_synthetic_answers`) when the benchmark is absent, VACUUM ANALYZEs the answers (as
autovacuum would after a load), then reports:

(a) GET /analysis/cfpd/ through django.test.Client as an analyst: all answers, one run, one
    domain, cold (fresh=1) and cached; best and mean of --rounds, split into the database
    read (`_grouped`: the tallies, or the GROUP BYs over the answers), the rest of
    tidy_counts (pandas), the metrics, the whole `dashboard.build`, and the view's
    remainder (filter choices, template render). Measured twice: counts read from the
    tallies (scenarios_app/analysis/tally.py, as the app does on PostgreSQL) and counted from the
    answers (tallies off, as before them), side by side, with the panel tables of both
    builds checked equal;
(b) `metrics.scenario_bootstrap`, 2,000 iterations, on the real per-scenario table;
(c) peak memory: ru_maxrss of the process, and tracemalloc's peak over one build;
(d) row counts: answers, and rows after each GROUP BY of a build;
(e) with --explain, EXPLAIN (ANALYZE, BUFFERS) of the slowest GROUP BY of a build.

--json prints one JSON object per measured configuration per line ("bench":
"dashboard_scale", view, cache cold/cached, source tally/answers, seconds, ...), and
nothing else on stdout. --prototypes (over target) runs the older diagnosis: the
GROUP BYs under other settings, a covering index, and changes swapped in by
monkeypatching.
"""

import argparse
import functools
import json
import os
import resource
import statistics
import sys
import time
import tracemalloc
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path

import scale_db  # bench/ is sys.path[0] when run as a script

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DATABASE_URL", "postgres://postgres:postgres@127.0.0.1:5432/cfpd_scale")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cfpd_site.settings")
os.environ.setdefault("DEBUG", "1")
# The board is built in the request, as a one-process setup builds it (the site gives it to
# the worker): the time measured is the build the analyst waits for, not a queue.
os.environ["CFPD_DASHBOARD_IN_WORKER"] = "0"

TARGET_DASHBOARD = 2.0
TARGET_BOOTSTRAP = 1.0
BENCHMARK = "synthetic"
ANALYST = "bench-analyst"


def setup(args):
    loaded = scale_db.prepared(BENCHMARK, args.load, sys.stderr if args.json else sys.stdout,
                               questions=args.questions, models=args.models, repeats=args.repeats)
    from django.db import connection

    # Visibility map and statistics as autovacuum would leave them (this server may run
    # with autovacuum off). After a load FULL: --replace deletes and inserts 2.7 million
    # rows in one transaction, and the dead half would double every sequential scan.
    vacuum = "VACUUM (FULL, ANALYZE)" if loaded else "VACUUM (ANALYZE)"
    with connection.cursor() as cursor:
        started = time.perf_counter()
        for table in ("runs_app_response", "benchmarks_app_question", "scenarios_app_scenarioquestion",
                      "scenarios_app_passtally", "scenarios_app_questiontally"):
            cursor.execute(f"{vacuum} {table}")
        cursor.execute("SELECT pg_size_pretty(pg_total_relation_size('runs_app_response'))")
        size = cursor.fetchone()[0]
    print(f"{vacuum} of the answers, questions and tallies: {time.perf_counter() - started:.1f} s; answers table with its "
          f"indexes {size}", file=sys.stderr if args.json else sys.stdout)


# --- timing by wrapping the app's functions where they are looked up ------------------

class Split:
    """Seconds spent in named functions, collected by wrappers installed on modules."""

    def __init__(self):
        self.seconds = defaultdict(float)
        self.calls = defaultdict(int)
        self._installed = []

    def wrap(self, module, name, label=None):
        original = getattr(module, name, None)
        if original is None or not callable(original):
            return
        label = label or name

        @functools.wraps(original)
        def timed(*args, **kwargs):
            started = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.seconds[label] += time.perf_counter() - started
                self.calls[label] += 1

        setattr(module, name, timed)
        self._installed.append((module, name, original))

    def reset(self):
        self.seconds.clear()
        self.calls.clear()

    def remove(self):
        for module, name, original in reversed(self._installed):
            setattr(module, name, original)
        self._installed.clear()


def install_split(split):
    from scenarios_app.analysis import dashboard, metrics, tidy_query, views

    split.wrap(tidy_query, "_grouped", "db aggregation (_grouped: GROUP BY + fetch)")
    split.wrap(tidy_query, "_add_outcomes", "tidy pandas: _add_outcomes")
    for name in ("tidy_counts", "tidy_with_categories"):
        split.wrap(dashboard, name, "tidy tables (tidy_counts*, all)")
    split.wrap(dashboard, "coverage", "coverage (one aggregate)")
    for name in sorted(metrics.__all__):
        value = getattr(metrics, name)
        if callable(value) and not isinstance(value, type):
            split.wrap(metrics, name, "metrics (all panels)")
    split.wrap(views.dashboard, "build", "dashboard.build")
    split.wrap(views, "_choices", "view: filter choices (lazy querysets)")
    split.wrap(views, "render", "view: template render (runs the choices' queries)")


def timed_runs(function, rounds):
    seconds = []
    for _ in range(rounds):
        started = time.perf_counter()
        function()
        seconds.append(time.perf_counter() - started)
    return min(seconds), statistics.mean(seconds)


def analyst_client():
    return scale_db.signed_in_client(ANALYST)


def get_ok(client, url):
    """The page (200); with fresh=1 the build runs and the page redirects to its own query (302)."""
    response = client.get(url)
    if response.status_code not in ((200, 302) if "fresh=1" in url else (200,)):
        raise SystemExit(f"GET {url}: HTTP {response.status_code}")
    return response


def dashboard_cases():
    from runs_app.models import Run

    run = Run.objects.filter(benchmark__name=BENCHMARK).order_by("-pk").values_list("pk", flat=True).first()
    return [("all answers", "/analysis/cfpd/"), (f"one run (run={run})", f"/analysis/cfpd/?run={run}"),
            ("one domain (escalation)", "/analysis/cfpd/?domain=escalation")]


def measure_requests(client, rounds, source="tally"):
    """Each view cold (fresh=1) and cached; `source` "answers" turns the tallies off, so
    the build counts the answers with GROUP BYs as before the tallies."""
    from scenarios_app.analysis import tally

    original = tally.available
    if source == "answers":
        tally.available = lambda: False
    split = Split()
    install_split(split)
    results = []
    try:
        for label, url in dashboard_cases():
            split.reset()
            # fresh=1 bypasses the dashboard cache: a filter nobody has opened since the data changed.
            cold = url + ("&" if "?" in url else "?") + "fresh=1"
            best, mean = timed_runs(lambda: get_ok(client, cold), rounds)
            parts = {key: value / rounds for key, value in split.seconds.items()}
            calls = {key: value // rounds for key, value in split.calls.items()}
            warm_best, warm_mean = timed_runs(lambda: get_ok(client, url), rounds)  # the first fills the cache
            results.append((label, url, best, mean, parts, calls, warm_best, warm_mean))
    finally:
        split.remove()
        tally.available = original
    return results


def print_requests(results, rounds, source="tally"):
    print(f"\n(a) GET /analysis/cfpd/ as an analyst, counts from the {source}, best / mean of {rounds} (s); "
          "split = mean per request")
    order = ["db aggregation (_grouped: GROUP BY + fetch)", "tidy pandas: _add_outcomes",
             "tidy tables (tidy_counts*, all)", "coverage (one aggregate)", "metrics (all panels)",
             "dashboard.build", "view: filter choices (lazy querysets)",
             "view: template render (runs the choices' queries)"]
    for label, url, best, mean, parts, calls, warm_best, warm_mean in results:
        flag = "" if best <= TARGET_DASHBOARD else f"   OVER the {TARGET_DASHBOARD:.0f} s target"
        print(f"  {label:<28} {url:<34} cold best {best:6.2f}  mean {mean:6.2f}{flag}")
        print(f"  {'':<28} {'(cached build)':<34} warm best {warm_best:6.2f}  mean {warm_mean:6.2f}")
        for key in order:
            if key in parts:
                print(f"      {key:<52} {parts[key]:6.2f}  ({calls[key]} call(s))")
        other = mean - sum(parts.get(key, 0) for key in order if key.startswith(("dashboard.build", "view:")))
        print(f"      {'view: the rest (auth, session, middleware)':<52} {other:6.2f}")


def measure_bootstrap(rounds):
    from scenarios_app.analysis import metrics
    from scenarios_app.analysis.tidy_query import AnalysisFilter, tidy_counts

    per_scenario = metrics.scenario_rates(tidy_counts(AnalysisFilter()))
    groups = per_scenario.groupby(["model", "domain", "choice_count"]).ngroups
    best, mean = timed_runs(lambda: metrics.scenario_bootstrap(per_scenario, 2000, seed=0), rounds)
    return {"rows": len(per_scenario), "scenarios": per_scenario["scenario"].nunique(),
            "models": per_scenario["model"].nunique(), "groups": groups, "best": best, "mean": mean}


def measure_memory():
    from scenarios_app.analysis import dashboard
    from scenarios_app.analysis.tidy_query import AnalysisFilter

    tracemalloc.start()
    started = time.perf_counter()
    dashboard.build(AnalysisFilter())
    seconds = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"traced_peak": peak / 2**20, "traced_seconds": seconds,
            "maxrss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


@contextmanager
def captured_sql():
    """Every statement the app runs meanwhile, as (sql, params)."""
    from django.db import connection

    statements = []

    def record(execute, sql, params, many, context):
        statements.append((sql, params))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        yield statements


def aggregations_of_build():
    """The GROUP BY statements over the answers (or their tallies) that one dashboard.build(all answers) runs,
    captured as the app sends them (so this bench follows the app's query shapes)."""
    from scenarios_app.analysis import dashboard
    from scenarios_app.analysis.tidy_query import AnalysisFilter

    with captured_sql() as statements:
        dashboard.build(AnalysisFilter())
    return [(sql, tuple(params or ())) for sql, params in statements
            if "GROUP BY" in sql and ('"runs_app_response"' in sql or "tally" in sql)]


def as_text(sql, params):
    """The statement with its parameters in place, as str(queryset.query) prints it."""
    return sql % tuple(repr(p) if isinstance(p, str) else p for p in params)


def group_keys(sql):
    return sql.split("SELECT", 1)[1].split("FROM", 1)[0].count(" AS ") - 1


def measure_counts(aggregations):
    from scenarios_app.analysis.tidy_query import AnalysisFilter, tidy_counts
    from runs_app.models import Response

    counts = {"answers (responses)": Response.objects.filter(run__benchmark__name=BENCHMARK).count()}
    for number, (sql, params) in enumerate(aggregations, start=1):
        _, rows = sql_seconds(sql, params, rounds=1)
        counts[f"rows after GROUP BY #{number} of the build ({group_keys(sql)} keys)"] = rows
    counts["rows of tidy_counts() after pandas"] = len(tidy_counts(AnalysisFilter()))
    return counts


# --- diagnosis: EXPLAIN and prototypes ------------------------------------------------

def explain(sql, params, settings=()):
    """EXPLAIN (ANALYZE, BUFFERS) lines, in a transaction so SET LOCAL applies and ends."""
    from django.db import connection, transaction

    with transaction.atomic(), connection.cursor() as cursor:
        for statement in settings:
            cursor.execute(statement)
        cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql, params)
        return [row[0] for row in cursor.fetchall()]


def sql_seconds(sql, params=(), settings=(), rounds=2):
    """Best wall time of running `sql` and fetching every row, with SET LOCAL `settings`."""
    from django.db import connection, transaction

    best, rows = float("inf"), 0
    for _ in range(rounds):
        with transaction.atomic(), connection.cursor() as cursor:
            for statement in settings:
                cursor.execute(statement)
            started = time.perf_counter()
            cursor.execute(sql, params)
            rows = len(cursor.fetchall())
            best = min(best, time.perf_counter() - started)
    return best, rows


WORK_MEM = "SET LOCAL work_mem = '64MB'"
NO_JIT = "SET LOCAL jit = off"
SETTINGS = [
    ("as the app sends it (work_mem 4MB)", ()),
    ("SET LOCAL work_mem = '64MB'", (WORK_MEM,)),
    ("work_mem 64MB, jit off", (WORK_MEM, "SET LOCAL jit = off")),
    ("work_mem 64MB, max_parallel_workers_per_gather = 0", (WORK_MEM, "SET LOCAL max_parallel_workers_per_gather = 0")),
    ("work_mem 64MB, parallel plan forced (2 workers)",
     (WORK_MEM, "SET LOCAL parallel_setup_cost = 0", "SET LOCAL parallel_tuple_cost = 0")),
]


@contextmanager
def covering_index():
    """A covering index for the aggregations, inside a transaction rolled back at the end."""
    from django.db import connection, transaction

    with transaction.atomic():
        with connection.cursor() as cursor:
            started = time.perf_counter()
            cursor.execute("CREATE INDEX bench_response_cover ON runs_app_response (question_id) "
                           "INCLUDE (model_id, run_id, repeat, code, code_source, status)")
            cursor.execute("ANALYZE runs_app_response")
            built = time.perf_counter() - started
        try:
            yield built
        finally:
            transaction.set_rollback(True)


# Prototypes of changes to the app, swapped in by monkeypatching.

def vectorised_add_outcomes(out, frame, look):
    """`tidy_query._add_outcomes` with lookups by index instead of a Python loop per row."""
    import numpy as np
    import pandas as pd

    from scenarios_app.analysis.tidy_query import LETTERS

    letter_category = look["letter_category"]
    table = pd.DataFrame(list(letter_category), columns=["scenario", "variant", "code"])
    table["category"] = list(letter_category.values())
    choice_count = table.groupby(["scenario", "variant"]).size()
    category = table.set_index(["scenario", "variant", "code"])["category"]
    sid, variant, code = frame["question__cfpd__scenario_id"], frame["question__cfpd__variant"], frame["code"]
    forms = pd.MultiIndex.from_arrays([sid, variant])
    out["choice_count"] = choice_count.reindex(forms).fillna(0).astype("int64").to_numpy()
    outcome = np.select([code.isin(list(LETTERS)).to_numpy(), (code == "R").to_numpy(),
                         ((code == "") & (frame["code_source"] == "unresolved")).to_numpy()],
                        ["answer", "refusal", "unresolved"], "missing").astype(object)
    out["outcome"] = pd.Series(outcome, index=frame.index, dtype=object)
    chosen = category.reindex(pd.MultiIndex.from_arrays([sid, variant, code])).to_numpy(dtype=object)
    chosen[outcome != "answer"] = None
    chosen[pd.isna(chosen)] = None
    out["category"] = pd.Series(chosen, index=frame.index, dtype=object)


def with_work_mem(original):
    """`tidy_query._grouped` in a transaction that gives its GROUP BY work_mem to hash in
    memory (4MB spills to disk) and no JIT (it compiles for ~0.3 s on the big one)."""
    from django.db import connection, transaction

    @functools.wraps(original)
    def grouped(*args, **kwargs):
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute(WORK_MEM)
                cursor.execute(NO_JIT)
            return original(*args, **kwargs)

    return grouped


def choices_with_exists(original):
    """`views._choices` with the models that have answers found by EXISTS (an index probe
    per model) instead of a DISTINCT over a join with every answer."""
    from django.db.models import Exists, OuterRef

    from runs_app.models import LLMModel, Response

    def choices(request, filters):
        context = original(request, filters)
        context["models"] = (LLMModel.objects.filter(Exists(Response.objects.filter(model=OuterRef("pk"))))
                             .order_by("name").values_list("name", flat=True))
        return context

    return choices


def memoised(function, cache, name):
    def cached(*args, **kwargs):
        key = (name, repr(args), repr(sorted(kwargs.items())))
        if key not in cache:
            cache[key] = function(*args, **kwargs)
        return cache[key]
    return cached


CHANGES = {
    "A": "vectorised _add_outcomes",
    "D": "SET LOCAL work_mem = '64MB', jit = off around the GROUP BYs",
    "E": "filter choices: models with answers by EXISTS",
    "F": "tidy tables cached (warm hit)",
    "G": "built dashboard cached (warm hit)",
}


@contextmanager
def patched(module, name, value):
    original = getattr(module, name)
    setattr(module, name, value)
    try:
        yield
    finally:
        setattr(module, name, original)


@contextmanager
def changes(letters):
    """The app with the proposed changes named by `letters` swapped in."""
    from contextlib import ExitStack

    from scenarios_app.analysis import dashboard, tidy_query, views

    with ExitStack() as stack:
        if "A" in letters:
            stack.enter_context(patched(tidy_query, "_add_outcomes", vectorised_add_outcomes))
        if "D" in letters:
            stack.enter_context(patched(tidy_query, "_grouped", with_work_mem(tidy_query._grouped)))
        if "E" in letters:
            stack.enter_context(patched(views, "_choices", choices_with_exists(views._choices)))
        if "F" in letters:
            cache = {}
            for name in ("tidy_counts", "tidy_with_categories", "coverage"):
                if hasattr(dashboard, name):
                    stack.enter_context(patched(dashboard, name, memoised(getattr(dashboard, name), cache, name)))
        if "G" in letters:
            stack.enter_context(patched(dashboard, "build", memoised(dashboard.build, {}, "build")))
        yield


def panels_equal(first, second):
    """Every panel table of two dashboards equal (float columns to 1e-9)."""
    import pandas as pd

    problems = []
    for key in sorted(set(first.panels) | set(second.panels)):
        a, b = first.panels.get(key), second.panels.get(key)
        if a is None or b is None:
            problems.append(f"{key}: only in one")
            continue
        left = a.table.sort_values(list(a.table.columns)).reset_index(drop=True)
        right = b.table.sort_values(list(b.table.columns)).reset_index(drop=True)
        try:
            pd.testing.assert_frame_equal(left, right, check_dtype=False, rtol=1e-9, atol=1e-12)
        except AssertionError as error:
            problems.append(f"{key}: {str(error).splitlines()[0]}")
    return problems


def prototypes(client, rounds):
    """GET /analysis/cfpd/ with each proposed change alone and together, each checked to give
    the same panel tables (and model choices) as the app today."""
    from scenarios_app.analysis import dashboard, views
    from scenarios_app.analysis.tidy_query import AnalysisFilter

    reference = dashboard.build(AnalysisFilter())
    reference_models = list(views._choices(None, AnalysisFilter())["models"])
    results = []
    for letters in ["", "A", "D", "E", "ADE", "ADEF", "EG"]:
        with changes(letters):
            problems = []
            if letters:
                problems = panels_equal(reference, dashboard.build(AnalysisFilter()))
                if list(views._choices(None, AnalysisFilter())["models"]) != reference_models:
                    problems.append("model choices differ")
            if "F" in letters or "G" in letters:
                get_ok(client, "/analysis/cfpd/")  # fill the cache
            split = Split()
            install_split(split)
            try:
                best, mean = timed_runs(lambda: get_ok(client, "/analysis/cfpd/"), rounds)
            finally:
                split.remove()
            parts = {key: value / rounds for key, value in split.seconds.items()}
        label = "as today" if not letters else " + ".join(letters) + (f": {CHANGES[letters]}" if len(letters) == 1
                                                                        else "")
        results.append((label, best, mean, problems, parts))
    return results


def traced_build_peak(letters=""):
    from scenarios_app.analysis import dashboard
    from scenarios_app.analysis.tidy_query import AnalysisFilter

    with changes(letters):
        tracemalloc.start()
        dashboard.build(AnalysisFilter())
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return peak / 2**20


def show(lines, indent="      ", keep=None):
    print("\n".join(indent + line for line in lines if keep is None or any(word in line for word in keep)))


def diagnose(client, rounds, index, aggregations):
    print("\n(e) Diagnosis: the GROUP BYs one dashboard.build(all answers) sends, as str(queryset.query) prints "
          "them, each run and fetched alone (best of {}):".format(rounds))
    timed = []
    for number, (sql, params) in enumerate(aggregations, start=1):
        seconds, rows = sql_seconds(sql, params, rounds=rounds)
        timed.append((seconds, number, sql, params))
        print(f"\n    #{number}: {seconds:.2f} s, {rows:,} rows\n    {as_text(sql, params)}")
    seconds, number, sql, params = max(timed)
    print(f"\n    EXPLAIN (ANALYZE, BUFFERS) of the slowest, #{number}, as the app sends it:")
    show(explain(sql, params))
    print(f"\n    EXPLAIN (ANALYZE, BUFFERS) of #{number} with SET LOCAL work_mem = '64MB':")
    show(explain(sql, params, (WORK_MEM,)), keep=("Aggregate", "Batches", "Scan", "Join", "Execution"))

    print(f"\n    Each GROUP BY under other settings (SQL + fetch of every row, best of {rounds}):")
    print("      " + " " * 52 + "".join(f"{'#' + str(n):>9}" for n in range(1, len(aggregations) + 1)) + "      sum")
    for label, settings in SETTINGS:
        times = [sql_seconds(sql, params, settings, rounds)[0] for sql, params in aggregations]
        print(f"      {label:<52}" + "".join(f"{t:9.2f}" for t in times) + f"{sum(times):9.2f}")
    if index:
        with covering_index() as built:
            print(f"\n    Covering index (question_id) INCLUDE (model_id, run_id, repeat, code, code_source, status), "
                  f"built in {built:.1f} s inside a transaction that is rolled back; random_page_cost 1.1 (SSD) "
                  f"so the planner may take an index-only scan; #{number} with work_mem 64MB:")
            show(explain(sql.replace('COUNT("runs_app_response"."id")', "COUNT(*)"), params,
                         (WORK_MEM, "SET LOCAL random_page_cost = 1.1")),
                 keep=("Aggregate", "Scan", "Join", "Heap Fetches", "Execution"))

    from django.db.models import Exists, OuterRef

    from runs_app.models import LLMModel, Response

    def distinct():
        return list(LLMModel.objects.filter(responses__isnull=False).distinct().order_by("name")
                    .values_list("name", flat=True))

    def exists():
        return list(LLMModel.objects.filter(Exists(Response.objects.filter(model=OuterRef("pk")))).order_by("name")
                    .values_list("name", flat=True))

    (before, _), (after, _) = timed_runs(distinct, rounds), timed_runs(exists, rounds)
    print(f"\n    The page's model choices (views._choices, evaluated in the template): DISTINCT over the join "
          f"{before:.3f} s, EXISTS {after:.4f} s (best of {rounds})")

    print(f"\n    The app with proposed changes swapped in (GET /analysis/cfpd/, all answers, best / mean of {rounds}; "
          "split = mean per request):")
    for letter, text in CHANGES.items():
        print(f"      {letter}  {text}")
    for label, best, mean, problems, parts in prototypes(client, rounds):
        same = "" if label == "as today" else ("panels identical" if not problems
                                                else "DIFFERENT: " + "; ".join(problems))
        print(f"      {label:<60} best {best:6.2f}  mean {mean:6.2f}   {same}")
        shown = {k: v for k, v in parts.items()
                 if k not in ("tidy tables (tidy_counts*, all)", "view: filter choices (lazy querysets)")}
        print("          " + "; ".join(f"{k.split(' (')[0]} {v:.2f}" for k, v in shown.items()))
    print(f"\n    tracemalloc peak of one build with A + D: {traced_build_peak('AD'):.0f} MiB (as today: see (c))")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--load", action="store_true", help="load the synthetic answers again (--replace)")
    parser.add_argument("--questions", type=int, default=66_473)
    parser.add_argument("--models", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3, help="timed repetitions of each measurement")
    parser.add_argument("--prototypes", action="store_true",
                        help="over target, run the diagnosis of the build before the tallies (settings, covering "
                             "index, monkeypatched changes)")
    parser.add_argument("--explain", action="store_true", help="EXPLAIN (ANALYZE) the slowest GROUP BY of a build")
    parser.add_argument("--no-answers", action="store_true",
                        help="skip the build that counts the answers (tallies off) beside the tallies")
    parser.add_argument("--json", action="store_true", help="one JSON object per measured configuration per line")
    parser.add_argument("--no-index", action="store_true", help="skip the covering-index prototype")
    args = parser.parse_args()

    setup(args)
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        version = cursor.fetchone()[0]
        cursor.execute("SHOW work_mem")
        work_mem = cursor.fetchone()[0]
        cursor.execute("SHOW max_parallel_workers_per_gather")
        parallel = cursor.fetchone()[0]
    (print if not args.json else (lambda *a: None))(f"PostgreSQL {version} (work_mem {work_mem}, max_parallel_workers_per_gather {parallel}); "
          f"{os.cpu_count()} CPUs, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")

    client = analyst_client()
    get_ok(client, "/analysis/cfpd/")  # warm: imports, first connection, caches of the OS
    say = (lambda *a, **k: None) if args.json else print
    sources = ["tally"] if args.no_answers else ["tally", "answers"]
    requests = {}
    for source in sources:
        requests[source] = measure_requests(client, args.rounds, source)
        if not args.json:
            print_requests(requests[source], args.rounds, source)
        for label, url, best, mean, parts, calls, warm_best, warm_mean in requests[source]:
            view = label.split(" (")[0]
            emit(args, view=view, url=url, cache="cold", source=source, seconds=round(best, 4),
                 mean_seconds=round(mean, 4), rounds=args.rounds, target_seconds=TARGET_DASHBOARD,
                 **{"db_seconds": round(parts.get("db aggregation (_grouped: GROUP BY + fetch)", 0), 4),
                    "metrics_seconds": round(parts.get("metrics (all panels)", 0), 4)})
            emit(args, view=view, url=url, cache="cached", source=source, seconds=round(warm_best, 4),
                 mean_seconds=round(warm_mean, 4), rounds=args.rounds, target_seconds=0.1)
    if "answers" in requests:
        say("\n    side by side, cold best (s):   " + "   ".join(
            f"{t[0].split(' (')[0]}: tally {t[2]:.2f} / answers {a[2]:.2f}"
            for t, a in zip(requests["tally"], requests["answers"])))
        problems = same_panels_both_ways()
        emit(args, check="panels from the tally equal panels from the answers", ok=not problems)
        say("    panels from the tallies " + ("identical to those counted from the answers (all answers, one "
            "domain)" if not problems else "DIFFER: " + "; ".join(problems)))

    boot = measure_bootstrap(args.rounds)
    flag = "" if boot["best"] <= TARGET_BOOTSTRAP else f"   OVER the {TARGET_BOOTSTRAP:.0f} s target"
    say(f"\n(b) scenario_bootstrap, 2,000 iterations, on metrics.scenario_rates(tidy_counts()): "
        f"{boot['rows']:,} rows = {boot['scenarios']} scenarios (no-middle forms count apart) x "
        f"{boot['models']} models x categories, {boot['groups']} (model, domain, choice_count) groups\n"
        f"    best {boot['best']:.3f} s, mean {boot['mean']:.3f} s{flag}")
    emit(args, view="scenario_bootstrap", iterations=2000, seconds=round(boot["best"], 4),
         mean_seconds=round(boot["mean"], 4), rounds=args.rounds, target_seconds=TARGET_BOOTSTRAP)

    memory = measure_memory()
    say(f"\n(c) memory: tracemalloc peak over one dashboard.build(all answers) {memory['traced_peak']:.0f} MiB "
        f"(that build took {memory['traced_seconds']:.1f} s under tracemalloc); process peak RSS (ru_maxrss) "
        f"{memory['maxrss']:.0f} MiB")
    emit(args, measure="memory", traced_peak_mib=round(memory["traced_peak"], 1),
         maxrss_mib=round(memory["maxrss"], 1))

    aggregations = aggregations_of_build()
    say("\n(d) rows")
    for label, value in measure_counts(aggregations).items():
        say(f"    {label:<60} {value:>10,}")
        emit(args, measure="rows", what=label, rows=value)

    if args.explain and aggregations:
        timed = [(sql_seconds(sql, params, rounds=args.rounds)[0], sql, params) for sql, params in aggregations]
        seconds, sql, params = max(timed, key=lambda t: t[0])
        say(f"\n(e) the slowest GROUP BY of a build ({seconds:.2f} s), as str(queryset.query) prints it:\n    "
            f"{as_text(sql, params)}\n    EXPLAIN (ANALYZE, BUFFERS):")
        if not args.json:
            show(explain(sql, params))
        emit(args, measure="slowest query", seconds=round(seconds, 4), sql=as_text(sql, params))
    slowest = max(row[2] for row in requests["tally"])
    if args.prototypes and not args.json and slowest > TARGET_DASHBOARD:
        diagnose(client, args.rounds, not args.no_index, aggregations)
    say(f"\nload average at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def emit(args, **record):
    """One JSON line per measured configuration (--json)."""
    if args.json:
        print(json.dumps({"bench": "dashboard_scale", **record}), flush=True)


def same_panels_both_ways():
    """Panel tables of builds from the tallies and from the answers, compared."""
    from scenarios_app.analysis import dashboard, tally
    from scenarios_app.analysis.tidy_query import AnalysisFilter

    problems = []
    for filters in (AnalysisFilter(), AnalysisFilter(domains=("escalation",))):
        from_tally = dashboard.build(filters)
        original = tally.available
        tally.available = lambda: False
        try:
            from_answers = dashboard.build(filters)
        finally:
            tally.available = original
        problems += panels_equal(from_answers, from_tally)
        if from_answers.coverage != from_tally.coverage:
            problems.append("coverage differs")
    return problems


if __name__ == "__main__":
    main()
