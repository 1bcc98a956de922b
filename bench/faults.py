"""Issue 32's table again: runs of 2,000 units against the fake provider, two workers,
a PostgreSQL and a Redis of their own (tests/faults/stack.py), each fault injected about
400 answers into the run and lasting --outage seconds. Prints one row per fault: seconds
from the fault's end to the run's end (done, and no unit pending or running), the stall
(seconds from the service's return to the next answer), units done / failed / still
open, answers neither coded nor queued at the run's end and once the watchers coded
the lost ones (with the seconds from the fault's end until then), units in flight at the fault, provider calls
beyond one per unit, and the notices the run showed. `redis-flush` is issue 44's:
FLUSHALL and a restart of about a second without persistence.

    .venv/bin/python bench/faults.py [--units 2000] [--outage 20]
        [--faults kill,postgres,redis,redis-aof,disk,redis-flush]
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
    parser.add_argument("--faults", default="kill,postgres,redis,redis-flush,disk,redis-aof")
    parser.add_argument("--bound", type=float, default=900)
    args = parser.parse_args()
    os.environ.setdefault("CFPD_LEASE_MARGIN", "30")
    with FakeOpenAI(seed=5, latency=0.05) as fake, tempfile.TemporaryDirectory(prefix="cfpd-faults-") as folder:
        stack = Stack(Path(folder))
        # The defaults of production, but for the watcher's period (CFPD_SWEEP_SECONDS 15) and the
        # lease margin (30 s): as shipped.
        for name in ("CFPD_SWEEP_SECONDS", "CFPD_LEASE_MARGIN", "CFPD_BACKOFF_FACTOR", "CFPD_BACKOFF_MAX",
                     "CFPD_SERVICE_RETRY", "CFPD_WRITE_PATIENCE", "CFPD_CONNECTION_PAUSE", "CFPD_UNCODED_GRACE"):
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
            print("fault | seconds to the end after it | stall s | done | failed | open | uncoded at the end | "
                  "uncoded after | s until every answer coded | in flight at the fault | calls beyond one per unit "
                  "| notices", flush=True)
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
        "redis-flush": (lambda: None, stack.flush_and_restart_redis),  # no outage: the restart is the fault
    }[fault]
    if fault == "redis-flush" and stack.appendonly:
        raise SystemExit("redis-flush needs Redis without persistence: list it before redis-aof")
    fake.reset_stats()
    run_id = stack.launch(args.units, models=models, seed=seed)
    units = sum(stack.counts(run_id).get(s, 0) for s in ("pending", "running", "done", "failed"))
    while stack.counts(run_id).get("done", 0) < args.at:
        time.sleep(0.1)
    in_flight = stack.counts(run_id).get("running", 0)
    notices = set()
    inject()
    end = time.monotonic() + (0 if fault == "redis-flush" else args.outage)
    while time.monotonic() < end:
        wait = (stack.counts(run_id).get("service_wait") or {}).get("waiting")
        if wait:
            notices.add(f"{wait['service']} ({wait['units']} units)")
        time.sleep(0.5)
    restore()
    restored, back = time.monotonic(), time.time()
    stall = None
    while time.monotonic() - restored < args.bound:
        counts = stack.counts(run_id)
        state = counts.get("service_wait") or {}
        wait = state.get("waiting")
        if wait:
            notices.add(f"{wait['service']} ({wait['units']} units)")
        if state.get("emptied"):
            notices.add(f"restarted empty ({state['emptied']['units']} units queued again)")
        if state.get("refusing"):
            notices.add(f"refusing: {', '.join(sorted(state['refusing']))}")
        if stall is None and counts:
            first = stack.first_answer_after(run_id, back)
            stall = None if first is None else max(0.0, first - back)
        # Ended only when no unit is open (a run marked done with units open is not ended).
        if counts.get("run") == "done" and not wait and not counts.get("pending") and not counts.get("running"):
            break
        time.sleep(0.5)
    seconds = time.monotonic() - restored
    uncoded_at_end = stack.uncoded(run_id)
    # Answers whose code was lost are coded by the watchers once CFPD_UNCODED_GRACE old (60 s).
    while stack.uncoded(run_id) and time.monotonic() - restored < args.bound:
        time.sleep(0.5)
    coded_after = time.monotonic() - restored
    counts = stack.counts(run_id)
    calls = fake.stats()["total_requests"]
    still_open = counts.get("pending", 0) + counts.get("running", 0)
    stalled = "-" if stall is None else f"{stall:.1f}"
    return (f"{fault} | {seconds:.0f} | {stalled} | {counts.get('done', 0)} | {counts.get('failed', 0)} | "
            f"{still_open} | {uncoded_at_end} | {stack.uncoded(run_id)} | {coded_after:.0f} | {in_flight} | "
            f"{calls - units} | "
            f"{', '.join(sorted(notices)) or '-'}")


if __name__ == "__main__":
    main()
