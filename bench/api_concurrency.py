"""GET /api/runs/ with 20 concurrent clients against a live server, as a script reading
the API would: the median and 95th percentile latency.

    .venv/bin/python bench/api_concurrency.py                        # this checkout
    .venv/bin/python bench/api_concurrency.py --app-root /tmp/before  # another checkout (e.g.
        `git worktree add /tmp/before COMMIT`), same data, to compare before and after

Creates (once; --reseed to redo) a PostgreSQL database (BENCH_API_DATABASE_URL, default
postgres://postgres:postgres@127.0.0.1:5432/cfpd_api_bench) holding --runs runs of 40
answers each (a quarter with a budget), starts gunicorn from --app-root on 127.0.0.1 (3
sync workers, as the Dockerfile), signs an analyst in (a session cookie, which every
version of the API accepts) and sends --requests requests from --clients threads, each
waiting for its answer before sending the next. Loopback only; the server is stopped at
the end. --json prints one JSON line.
"""

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATABASE_URL = os.environ.get("BENCH_API_DATABASE_URL", "postgres://postgres:postgres@127.0.0.1:5432/cfpd_api_bench")
ENV = {"DATABASE_URL": DATABASE_URL, "DJANGO_SETTINGS_MODULE": "cfpd_site.settings", "DEBUG": "0",
       "SECRET_KEY": os.environ.get("SECRET_KEY", "bench-only-secret-key"), "SECURE_SSL_REDIRECT": "0",
       "CFPD_ENV_FILE": "", "CFPD_VAR_DIR": str(ROOT / "var" / "bench-api")}
os.environ.update(ENV)
os.environ.pop("REDIS_URL", None)


def seed(runs: int, reseed: bool) -> None:
    import psycopg

    admin_url, name = DATABASE_URL.rsplit("/", 1)
    with psycopg.connect(admin_url + "/postgres", autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if exists and reseed:
            conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
        if not exists or reseed:
            conn.execute(f'CREATE DATABASE "{name}"')
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from accounts.services import create_user_with_role
    from runs_app import services
    from runs_app.models import Response, Run
    from scenarios_app import services as authoring
    from scenarios_app.models import Benchmark
    from tests.factories import escalation_spec

    create_user_with_role("bench-analyst", "bench-pass-123", role="analysts")
    if Run.objects.count() >= runs:
        return
    benchmark, _ = Benchmark.objects.get_or_create(name="bench")
    dyads = [(a, b) for a in ("CN", "RU", "US", "MX", "JP") for b in ("CN", "RU", "US", "MX", "JP") if a != b]
    authoring.save_spec(benchmark, escalation_spec(dyads=dyads))
    launch = services.read_launch({"benchmark": "bench", "models": ["local-smollm2", "local-gemma3"], "repeats": 1})
    first = services.start_run(launch)  # 20 questions x 2 models = 40 answers
    template = list(Response.objects.filter(run=first).values())
    statuses = ["done", "done", "done", "failed", "pending", "cancelled"]
    for index in range(runs - 1):
        run = Run.objects.create(benchmark=benchmark, status="done", budget_units=30 if index % 4 == 0 else None)
        run.llm_models.set(first.llm_models.all())
        Response.objects.bulk_create([Response(**{**row, "id": None, "run_id": run.pk,
                                                  "status": statuses[(index + n) % len(statuses)],
                                                  "prompt_tokens": 50, "completion_tokens": 1, "cost": "0.0001"})
                                      for n, row in enumerate(template)])
    with __import__("django.db").db.connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")


def session_cookie() -> str:
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
    from django.contrib.sessions.backends.db import SessionStore

    user = get_user_model().objects.get(username="bench-analyst")
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    return session.session_key


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(app_root: Path, port: int) -> subprocess.Popen:
    gunicorn = ROOT / ".venv" / "bin" / "gunicorn"
    server = subprocess.Popen([str(gunicorn), "cfpd_site.wsgi:application", "--bind", f"127.0.0.1:{port}",
                               "--workers", "3", "--timeout", "300", "--log-level", "error"], cwd=app_root,
                              env={**os.environ, **ENV, "ALLOWED_HOSTS": "127.0.0.1"})
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return server
        except OSError:
            time.sleep(0.3)
    server.terminate()
    raise SystemExit("gunicorn did not start within 60 s")


def hammer(url: str, cookie: str, clients: int, requests: int) -> list[float]:
    import requests as http

    latencies, lock, left = [], threading.Lock(), [requests]

    def client():
        session = http.Session()
        session.cookies.set("sessionid", cookie)
        while True:
            with lock:
                if left[0] <= 0:
                    return
                left[0] -= 1
            started = time.perf_counter()
            response = session.get(url, timeout=60)
            elapsed = time.perf_counter() - started
            response.raise_for_status()
            with lock:
                latencies.append(elapsed)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return latencies


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--app-root", type=Path, default=ROOT, help="The checkout gunicorn serves (default: this one).")
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--path", default="/api/runs/")
    parser.add_argument("--reseed", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    seed(args.runs, args.reseed)
    cookie = session_cookie()
    port = free_port()
    server = serve(args.app_root.resolve(), port)
    try:
        url = f"http://127.0.0.1:{port}{args.path}"
        hammer(url, cookie, 6, 12)  # warm each worker up (its first request imports the views)
        started = time.perf_counter()
        latencies = sorted(hammer(url, cookie, args.clients, args.requests))
        wall = time.perf_counter() - started
    finally:
        server.terminate()
        server.wait(timeout=30)
    if not latencies:
        raise SystemExit("no request was answered; see the server's messages above")
    p95 = latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))]
    result = {"bench": "api_concurrency", "path": args.path, "app_root": str(args.app_root), "runs": args.runs,
              "clients": args.clients, "requests": len(latencies), "median_s": round(statistics.median(latencies), 3),
              "p95_s": round(p95, 3), "requests_per_s": round(len(latencies) / wall, 1)}
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{args.path} from {args.app_root}: {args.clients} clients, {len(latencies)} requests, {args.runs} runs: "
              f"median {result['median_s']} s, p95 {result['p95_s']} s, {result['requests_per_s']} requests/s")


if __name__ == "__main__":
    main()
