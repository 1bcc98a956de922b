"""Database statements and Redis commands per answer on the worker's path (issue 45).

Launches a run of N choice questions on a model allowed C calls in flight (no worker:
its messages are dropped), then asks them here, in this process, a batch at a time
through the worker's own path (`batch_execution.execute_batch`, batches of
`batching.batch_size(C)`), against the fake server. Counts every SQL statement Django
sends (`CaptureQueriesContext`, by kind) and every Redis command sent to the bench's
Redis database (MONITOR, filtered to that database). Prints one JSON line.

    .venv/bin/python bench/round_trips.py [--questions 256] [--concurrency 32]

Needs PostgreSQL and Redis as bench/run_throughput.py does (same BENCH_* variables).
"""

import argparse
import collections
import json
import os
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run_throughput  # noqa: E402 — sets the bench's database and Redis


def monitor(url, counts: collections.Counter, stop: threading.Event):
    """Count the commands MONITOR shows for the database of `url` until `stop`."""
    import redis

    client = redis.Redis.from_url(url)
    db = client.connection_pool.connection_kwargs.get("db", 0)
    with client.monitor() as m:
        for event in m.listen():
            if stop.is_set():
                return
            if int(event.get("db", -1)) == db:
                counts[event["command"].split(" ", 1)[0].upper()] += 1


def kind(sql: str) -> str:
    words = sql.lstrip().split(None, 3)
    head = words[0].upper() if words else "?"
    return head if head not in ("WITH",) else "WITH"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=256)
    parser.add_argument("--concurrency", type=int, default=32)
    args = parser.parse_args()
    run_throughput.ensure_database()
    import django

    django.setup()
    import redis
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    call_command("migrate", verbosity=0)
    redis.Redis.from_url(run_throughput.REDIS_URL).flushdb()
    fake, base_url = run_throughput.start_fake(0.2)
    try:
        from runs_app import batch_execution, services
        from runs_app.batching import batch_size
        from runs_app.models import LLMModel, Response

        benchmark = run_throughput.questions(args.questions)
        model, _ = LLMModel.objects.update_or_create(name=f"bench-c{args.concurrency}", defaults=dict(
            litellm_model="openai/fake", api_base=base_url, answer_mode="choice", choice_strategy="logprobs",
            max_concurrency=args.concurrency, timeout_seconds=30))
        run = services.launch_run(benchmark, [model], use_cache=False)
        redis.Redis.from_url(run_throughput.REDIS_URL).flushdb()  # the launch's messages: no worker here
        ids = list(Response.objects.filter(run=run).order_by("pk").values_list("pk", flat=True))
        size = batch_size(args.concurrency, settings.CFPD_BATCH_SIZE)
        batches = [ids[i:i + size] for i in range(0, len(ids), size)]
        batch_execution.execute_batch(batches[0])  # warm
        counts: collections.Counter = collections.Counter()
        stop = threading.Event()
        watcher = threading.Thread(target=monitor, args=(run_throughput.REDIS_URL, counts, stop), daemon=True)
        watcher.start()
        time.sleep(0.3)
        asked = 0
        with CaptureQueriesContext(connection) as queries:
            for batch in batches[1:]:
                batch_execution.execute_batch(batch)
                asked += len(batch)
        time.sleep(0.3)
        stop.set()
        redis.Redis.from_url(run_throughput.REDIS_URL).ping()  # one more event so the monitor sees `stop`
        watcher.join(timeout=2)
        statements = collections.Counter(kind(q["sql"]) for q in queries.captured_queries)
        if os.environ.get("ROUND_TRIPS_SQL"):
            per = len(queries.captured_queries) // (len(batches) - 1)
            for q in queries.captured_queries[-per:]:
                print(q["sql"][:300], file=sys.stderr)
        done = Response.objects.filter(run=run, status="done").count()
        print(json.dumps({
            "bench": "round_trips", "questions": args.questions, "concurrency": args.concurrency, "batch": size,
            "asked": asked, "done": done,
            "sql_per_answer": round(sum(statements.values()) / asked, 3),
            "sql_per_batch": round(sum(statements.values()) / (len(batches) - 1), 2),
            "sql_by_kind_per_batch": {k: round(v / (len(batches) - 1), 2) for k, v in statements.most_common()},
            "redis_per_answer": round(sum(counts.values()) / asked, 3),
            "redis_by_command_per_answer": {k: round(v / asked, 3) for k, v in counts.most_common()},
        }), flush=True)
    finally:
        fake.terminate()


if __name__ == "__main__":
    main()
