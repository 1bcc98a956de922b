"""Fifty respondents answering a panel at once on PostgreSQL through the product's server
(issue 40): the latency of each kind of respondent page, p50 / p95 / max.

    .venv/bin/python bench/panel_load.py                  # 50 respondents, about 5 s a page
    .venv/bin/python bench/panel_load.py --respondents 50 --think 0 --json

Creates (once; --reseed to redo) a PostgreSQL database (BENCH_PANEL_DATABASE_URL, default
postgres://postgres:postgres@127.0.0.1:5432/cfpd_panel_bench) holding a benchmark of
--questions CFPD-shaped questions and one panel over them (10 items per respondent, two
attention checks, a profile of two questions), and makes --respondents fresh single-use links
on every invocation. Starts gunicorn as the compose file runs it (cfpd_site/gunicorn_conf.py:
the application preloaded, 3 sync workers; DEBUG off, plain HTTP so the secure-cookie settings
are off), the rate limits' counters in Redis when BENCH_PANEL_REDIS_URL is set (as deployed;
else each worker's memory). Then one thread per respondent walks its link as a browser does
(requests, no redirects followed so that each request is timed by itself): the consent page,
agreeing (POST, with the CSRF token of the form), the profile page, the profile sent, and for
each of its 12 pages the item page and the answer (POST), then the closing page; waiting
--think seconds (uniform from half to one and a half times, seeded) between a page and its
answer, as a fast reader would (people take 10-30 s a page). All respondents start within
the first --think seconds, so they answer side by side. Every respondent comes from one
loopback address: the per-address limit (300 a minute, against floods) is raised for the
bench, the per-link one is kept.

Prints p50 / p95 / max per page kind and over all; exit status 1 when a kind's p95 is over
--target seconds (0.3). --json prints one JSON line. Loopback only; the server is stopped at
the end."""

import argparse
import json
import os
import random
import re
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATABASE_URL = os.environ.get("BENCH_PANEL_DATABASE_URL",
                              "postgres://postgres:postgres@127.0.0.1:5432/cfpd_panel_bench")
ENV = {"DATABASE_URL": DATABASE_URL, "DJANGO_SETTINGS_MODULE": "cfpd_site.settings", "DEBUG": "0",
       "SECRET_KEY": os.environ.get("SECRET_KEY", "bench-only-secret-key"), "SECURE_SSL_REDIRECT": "0",
       "SESSION_COOKIE_SECURE": "0", "CSRF_COOKIE_SECURE": "0", "SECURE_HSTS_SECONDS": "0",
       "CFPD_ENV_FILE": "", "CFPD_VAR_DIR": str(ROOT / "var" / "bench-panel"), "ALLOWED_HOSTS": "127.0.0.1",
       "CFPD_PANEL_RATE_PER_ADDRESS": "1000000", "STATIC_ROOT": str(ROOT / "var" / "bench-panel" / "static")}
os.environ.update(ENV)
os.environ.pop("REDIS_URL", None)
if os.environ.get("BENCH_PANEL_REDIS_URL"):
    ENV["REDIS_URL"] = os.environ["BENCH_PANEL_REDIS_URL"]
    os.environ["REDIS_URL"] = ENV["REDIS_URL"]
PANEL = "bench panel"
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
ANSWER = re.compile(r'action="(/p/[^"]+/answer/\d+/)"')
CHOICES = re.compile(r'name="choice" value="([A-J])"')
KINDS = ("consent page", "agree", "profile page", "profile sent", "item page", "answer", "closing page")


def seed(questions: int, reseed: bool) -> None:
    import scale_db  # bench/ is sys.path[0] when run as a script

    (scale_db.recreate_database if reseed else scale_db.ensure_database)(DATABASE_URL)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("collectstatic", "--noinput", verbosity=0)
    from benchmarks_app.models import Benchmark, Question
    from panels_app import services
    from panels_app.models import AttentionCheck, Panel, ProfileQuestion

    if Panel.objects.filter(name=PANEL).exists():
        return
    benchmark = Benchmark.objects.create(name="panel bench", family="cfpd")
    Question.objects.bulk_create([
        Question(benchmark=benchmark, key=f"bench-q{i}", text=f"Scenario {i}: two states face a crisis. " * 8,
                 options=[{"text": f"Option {i}.{j}"} for j in range(2 + i % 3)],
                 option_order=list(range(2 + i % 3)), choice_count=2 + i % 3) for i in range(questions)])
    panel = Panel.objects.create(name=PANEL, stands_for="IR scholars, bench", benchmark=benchmark,
                                 consent_text="You agree to answer.", items_per_respondent=10, seed=7)
    for c in range(2):
        AttentionCheck.objects.create(panel=panel, text=f"Check {c}: choose the second option.",
                                      options=["First", "Second", "Third"], expected=2, position=c)
    ProfileQuestion.objects.create(panel=panel, key="years", label="Years in the field", kind="number")
    ProfileQuestion.objects.create(panel=panel, key="country", label="Country", kind="choice",
                                   choices="US\nCN\nDE", position=1)
    services.pick_questions(panel)
    with django.db.connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")


def make_links(count: int) -> list[str]:
    from panels_app import services
    from panels_app.models import Panel

    return [r.token for r in services.create_invitations(Panel.objects.get(name=PANEL), count)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(port: int, workers: int) -> subprocess.Popen:
    gunicorn = ROOT / ".venv" / "bin" / "gunicorn"
    server = subprocess.Popen([str(gunicorn), "cfpd_site.wsgi:application", "-c", "cfpd_site/gunicorn_conf.py",
                               "--bind", f"127.0.0.1:{port}", "--workers", str(workers), "--access-logfile", "/dev/null",
                               "--log-level", "error"], cwd=ROOT, env={**os.environ, **ENV})
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return server
        except OSError:
            time.sleep(0.3)
    server.terminate()
    raise SystemExit("gunicorn did not start within 120 s")


def respondent(base: str, token: str, think: float, rng: random.Random, timings, lock, failures):
    import requests as http

    session = http.Session()
    link = f"{base}/p/{token}/"

    def timed(kind, method, url, expect, **kwargs):
        started = time.perf_counter()
        response = session.request(method, url, allow_redirects=False, timeout=60, **kwargs)
        elapsed = time.perf_counter() - started
        with lock:
            timings[kind].append(elapsed)
        if response.status_code != expect:
            raise RuntimeError(f"{kind}: {method} {url} answered {response.status_code}, not {expect}")
        return response

    def pause():
        if think:
            time.sleep(rng.uniform(think / 2, think * 1.5))

    try:
        time.sleep(rng.uniform(0, think))  # arrivals spread over the first think
        page = timed("consent page", "GET", link, 200).text
        pause()
        timed("agree", "POST", link + "consent/", 302, data={"csrfmiddlewaretoken": CSRF.search(page).group(1)})
        page = timed("profile page", "GET", link, 200).text
        pause()
        timed("profile sent", "POST", link + "profile/", 302,
              data={"csrfmiddlewaretoken": CSRF.search(page).group(1), "years": "12", "country": "DE"})
        while True:
            response = timed("item page", "GET", link, 200)
            page = response.text
            pause()
            letters = CHOICES.findall(page)
            letter = "B" if "choose the second option" in page else rng.choice(letters)
            sent = timed("answer", "POST", base + ANSWER.search(page).group(1), 302,
                         data={"csrfmiddlewaretoken": CSRF.search(page).group(1), "choice": letter, "reason": ""})
            if sent.headers["Location"].endswith("/done/"):
                break
        timed("closing page", "GET", link + "done/", 200)
    except Exception as exc:  # noqa: BLE001 (reported and counted: the bench fails)
        with lock:
            failures.append(f"{token[:6]}…: {exc}")


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--respondents", type=int, default=50)
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--think", type=float, default=5.0, help="Mean seconds between a page and its answer.")
    parser.add_argument("--workers", type=int, default=3, help="gunicorn's workers (the compose file's default: 3).")
    parser.add_argument("--target", type=float, default=0.3, help="The p95 every page kind must stay under (s).")
    parser.add_argument("--seed", type=int, default=40)
    parser.add_argument("--reseed", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    seed(args.questions, args.reseed)
    tokens = make_links(args.respondents)
    port = free_port()
    server = serve(port, args.workers)
    timings, lock, failures = defaultdict(list), threading.Lock(), []
    try:
        base = f"http://127.0.0.1:{port}"
        import requests as http

        for _ in range(args.workers * 2):  # each worker's first request (warm start done in the master)
            http.get(base + "/healthz", timeout=60)
        load_before = os.getloadavg()[0]
        started = time.perf_counter()
        threads = [threading.Thread(target=respondent, args=(base, token, args.think, random.Random(args.seed + n),
                                                             timings, lock, failures))
                   for n, token in enumerate(tokens)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wall = time.perf_counter() - started
        load_after = os.getloadavg()[0]
    finally:
        server.terminate()
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
    every = [t for kind in KINDS for t in timings[kind]]
    kinds = {kind: {"n": len(timings[kind]), "p50_ms": round(1000 * statistics.median(timings[kind]), 1),
                    "p95_ms": round(1000 * percentile(timings[kind], 0.95), 1),
                    "max_ms": round(1000 * max(timings[kind]), 1)} for kind in KINDS if timings[kind]}
    result = {"bench": "panel_load", "respondents": args.respondents, "think_s": args.think, "workers": args.workers,
              "requests": len(every), "wall_s": round(wall, 1), "requests_per_s": round(len(every) / wall, 1),
              "failures": len(failures), "cores": os.cpu_count(),
              "load_1min_before": round(load_before, 2), "load_1min_after": round(load_after, 2),
              "redis": bool(ENV.get("REDIS_URL")), "kinds": kinds,
              "all": {"p50_ms": round(1000 * statistics.median(every), 1) if every else None,
                      "p95_ms": round(1000 * percentile(every, 0.95), 1) if every else None,
                      "max_ms": round(1000 * max(every), 1) if every else None}}
    over = [kind for kind, found in kinds.items() if found["p95_ms"] > args.target * 1000]
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{args.respondents} respondents, think {args.think} s, {args.workers} gunicorn workers, "
              f"{len(every)} requests in {result['wall_s']} s ({result['requests_per_s']}/s); "
              f"{os.cpu_count()} cores, load {result['load_1min_before']} before, {result['load_1min_after']} after")
        print(f"{'page kind':<14} {'n':>5} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}")
        for kind, found in kinds.items():
            print(f"{kind:<14} {found['n']:>5} {found['p50_ms']:>8} {found['p95_ms']:>8} {found['max_ms']:>8}")
        print(f"{'all':<14} {len(every):>5} {result['all']['p50_ms']:>8} {result['all']['p95_ms']:>8} "
              f"{result['all']['max_ms']:>8}")
        for failure in failures[:10]:
            print("failed:", failure)
    if failures or over:
        sys.exit(1)


if __name__ == "__main__":
    main()
