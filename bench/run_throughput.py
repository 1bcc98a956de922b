"""Throughput of the run engine against the fake OpenAI-compatible server.

For each concurrency limit and question count: launch a run of N choice questions on a
model allowed C calls in flight, with real Celery worker processes (thread pool), real
PostgreSQL and Redis, and a server that answers after a fixed latency. Prints the
throughput achieved as a ratio of the ideal (C / latency), the overhead per response,
and where the time went (launch, worker CPU).

    .venv/bin/python bench/run_throughput.py                       # 32, 128 x 2,000 and 20,000
    .venv/bin/python bench/run_throughput.py --concurrency 32 --questions 2000 --baselines none

Beside each configuration, on the same fake server: LiteLLM alone (asyncio, as many
processes as workers, no database or queue) and Inspect AI (`max_connections`, in its
own virtual environment, at most --inspect-questions questions), from
bench/fanout_baselines.py; the table gives the product's throughput as a share of
LiteLLM's. Worker peak RSS and the CPU per answer of the workers and of PostgreSQL are
printed with each, and on both lines the mean of the fake server's requests in flight, on the
product's the mean of its model's slots held in Redis too (`fanout_baselines.InFlightSampler`,
every 50 ms: where the slots held stay under the limit, the limit or its hand-over is what
holds the product back; where the server's requests stay under the slots, the client's CPU).

Needs PostgreSQL and Redis (BENCH_DATABASE_URL, default postgres://postgres:postgres@127.0.0.1:5432/cfpd_bench;
BENCH_REDIS_URL, default redis://127.0.0.1:6379/14). The bench database is dropped, created and
migrated at each invocation, and vacuumed before each measured run.
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
DATABASE_URL = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres:postgres@127.0.0.1:5432/cfpd_bench")
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/14")
os.environ.update(DATABASE_URL=DATABASE_URL, REDIS_URL=REDIS_URL, DJANGO_SETTINGS_MODULE="cfpd_site.settings",
                  SECRET_KEY=os.environ.get("SECRET_KEY", "bench-only-secret-key"), DEBUG="0",
                  SECURE_SSL_REDIRECT="0", CFPD_SWEEP_SECONDS="30")


def ensure_database():
    """The bench database, created anew at each invocation: the runs of earlier
    invocations and their dead rows (three updates an answer, faster than autovacuum
    cleans them: 225,000 dead response rows after a dozen runs) made each run slower than
    the one before."""
    import scale_db

    scale_db.recreate_database(DATABASE_URL)


def vacuum():
    """VACUUM ANALYZE the bench database, so that each measured run starts from the same
    state (the warm-up's and earlier configurations' dead rows cleaned, statistics fresh)."""
    import psycopg

    with psycopg.connect(DATABASE_URL, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")


def cpu_seconds(pid):
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def service_cpu_seconds(name):
    """CPU of every process of a service (postgres, redis-server) on this machine, seconds."""
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if stat.read_text().split(" ", 2)[1].strip("()").startswith(name[:15]):
                total += cpu_seconds(stat.parent.name)
        except (OSError, IndexError):
            continue
    return total


def database_backends_cpu():
    """CPU seconds so far of each PostgreSQL backend connected to the bench database, by
    pid: this database's share of the server's CPU, whatever other databases on the same
    server are doing (`service_cpu_seconds("postgres")` counts them all). A backend that
    ends during the run takes its CPU with it (the workers' pooled connections stay)."""
    import psycopg

    with psycopg.connect(DATABASE_URL, autocommit=True) as conn:
        pids = [pid for (pid,) in conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                                               "AND pid <> pg_backend_pid()")]
    found = {}
    for pid in pids:
        try:
            found[pid] = cpu_seconds(pid)
        except OSError:
            continue
    return found


def database_counts():
    """The bench database's transactions and rows written so far (`pg_stat_database`)."""
    import psycopg

    with psycopg.connect(DATABASE_URL, autocommit=True) as conn:
        row = conn.execute("SELECT xact_commit, tup_inserted, tup_updated, tup_deleted FROM pg_stat_database "
                           "WHERE datname = current_database()").fetchone()
    return dict(zip(("transactions", "inserted", "updated", "deleted"), row))


def peak_rss_mib(pid):
    """The process's peak resident memory (VmHWM), MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def start_fake(latency: float) -> tuple[subprocess.Popen, str]:
    """The fake server in its own process (as the workers see it): (process, base URL)."""
    from tests.fakes.fake_openai import spawn

    return spawn(latency, ROOT)


def start_workers(threads, processes):
    from runs_app.processes import worker_command

    command = worker_command(threads) + ["--prefetch-multiplier", "2"]
    return [subprocess.Popen(command + ["-n", f"bench{i}@%h"], cwd=ROOT, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL) for i in range(processes)]


def questions(count):
    from scenarios_app.models import Benchmark, Question

    benchmark, _ = Benchmark.objects.get_or_create(name=f"bench-{count}")
    have = Question.objects.filter(benchmark=benchmark).count()
    Question.objects.bulk_create([
        Question(benchmark=benchmark, key=f"bench-{count}/q{i}", text=f"Synthetic question {i}. What should be done?",
                 options=[{"text": "Wait", "category": "no-force"}, {"text": "Act", "category": "use-of-force"}],
                 option_order=[0, 1], choice_count=2)
        for i in range(have, count)
    ], batch_size=5000)
    return benchmark


def wait_done(run, count):
    from runs_app import services

    while True:
        state = services.progress(run)
        if state.done + state.failed >= count:
            return state
        time.sleep(0.25)


def warm_up(model, concurrency):
    """A small run first, so that the workers have started (Django's checks, imports) and
    made their first calls before the clock starts: a long run pays that once."""
    from runs_app import services
    from scenarios_app.models import Benchmark, Question

    count = 2 * concurrency
    benchmark, _ = Benchmark.objects.get_or_create(name=f"bench-warm-up-{count}")
    Question.objects.bulk_create([
        Question(benchmark=benchmark, key=f"bench-warm-up-{count}/q{i}", text=f"Warm-up question {i}. What now?",
                 options=[{"text": "Wait", "category": "no-force"}, {"text": "Act", "category": "use-of-force"}],
                 option_order=[0, 1], choice_count=2)
        for i in range(Question.objects.filter(benchmark=benchmark).count(), count)])
    wait_done(services.launch_run(benchmark, [model], use_cache=False), count)


def measure(count, concurrency, latency, base_url, processes=2):
    from django.db.models import Max, Min
    from fanout_baselines import InFlightSampler, machine_busy_seconds

    from gateway import get_limiter

    from runs_app import services
    from runs_app.models import LLMModel

    benchmark = questions(count)
    model, _ = LLMModel.objects.update_or_create(name=f"bench-c{concurrency}", defaults=dict(
        litellm_model="openai/fake", api_base=base_url, answer_mode="choice", choice_strategy="logprobs",
        max_concurrency=concurrency, timeout_seconds=30))
    # Each worker thread asks a batch of units together: enough batches in flight that
    # the model's limit, not the pool, bounds the calls (twice the limit, so that the next
    # batches are claimed while the last answers of the earlier ones are written).
    from django.conf import settings

    from runs_app.batching import batch_size

    size = batch_size(concurrency, settings.CFPD_BATCH_SIZE)
    threads = max(2, -(-2 * concurrency // (processes * size)))
    workers = start_workers(threads, processes)
    try:
        warm_up(model, concurrency)
        vacuum()
        each_before = [cpu_seconds(w.pid) for w in workers]
        services_before = {name: service_cpu_seconds(name) for name in ("postgres", "redis-server")}
        backends_before, counts_before = database_backends_cpu(), database_counts()
        busy_before = machine_busy_seconds()
        limiter = get_limiter(REDIS_URL)
        slots_key = f"{limiter.prefix}:model-{model.pk}:inflight"  # the model's slots held (gateway.limits)
        started, started_at = time.perf_counter(), time.time()
        with InFlightSampler(base_url, slots=lambda: limiter.redis.zcard(slots_key)) as sampler:
            run = services.launch_run(benchmark, [model], use_cache=False)
            launched = time.perf_counter() - started
            state = wait_done(run, count)
        busy = machine_busy_seconds() - busy_before
        each = [cpu_seconds(w.pid) - before for w, before in zip(workers, each_before)]
        cpu = sum(each)
        rss = max(peak_rss_mib(w.pid) for w in workers)
        services_cpu = {name: service_cpu_seconds(name) - before for name, before in services_before.items()}
        backends_cpu = sum(cpu - backends_before.get(pid, 0.0) for pid, cpu in database_backends_cpu().items())
    finally:
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.wait()
    time.sleep(1.0)  # the workers' backends report their counts as they end
    counts = {name: value - counts_before[name] for name, value in database_counts().items()}
    window = run.responses.aggregate(first=Min("answered_at"), last=Max("answered_at"))
    answering = (window["last"] - window["first"]).total_seconds()
    # From the launch to the last answer as its worker wrote it (the same clock), not to
    # the poll that saw it: polling every 0.25 s added 0.125 s on average to the product's
    # time and nothing to LiteLLM's, which stops its clock at its last answer.
    wall = window["last"].timestamp() - started_at
    throughput = count / wall
    ideal = concurrency / latency
    return {
        "questions": count, "concurrency": concurrency, "failed": state.failed, "launch_s": launched,
        "wall_s": wall, "throughput": throughput, "ideal": ideal, "ratio": throughput / ideal,
        "steady_ratio": (count / answering) / ideal if answering else float("nan"),
        "overhead_ms": (concurrency * wall / count - latency) * 1000, "worker_cpu_ms": 1000 * cpu / count,
        "worker_rss_mib": rss, "postgres_cpu_ms": 1000 * services_cpu["postgres"] / count,
        "redis_cpu_ms": 1000 * services_cpu["redis-server"] / count,
        "database_cpu_ms": 1000 * backends_cpu / count, "machine_cpu_ms": 1000 * busy / count,
        **{f"{name}_per_answer": value / count for name, value in counts.items()}, "processes": processes, "threads": threads, "batch": size,
        # how the work fell between the worker processes (their CPU, each a share of the whole)
        "worker_cpu_shares": sorted((round(c / cpu, 3) for c in each), reverse=True) if cpu else [],
        **sampler.means(),
    }


def baselines(args, count, concurrency, base_url, inspect):
    """LiteLLM alone (as many processes as the product's workers) and Inspect AI, against
    the same fake server, for the same configuration (bench/fanout_baselines.py)."""
    import fanout_baselines

    found = []
    if "litellm" in args.baselines:
        found.append(fanout_baselines.measure_litellm(base_url, count, concurrency, args.latency, args.processes))
    if "inspect" in args.baselines:
        asked = min(count, args.inspect_questions)
        try:
            python = inspect["python"] = inspect.get("python") or fanout_baselines.inspect_python(
                install=not args.no_install)
            found.append(fanout_baselines.measure_inspect(base_url, asked, concurrency, args.latency, python))
        except fanout_baselines.Skipped as skipped:
            found.append({"bench": "fanout", "system": "inspect", "concurrency": concurrency, "questions": asked,
                          "skipped": str(skipped)})
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--concurrency", type=int, action="append")
    parser.add_argument("--questions", type=int, action="append")
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--processes", type=int, default=2, help="Worker processes (thread pool each).")
    parser.add_argument("--baselines", default="litellm,inspect",
                        help="Measured beside the product for each configuration: litellm, inspect, or none.")
    parser.add_argument("--inspect-questions", type=int, default=2000,
                        help="Inspect AI asks at most this many questions (it is the slowest of the three).")
    parser.add_argument("--no-install", action="store_true", help="Skip Inspect AI if its venv is missing.")
    parser.add_argument("--json", action="store_true", help="One JSON object per configuration per line.")
    args = parser.parse_args()
    ensure_database()
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    import redis

    redis.Redis.from_url(REDIS_URL).flushdb()
    fake, base_url = start_fake(args.latency)
    rows, others, inspect = [], [], {}
    try:
        for count in args.questions or [2000, 20000]:
            for concurrency in args.concurrency or [32, 128]:
                row = measure(count, concurrency, args.latency, base_url, args.processes)
                rows.append(row)
                found = baselines(args, count, concurrency, base_url, inspect)
                others += found
                if args.json:
                    print(json.dumps({"bench": "run_throughput", "system": "cfpd", **row}), flush=True)
                    for other in found:
                        print(json.dumps(other), flush=True)
                    continue
                print(f"N={row['questions']:>6} C={row['concurrency']:>4}  {row['throughput']:7.1f}/s of ideal "
                      f"{row['ideal']:6.1f}/s  ratio {row['ratio']:.2f} (steady {row['steady_ratio']:.2f})  "
                      f"launch {row['launch_s']:.1f}s  wall {row['wall_s']:.1f}s  overhead/response "
                      f"{row['overhead_ms']:.0f} ms  worker CPU/response {row['worker_cpu_ms']:.1f} ms  "
                      f"failed {row['failed']}  worker peak RSS {row['worker_rss_mib']:.0f} MiB  PostgreSQL CPU/response "
                      f"{row['postgres_cpu_ms']:.1f} ms  Redis {row['redis_cpu_ms']:.1f} ms", flush=True)
                for other in found:
                    print(f"   {other['system']}: " + (f"skipped: {other['skipped']}" if "skipped" in other else
                          f"{other['throughput']:.1f}/s ratio {other['ratio']:.2f} "
                          f"({other['questions']} questions, CPU/answer {other['cpu_ms_per_answer']:.1f} ms)"),
                          flush=True)
    finally:
        fake.terminate()
    if args.json:
        return
    print("\n| questions | concurrency | this product /s (ratio of ideal) | LiteLLM alone /s (ratio) | product ÷ LiteLLM "
          "| Inspect AI /s (ratio) | launch s | worker CPU ms | PostgreSQL CPU ms | worker RSS MiB |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        def other(system):
            return next((o for o in others if o["system"] == system and o["concurrency"] == r["concurrency"]
                         and o["questions"] in (r["questions"], min(r["questions"], args.inspect_questions))
                         and "skipped" not in o), None)

        lite, insp = other("litellm"), other("inspect")
        print(f"| {r['questions']} | {r['concurrency']} | {r['throughput']:.1f} ({r['ratio']:.2f}) | "
              + (f"{lite['throughput']:.1f} ({lite['ratio']:.2f}) | {r['throughput'] / lite['throughput']:.2f} | "
                 if lite else "— | — | ")
              + (f"{insp['throughput']:.1f} ({insp['ratio']:.2f}; {insp['questions']} q) | " if insp else "— | ")
              + f"{r['launch_s']:.1f} | {r['worker_cpu_ms']:.1f} | {r['postgres_cpu_ms']:.1f} | "
              f"{r['worker_rss_mib']:.0f} |")


if __name__ == "__main__":
    main()
