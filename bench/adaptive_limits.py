"""Adaptive concurrency against a provider's hidden limits (issue 31).

A fake OpenAI-compatible server (tests/fakes/fake_openai.py, its own process) enforces a
hidden limit: at most `--hidden-rpm` requests answered in any 60 s and `--hidden-in-flight`
at once; beyond either a 429 at once with Retry-After (answers carry
`x-ratelimit-limit-requests` / `x-ratelimit-remaining-requests`, as OpenAI's do). Every
request waits `--latency` seconds.

* ``product``: the engine's asking path for a batch (`runs_app.batch_execution._ask_one`:
  the model's shared slot with the adaptive limit, `llm.acomplete`, the outcome fed to
  the controller) for a model registered with no limit of its own (`max_concurrency`
  `--ceiling`, default 1000, far above the hidden one; no requests_per_minute), the
  limiter in Redis (REDIS_URL, default db 7) as with several workers. `--workers` asking
  loops (one unit each at a time, as the units of worker batches) take units from one
  stream; a unit that gets a 429 goes back after its Retry-After, one that finds the model
  paused, its start or its slots not come after the wait the limiter names (a re-queued
  task's countdown, the loop free meanwhile). With `--second-rpm` two providers at once
  (two servers, the models' units in turn): each provider's figures beside its own limit. The database is left out: claims and writes are the same with or without
  adaptive limits.
* ``inspect`` (unless ``--no-inspect``): Inspect AI in var/formats-venv with its adaptive
  connections (`max_connections` unset) on the same server, a task of `--samples`
  generate() samples, timed out after the same duration.

Per system: calls answered per minute over the run (`achieved_rpm`) and over its last
minute (`last_minute_rpm`), the share of requests answered 429 (`share_429`), and for the
product the limit the controller ended on.

    .venv/bin/python bench/adaptive_limits.py                       # 120 s, hidden 1200 rpm / 16 in flight
    .venv/bin/python bench/adaptive_limits.py --seconds 60 --no-inspect --json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
import types
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def start_fake(latency: float) -> tuple[subprocess.Popen, str]:
    """The fake server in its own process (as the workers see it): (process, base URL)."""
    from tests.fakes.fake_openai import spawn

    return spawn(latency, ROOT)


def server(base_url: str, path: str, body: dict | None = None) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base_url.removesuffix("/v1") + path, data=data, method="POST" if data else "GET",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)


def figures(stats: dict, seconds: float, answered_times: list[float] | None, end: float) -> dict:
    total = stats["total_requests"]
    rejected = sum(n for kind, n in stats["failures"].items() if kind.startswith("429"))
    last = sum(1 for t in answered_times if t > end - 60) if answered_times is not None else None
    first = sum(1 for t in answered_times if t <= end - seconds + 60) if answered_times is not None else None
    return {"achieved_rpm": round(stats["successes"] * 60 / seconds, 1),
            "first_minute_rpm": first if seconds >= 60 else None,
            "last_minute_rpm": last if seconds >= 60 else None,
            "share_429": round(rejected / total, 4) if total else 0.0,
            "429_kinds": {kind: n for kind, n in stats["failures"].items() if kind.startswith("429")}, "requests": total, "answers": stats["successes"],
            "max_in_flight": stats["max_in_flight"]}


def measure_product(base_urls: list[str], seconds: float, workers: int, ceiling: int) -> list[dict]:
    """The product against each server in `base_urls` at once (one model each), its
    figures per server. The workers take units from one stream, the models in turn; a
    unit not answered (a 429, its model paused, its start or slot not come) goes back
    with its wait, as a re-queued task's countdown, and the worker takes the next."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cfpd_site.settings")
    import django

    django.setup()
    from django.conf import settings

    from gateway import llm
    from runs_app import batch_execution
    from runs_app.execution import Unit, model_limit
    from gateway.limits import get_limiter

    limiter = get_limiter(settings.REDIS_URL)
    limiter.forget_adaptive()
    models = [types.SimpleNamespace(pk=990001 + n, name=f"hidden-limit-{n}", max_concurrency=ceiling,
                                    requests_per_minute=None, timeout_seconds=30, is_bundled=False)
              for n in range(len(base_urls))]
    answered: list[list[float]] = [[] for _ in base_urls]
    rejected: list[list[float]] = [[] for _ in base_urls]  # when calls were answered 429
    limits: list[list[tuple[float, int]]] = [[] for _ in base_urls]

    async def main():
        loop = asyncio.get_running_loop()
        start = time.monotonic()
        end = start + seconds
        counter = iter(range(10**9))
        back: asyncio.Queue = asyncio.Queue()  # units whose countdown ran out

        waiting = [0] * len(base_urls)  # units of each model counting down
        # The asking loops share one event loop, as a worker's batch does: their plain
        # answers told together every LESSON_EVERY seconds (LESSON_AT_CEILING once a model's
        # limit is at its ceiling), as the batch's are.
        lessons = batch_execution.Lessons(limiter)

        def next_unit():
            if not back.empty():
                n, i = back.get_nowait()
                waiting[n] -= 1
                return n, i
            i = next(counter)
            # The models in turn; one with as many units waiting as there are workers
            # gets no new one (a backlog that size already keeps every worker busy).
            for n in sorted(range(len(base_urls)), key=lambda n: (n - i) % len(base_urls)):
                if waiting[n] < workers:
                    return n, i
            return None

        async def worker():
            while time.monotonic() < end:
                taken = next_unit()
                if taken is None:
                    await asyncio.sleep(0.05)
                    continue
                n, i = taken
                request = llm.LLMRequest(model="openai/fake", api_base=base_urls[n], timeout=30,
                                         messages=[{"role": "user", "content": f"Question {i}. What should be done?"}],
                                         params={"max_tokens": 8})
                unit = Unit(types.SimpleNamespace(model=models[n], run_id=None, pk=i), request=request)
                await batch_execution._ask_one(limiter, unit, lessons)
                if unit.result is not None:
                    answered[n].append(time.monotonic())
                    continue
                if unit.error is not None and unit.error.kind == "rate_limit":
                    rejected[n].append(time.monotonic() - start)
                wait = (unit.busy.retry_in if unit.busy else (unit.error.retry_after or 1.0)
                        if unit.error and unit.error.transient else None)
                if wait is None:
                    raise RuntimeError(f"unit {i} failed for good: {unit.error.kind} {unit.error.message}")
                waiting[n] += 1
                loop.call_later(wait, back.put_nowait, (n, i))
                await asyncio.sleep(0)

        async def watch():
            while time.monotonic() < end:
                for n, model in enumerate(models):
                    limits[n].append((round(time.monotonic() - start, 1), model_limit(limiter, model)))
                await asyncio.sleep(5)

        await asyncio.gather(watch(), *(worker() for _ in range(workers)))
        lessons.tell()
        return time.monotonic()

    os.environ.setdefault("CFPD_LOCAL_API_KEY", "no-key-needed")
    from gateway import event_loop

    end = event_loop.run(main())
    results = []
    for n, base_url in enumerate(base_urls):
        result = figures(server(base_url, "/stats"), seconds, answered[n], end)
        # The 429s by the 20 s stretch of the run they came in (where the bursts are).
        by_stretch = [sum(1 for t in rejected[n] if k * 20 <= t < (k + 1) * 20) for k in range(int(seconds // 20))]
        result.update(rate_limited_by_20s=by_stretch, final_limit=limits[n][-1][1] if limits[n] else None,
                      limits=limits[n][::max(1, len(limits[n]) // 12)])
        results.append(result)
    return results


def measure_inspect(base_url: str, seconds: float, samples: int) -> dict | str:
    python = ROOT / "var" / "formats-venv" / "bin" / "python"
    if not python.exists():
        return "Inspect AI not installed (var/formats-venv)"
    script = f"""
import time
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.solver import generate
task = Task(dataset=[Sample(input=f"Question {{i}}. What should be done?", target="A") for i in range({samples})],
            solver=generate())
started = time.monotonic()
eval(task, model="openai-api/fake/fake", model_base_url={base_url!r}, max_tokens=8, display="none",
     log_dir="/tmp/adaptive-var/inspect-logs", max_retries=100, timeout=30)
print("seconds", time.monotonic() - started)
"""
    env = dict(os.environ, FAKE_API_KEY="x")
    started = time.monotonic()
    try:
        done = subprocess.run([str(python), "-c", script], env=env, capture_output=True, text=True,
                              timeout=seconds + 5)
        if done.returncode != 0:
            return f"Inspect AI failed: {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else done.returncode}"
    except subprocess.TimeoutExpired:
        pass  # stopped at the same duration as the product's
    elapsed = min(time.monotonic() - started, seconds + 5)
    stats = server(base_url, "/stats")
    return figures(stats, elapsed, None, time.monotonic()) | {"seconds": round(elapsed, 1)}


def one_provider(args) -> list[dict]:
    process, base_url = start_fake(args.latency)
    hidden = {"limit_per_minute": args.hidden_rpm, "limit_in_flight": args.hidden_in_flight, "retry_after": 1.0,
              "no_rate_headers": args.no_headers}
    rows = []
    try:
        for system in ("product",) + (() if args.no_inspect else ("inspect",)):
            server(base_url, "/control", hidden)
            server(base_url, "/stats/reset", {})
            time.sleep(1)
            log(f"{system}: {args.seconds:.0f} s against a hidden {args.hidden_rpm} rpm / {args.hidden_in_flight} "
                f"in flight, latency {args.latency} s")
            measured = (measure_product([base_url], args.seconds, args.workers, args.ceiling)[0]
                        if system == "product" else measure_inspect(base_url, args.seconds, args.samples))
            if isinstance(measured, str):
                log(f"  {system} skipped: {measured}")
                continue
            row = {"bench": "adaptive_limits", "system": system, "hidden_rpm": args.hidden_rpm,
                   "rate_headers": not args.no_headers,
                   "hidden_in_flight": args.hidden_in_flight, "seconds": args.seconds, **measured}
            rows.append(row)
            log("  " + ", ".join(f"{k} {v}" for k, v in row.items() if k not in ("bench", "system")))
            # A fresh minute for the next system: the server's window forgets the last one.
            time.sleep(61 if system != "inspect" and not args.no_inspect else 0)
    finally:
        process.terminate()
        process.wait(timeout=10)
    return rows


def two_providers(args) -> list[dict]:
    """The product against two providers at once, limits `--hidden-rpm` and
    `--second-rpm` (in flight scaled by the same ratio, at least 1)."""
    started = [start_fake(args.latency) for _ in range(2)]
    hidden_rpm = [args.hidden_rpm, args.second_rpm]
    in_flight = [args.hidden_in_flight, max(1, round(args.hidden_in_flight * args.second_rpm / args.hidden_rpm))]
    rows = []
    try:
        for (_, base_url), rpm, flight in zip(started, hidden_rpm, in_flight):
            server(base_url, "/control", {"limit_per_minute": rpm, "limit_in_flight": flight, "retry_after": 1.0,
                                          "no_rate_headers": args.no_headers})
            server(base_url, "/stats/reset", {})
        log(f"product: {args.seconds:.0f} s against two providers at once, hidden {hidden_rpm} rpm / {in_flight} "
            f"in flight, latency {args.latency} s")
        measured = measure_product([base_url for _, base_url in started], args.seconds, args.workers, args.ceiling)
        for n, result in enumerate(measured):
            row = {"bench": "adaptive_limits", "system": f"product, provider {n + 1} of 2",
                   "hidden_rpm": hidden_rpm[n], "rate_headers": not args.no_headers,
                   "hidden_in_flight": in_flight[n], "seconds": args.seconds, **result}
            rows.append(row)
            log("  " + ", ".join(f"{k} {v}" for k, v in row.items() if k != "bench"))
    finally:
        for process, _ in started:
            process.terminate()
            process.wait(timeout=10)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=120)
    parser.add_argument("--hidden-rpm", type=int, default=1200)
    parser.add_argument("--hidden-in-flight", type=int, default=16)
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--workers", type=int, default=128)
    parser.add_argument("--ceiling", type=int, default=1000)
    parser.add_argument("--samples", type=int, default=20000)
    parser.add_argument("--no-inspect", action="store_true")
    parser.add_argument("--no-headers", action="store_true",
                        help="the server sends no x-ratelimit-* headers: the product learns the rate from 429s")
    parser.add_argument("--second-rpm", type=int, default=0,
                        help="a second provider at once (its own server, this hidden rpm and in flight scaled "
                             "alike): the product only, each provider's figures beside its hidden limit")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/7")
    os.environ.setdefault("CFPD_VAR_DIR", "/tmp/adaptive-var")
    if args.second_rpm:
        rows = two_providers(args)
    else:
        rows = one_provider(args)
    log(f"load average: {os.getloadavg()}")
    if args.json:
        for row in rows:
            print(json.dumps(row))


if __name__ == "__main__":
    main()
