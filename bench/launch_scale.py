"""A launch at the CFPD paper's scale: 66,473 questions x 8 models x 5 repeats = 2,658,920 units.

Measures, on PostgreSQL + Redis with no worker consuming (the units stay pending, as at the
start of a real run): the plan (what the launch form shows), the launch itself (the run,
its 2.66 million unit rows written with COPY, the messages sent), each in a fresh process
with its peak resident memory; then the run page and its progress JSON while the run is
open, as an operator opens them (median of several requests).

    DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/cfpd_launch_scale \
    REDIS_URL=redis://127.0.0.1:6379/9 .venv/bin/python bench/launch_scale.py [--questions N] [--json]

The questions come from `load_synthetic_answers` (one external model, one repeat: 66,473
answers, loaded once); the 8 models are generate-mode models of a server that is never
called. The run is cancelled at the end and the Redis database flushed (FLUSHDB: give the
bench a Redis database of its own). CFPD_MAX_UNITS_PER_RUN is raised to 11,000,000 for it (`--questions 265892`: 10.6 M
units, four languages' questions; `--no-marking` leaves the cancelled units to the sweeps).
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
os.environ.setdefault("DATABASE_URL", "postgres://postgres:postgres@127.0.0.1:5432/cfpd_launch_scale")
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/9")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cfpd_site.settings")
os.environ.setdefault("DEBUG", "1")
os.environ["CFPD_MAX_UNITS_PER_RUN"] = "11000000"  # 10.6 M at four times the papers' scale

BENCHMARK = "synthetic-launch"
MODELS = [f"scale-{i}" for i in range(1, 9)]
OPERATOR = "bench-launch-operator"


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def backend_cpu_seconds(pid: int) -> float | None:
    """CPU time of the PostgreSQL backend serving this process, when the server runs on
    this machine (/proc): on a machine shared with other work the wall time varies with
    the load, the CPU time much less."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def request_data(repeats: int) -> dict:
    from benchmarks_app.models import Benchmark
    from runs_app.models import LLMModel

    return {"benchmark": Benchmark.objects.get(name=BENCHMARK),
            "models": list(LLMModel.objects.filter(name__in=MODELS).order_by("name")), "repeats": repeats}


def one(step: str, repeats: int) -> dict:
    """In this fresh process: the plan or the launch, timed, with the process's peak memory."""
    import django

    django.setup()
    from django.urls import reverse

    from gateway import llm
    from runs_app import services

    # As a warm web process has it (cfpd_site/wsgi.py with CFPD_WARM_START): LiteLLM and
    # the URLs loaded before the first request; what follows is the launch's own work.
    llm.warm_up()
    reverse("run-list")
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    before = peak_mib()
    backend_before, cpu_before = backend_cpu_seconds(backend), cpu_seconds()
    started = time.perf_counter()
    request = services.read_launch(request_data(repeats))
    if step == "plan":
        plan = services.plan_launch(request)
        units = sum(m.units for m in plan.models)
        run = None
    else:
        run = services.start_run(request).pk
        units = None
    seconds = time.perf_counter() - started
    backend_after = backend_cpu_seconds(backend)
    if run is not None:  # counted after the clock: the launch does not count its units
        from runs_app.models import Response

        units = Response.objects.filter(run_id=run).count()
    return {"step": step, "seconds": round(seconds, 1), "units": units, "run": run,
            "peak_mib": round(peak_mib()), "warm_mib": round(before),
            "cpu_s": round(cpu_seconds() - cpu_before, 1),
            "db_cpu_s": round(backend_after - backend_before, 1) if backend_after is not None else None,
            "load": round(os.getloadavg()[0], 2)}


def in_process(step: str, repeats: int) -> dict:
    out = subprocess.run([sys.executable, __file__, "--one", step, "--repeats", str(repeats)],
                         capture_output=True, text=True, check=False)
    if out.returncode:
        sys.exit(f"{step} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def timed_gets(client, url: str, rounds: int) -> list[float]:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        response = client.get(url)
        times.append(time.perf_counter() - started)
        if response.status_code != 200:
            sys.exit(f"GET {url}: HTTP {response.status_code}")
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=66_473)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=5, help="requests of each page")
    parser.add_argument("--load", action="store_true", help="load the questions again")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--no-marking", action="store_true", help="do not mark the cancelled units (minutes at 10.6 M)")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.one, args.repeats)))
        return
    out = sys.stderr if args.json else sys.stdout
    scale_db.prepared(BENCHMARK, args.load, out, questions=args.questions, models=1, repeats=1)
    import redis
    from django.db import connection

    from runs_app.models import LLMModel, Run

    for name in MODELS:
        LLMModel.objects.get_or_create(name=name, defaults={
            "litellm_model": "openai/never-called", "api_base": "http://127.0.0.1:9/v1", "answer_mode": "generate",
            "temperature": 1.0, "max_concurrency": 64})
    redis.Redis.from_url(os.environ["REDIS_URL"]).flushdb()
    load = os.getloadavg()
    plan = in_process("plan", args.repeats)
    print(f"plan: {plan['units']:,} units in {plan['seconds']} s, peak {plan['peak_mib']} MiB "
          f"(warm process before it: {plan['warm_mib']} MiB)", file=out)
    launch = in_process("launch", args.repeats)
    print(f"launch: {launch['units']:,} units written and queued in {launch['seconds']} s, peak "
          f"{launch['peak_mib']} MiB (warm process before it: {launch['warm_mib']} MiB; run {launch['run']}); "
          f"CPU {launch['cpu_s']} s in the process, {launch['db_cpu_s']} s in its PostgreSQL backend; "
          f"load average at its end {launch['load']}", file=out)
    client = scale_db.signed_in_client(OPERATOR, role="operators")
    run = Run.objects.get(pk=launch["run"])
    pages = {}
    for name, url in (("run page", f"/runs/{run.pk}/"), ("progress json", f"/runs/{run.pk}/progress.json"),
                      ("runs list", "/runs/")):
        times = timed_gets(client, url, args.rounds)
        pages[name] = {"first_ms": round(times[0] * 1000), "median_ms": round(statistics.median(times) * 1000)}
        print(f"{name}: first {pages[name]['first_ms']} ms, median {pages[name]['median_ms']} ms", file=out)
    from runs_app import services

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    # The operator's cancel (the request: the run stops at once, the units are left to a
    # worker), then the marking of its pending units as the sweeps do it, back to back
    # (the watchers give it CFPD_CANCEL_SECONDS every CFPD_SWEEP_SECONDS).
    started = time.perf_counter()
    cancellation = services.cancel_run(run)
    cancelled = cancellation.pending
    cancel = {"seconds": round(time.perf_counter() - started, 2), "units": cancelled}
    print(f"cancel request: {cancelled:,} pending units, run cancelled in {cancel['seconds']} s "
          f"(marked by a worker: {cancellation.later})", file=out)
    backend_before, started = backend_cpu_seconds(backend), time.perf_counter()
    sweeps = 1
    while not args.no_marking and services.sweep_run(run.pk)[1]:
        sweeps += 1
    cancel["marking_s"] = round(time.perf_counter() - started, 1)
    backend_after = backend_cpu_seconds(backend)
    cancel["db_cpu_s"] = round(backend_after - backend_before, 1) if backend_after is not None else None
    print(f"cancel marking: {cancelled:,} units marked cancelled in {cancel['marking_s']} s over {sweeps} sweeps "
          f"({cancel['db_cpu_s']} s CPU in PostgreSQL)", file=out)
    redis.Redis.from_url(os.environ["REDIS_URL"]).flushdb()
    with connection.cursor() as cursor:
        cursor.execute("SELECT version()")
        version = cursor.fetchone()[0].split(" on ")[0]
    machine = f"{version}; {os.cpu_count()} CPUs, load average at start {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    print(machine, file=out)
    if args.json:
        for record in (plan, launch):
            print(json.dumps({"bench": "launch_scale", "configuration": f"{record['step']} {args.questions} questions "
                              f"x {len(MODELS)} models x {args.repeats} repeats", "seconds": record["seconds"],
                              "units": record["units"], "peak_mib": record["peak_mib"],
                              "cpu_s": record["cpu_s"], "db_cpu_s": record["db_cpu_s"]}))
        print(json.dumps({"bench": "launch_scale", "configuration": f"cancel of {cancel['units']} pending units",
                          "seconds": cancel["seconds"], "marking_s": cancel["marking_s"],
                          "db_cpu_s": cancel["db_cpu_s"]}))
        for name, figures in pages.items():
            print(json.dumps({"bench": "launch_scale", "configuration": f"{name} during the run",
                              "seconds": figures["median_ms"] / 1000, "first_ms": figures["first_ms"]}))


if __name__ == "__main__":
    main()
