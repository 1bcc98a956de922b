"""Issue 32's table again: runs of 2,000 units against the fake provider, two workers,
a PostgreSQL and a Redis of their own (tests/faults/stack.py), each fault injected about
400 answers into the run and lasting --outage seconds. Prints one row per fault: seconds
from the fault's end to the run's end, units done / failed / still open, units in flight
at the fault, provider calls beyond one per unit, and the notices the run showed.

    .venv/bin/python bench/faults.py [--units 2000] [--outage 20] [--faults kill,postgres,redis,redis-aof,disk]
"""

import argparse
import math
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fakes.fake_openai import FakeOpenAI  # noqa: E402
from tests.faults.stack import Stack  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--units", type=int, default=2000)
    parser.add_argument("--outage", type=float, default=20)
    parser.add_argument("--at", type=int, default=400, help="answers before the fault")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--faults", default="kill,postgres,redis,redis-aof,disk")
    parser.add_argument("--bound", type=float, default=900)
    args = parser.parse_args()
    os.environ.setdefault("CFPD_LEASE_MARGIN", "30")
    with FakeOpenAI(seed=5, latency=0.05) as fake, tempfile.TemporaryDirectory(prefix="cfpd-faults-") as folder:
        stack = Stack(Path(folder))
        # The defaults of production, but for the watcher's period (CFPD_SWEEP_SECONDS 15) and the
        # lease margin (30 s): as shipped.
        for name in ("CFPD_SWEEP_SECONDS", "CFPD_LEASE_MARGIN", "CFPD_BACKOFF_FACTOR", "CFPD_BACKOFF_MAX",
                     "CFPD_SERVICE_RETRY", "CFPD_WRITE_PATIENCE", "CFPD_CONNECTION_PAUSE"):
            from tests.faults import stack as stack_module

            stack_module.WORKER_ENV.pop(name, None)
        try:
            stack.start()
            stack.setup_models(fake.base_url, models=1)
            questions = stack.questions()
            models = math.ceil(args.units / questions)
            stack.setup_models(fake.base_url, models=models)
            for _ in range(args.workers):
                stack.start_worker(args.concurrency)
            print(f"{args.units} units ({questions} questions x {models} models), {args.workers} workers x "
                  f"{args.concurrency} threads, outage {args.outage:.0f} s at {args.at} answers", flush=True)
            print("fault | seconds to the end after it | done | failed | open | in flight at the fault | "
                  "calls beyond one per unit | notices", flush=True)
            for seed, fault in enumerate(args.faults.split(","), start=1):
                print(row(stack, fake, fault, args, models, seed), flush=True)
        finally:
            stack.close()


def row(stack, fake, fault, args, models, seed):
    if fault == "redis-aof" and not stack.appendonly:
        stack.use_appendonly()
    inject, restore = {
        "kill": stack.worker_killer(args.concurrency),
        "postgres": (stack.stop_postgres, stack.start_postgres),
        "redis": (stack.stop_redis, stack.start_redis),
        "redis-aof": (stack.stop_redis, stack.start_redis),
        "disk": (lambda: stack.disk_full_flag.write_text("full"), lambda: stack.disk_full_flag.unlink()),
    }[fault]
    fake.reset_stats()
    run_id = stack.launch(args.units, models=models, seed=seed)
    units = sum(stack.counts(run_id).get(s, 0) for s in ("pending", "running", "done", "failed"))
    while stack.counts(run_id).get("done", 0) < args.at:
        time.sleep(0.1)
    in_flight = stack.counts(run_id).get("running", 0)
    notices = set()
    inject()
    end = time.monotonic() + args.outage
    while time.monotonic() < end:
        wait = (stack.counts(run_id).get("service_wait") or {}).get("waiting")
        if wait:
            notices.add(f"{wait['service']} ({wait['units']} units)")
        time.sleep(0.5)
    restore()
    restored = time.monotonic()
    while time.monotonic() - restored < args.bound:
        counts = stack.counts(run_id)
        wait = (counts.get("service_wait") or {}).get("waiting")
        if wait:
            notices.add(f"{wait['service']} ({wait['units']} units)")
        if counts.get("run") == "done" and not wait:
            break
        time.sleep(0.5)
    seconds = time.monotonic() - restored
    counts = stack.counts(run_id)
    calls = fake.stats()["total_requests"]
    still_open = counts.get("pending", 0) + counts.get("running", 0)
    return (f"{fault} | {seconds:.0f} | {counts.get('done', 0)} | {counts.get('failed', 0)} | {still_open} | "
            f"{in_flight} | {calls - units} | {', '.join(sorted(notices)) or '-'}")


if __name__ == "__main__":
    main()
