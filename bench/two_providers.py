"""Two providers of limits far apart in one run: does either wait on the other? (issue 31)

Two fake OpenAI-compatible servers (tests/fakes/fake_openai.py) enforce their own limits
(429 beyond them): the fast one `--fast-in-flight` calls at once answered after
`--fast-latency` s, the slow one `--slow-in-flight` at `--slow-latency` s. One model on
each, registered with the server's limit as its `max_concurrency`. Real Celery worker
processes (thread pool), PostgreSQL and Redis. Three runs of `--questions` questions:
each model alone, then both in one run. Per provider: answers per minute alone and
together, from the launch to its last answer (`answered_at`, as written by the worker).
A provider that waits on the other shows a together_rpm far below its alone_rpm.

    .venv/bin/python bench/two_providers.py --json

Needs PostgreSQL and Redis (BENCH_DATABASE_URL, default
postgres://postgres:postgres@127.0.0.1:5432/cfpd_twoproviders_bench, dropped and created
at each invocation; BENCH_REDIS_URL, default redis://127.0.0.1:6379/6, flushed).
"""

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATABASE_URL = os.environ.get("BENCH_DATABASE_URL",
                              "postgres://postgres:postgres@127.0.0.1:5432/cfpd_twoproviders_bench")
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/6")
os.environ.update(DATABASE_URL=DATABASE_URL, REDIS_URL=REDIS_URL, DJANGO_SETTINGS_MODULE="cfpd_site.settings",
                  SECRET_KEY=os.environ.get("SECRET_KEY", "bench-only-secret-key"), DEBUG="0",
                  SECURE_SSL_REDIRECT="0", CFPD_SWEEP_SECONDS="30")


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def ensure_database():
    import scale_db

    scale_db.recreate_database(DATABASE_URL)


def start_workers(threads, processes):
    from runs_app.processes import worker_command

    return [subprocess.Popen(worker_command(threads) + ["-n", f"two{i}@%h"], cwd=ROOT, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL) for i in range(processes)]


def benchmark(name, count):
    from scenarios_app.models import Benchmark, Question

    bench, _ = Benchmark.objects.get_or_create(name=name)
    Question.objects.bulk_create([
        Question(benchmark=bench, key=f"{name}/q{i}", text=f"Synthetic question {i} of {name}. What should be done?",
                 options=[{"text": "Wait", "category": "no-force"}, {"text": "Act", "category": "use-of-force"}],
                 option_order=[0, 1], choice_count=2)
        for i in range(count)], batch_size=5000)
    return bench


def timed_run(name, models, count):
    """Launch a run of `count` fresh questions on `models`; seconds from the launch to
    each model's last answer, and the units that failed."""
    from django.db.models import Max

    from runs_app import services

    bench = benchmark(name, count)
    started = time.time()
    run = services.launch_run(bench, models, use_cache=False)
    while run.responses.filter(status__in=["pending", "running"]).exists():
        time.sleep(0.25)
    last = dict(run.responses.values_list("model__name").annotate(last=Max("answered_at")))
    failed = run.responses.exclude(status="done").count()
    return {name: at.timestamp() - started for name, at in last.items()}, failed


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=120, help="Questions per run (each model asks each).")
    parser.add_argument("--fast-in-flight", type=int, default=20)
    parser.add_argument("--fast-latency", type=float, default=0.1)
    parser.add_argument("--slow-in-flight", type=int, default=2)
    parser.add_argument("--slow-latency", type=float, default=0.5)
    parser.add_argument("--processes", type=int, default=2, help="Worker processes.")
    parser.add_argument("--threads", type=int, default=4, help="Threads per worker process.")
    parser.add_argument("--json", action="store_true", help="One JSON object per provider per line.")
    args = parser.parse_args()
    ensure_database()
    import django

    django.setup()
    import redis
    from django.core.management import call_command

    from runs_app.models import LLMModel
    from tests.fakes.fake_openai import FakeOpenAI

    call_command("migrate", verbosity=0)
    redis.Redis.from_url(REDIS_URL).flushdb()
    limits = {"fast": (args.fast_in_flight, args.fast_latency), "slow": (args.slow_in_flight, args.slow_latency)}
    servers = {name: FakeOpenAI(seed=i, limit_in_flight=n, latency=latency).start()
               for i, (name, (n, latency)) in enumerate(limits.items())}
    models = {name: LLMModel.objects.create(
        name=name, litellm_model=f"openai/{name}", api_base=servers[name].base_url, answer_mode="choice",
        choice_strategy="logprobs", max_concurrency=limits[name][0], timeout_seconds=30) for name in limits}
    workers = start_workers(args.threads, args.processes)
    try:
        timed_run("warm-up", list(models.values()), 8)  # workers started and connected before the clock
        alone, failed = {}, 0
        for name, model in models.items():
            seconds, bad = timed_run(f"alone-{name}", [model], args.questions)
            alone[name], failed = seconds[name], failed + bad
            log(f"{name} alone: {args.questions} answers in {alone[name]:.1f} s")
        together, bad = timed_run("together", list(models.values()), args.questions)
        failed += bad
        log("together: " + ", ".join(f"{name} {s:.1f} s" for name, s in together.items()))
        answered_429 = {name: server.stats()["failed"] for name, server in servers.items()}
    finally:
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.wait()
        for server in servers.values():
            server.stop()
    load = os.getloadavg()
    for name, (in_flight, latency) in limits.items():
        row = {"provider": name, "in_flight": in_flight, "latency_s": latency, "ideal_rpm": 60 * in_flight / latency,
               "alone_rpm": round(60 * args.questions / alone[name], 1),
               "together_rpm": round(60 * args.questions / together[name], 1),
               "alone_s": round(alone[name], 2), "together_s": round(together[name], 2),
               "server_429": answered_429[name], "failed_units": failed, "load": [round(x, 2) for x in load]}
        print(json.dumps(row) if args.json else
              f"{name:5} limit {in_flight} in flight at {latency} s (ideal {row['ideal_rpm']:.0f}/min): alone "
              f"{row['alone_rpm']:.0f}/min, together {row['together_rpm']:.0f}/min", flush=True)


if __name__ == "__main__":
    main()
