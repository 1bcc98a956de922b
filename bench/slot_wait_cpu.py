"""CPU a process spends waiting for its model's shared slots (`gateway.async_slots.aslot`),
without HTTP, database or Celery: `--calls` calls on one event loop, `--in-flight` of them at
once (a worker's claimed units), under a limit of `--limit` calls shared through Redis, each
holding its slot `--hold` seconds (a sleep). `--processes` such processes run at once and share
the limit, as a run's workers do. Prints, per process, its wall time, CPU per call (the whole
process: the loop, the waiting, the Redis round trips) and the asks to Redis.

    .venv/bin/python bench/slot_wait_cpu.py [--tree .] [--processes 2] [--calls 3000] [--in-flight 256] \
        [--limit 128] [--hold 0.2]

`--tree`: the source tree whose `gateway` is imported (another worktree, to compare two
versions side by side). A hold under `HANDOVER_SECONDS` (1 s) has slots handed over within a
process; a longer one (a loaded machine's calls) sends every slot back through Redis.
Needs Redis (BENCH_REDIS_URL, default redis://127.0.0.1:6379/14; keys under `slot-wait-cpu:`).
"""

import argparse
import asyncio
import os
import subprocess
import sys
import time


def one_process(args):
    sys.path.insert(0, os.path.abspath(args.tree))
    from gateway.async_slots import aslot
    from gateway.limits import RedisLimiter

    limiter = RedisLimiter(os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/14"), prefix="slot-wait-cpu")
    asks = [0]
    acquire = limiter.try_acquire_many

    def counted(*a, **k):
        asks[0] += 1
        return acquire(*a, **k)

    limiter.try_acquire_many = counted

    async def main():
        gate = asyncio.Semaphore(args.in_flight)

        async def call():
            async with gate:
                async with aslot(limiter, "m", args.limit, None, lease=60, wait=30):
                    await asyncio.sleep(args.hold)

        started, cpu = time.monotonic(), time.process_time()
        await asyncio.gather(*(call() for _ in range(args.calls)))
        return time.monotonic() - started, time.process_time() - cpu

    wall, cpu = asyncio.run(main())
    print(f"{args.tree}: {args.calls} calls, wall {wall:.2f} s, CPU {1000 * cpu / args.calls:.3f} ms per call, "
          f"{asks[0]} asks to Redis", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", default=".")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--in-flight", type=int, default=256)
    parser.add_argument("--limit", type=int, default=128)
    parser.add_argument("--hold", type=float, default=0.2)
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # a child process
    args = parser.parse_args()
    if args.one:
        return one_process(args)
    import redis

    redis.Redis.from_url(os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/14")).delete(
        "slot-wait-cpu:m:inflight", "slot-wait-cpu:m:inflight:life")
    children = [subprocess.Popen([sys.executable, __file__, "--one", *sys.argv[1:]]) for _ in range(args.processes)]
    for child in children:
        child.wait()


if __name__ == "__main__":
    main()
