"""Where a worker's CPU goes per answer: LiteLLM, Celery, the database and the rest.

Runs one worker process and, once it has started, samples it with py-spy (`--gil`: the
thread holding Python's GIL, i.e. running Python code, not waiting) against the fake server at 200 ms, launches N choice questions at
concurrency C on PostgreSQL + Redis, and splits the samples by the first frame, from the
innermost out, that belongs to a known part:

* LiteLLM: litellm, openai, httpx, httpcore, aiohttp, anyio (the call and its HTTP client), and
  the modules of LiteLLM py-spy names by their file alone (its logging of each answer)
* Celery: celery, kombu, billiard, vine, amqp (messages, the pool) — and redis when called from them
* database: django.db, psycopg, psycopg_pool, sqlite3 (the ORM building and running statements)
* coding: encoding_app (coding each answer as it arrives)
* limits: gateway/limits.py (the shared slots in Redis)
* rest: everything else (the engine's own code, Django outside the ORM, the interpreter)

    .venv/bin/python bench/cpu_split.py [--questions 2000] [--concurrency 32] [--json]

Needs py-spy (`pip install py-spy`; requirements-test.txt has it) and PostgreSQL + Redis as
bench/run_throughput.py does.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run_throughput  # noqa: E402 — sets the bench's database and Redis

PARTS = [
    # py-spy names a few of LiteLLM's modules by their file alone (its logging of each
    # answer, run from the event loop): those too.
    ("LiteLLM", ("(litellm/", "(openai/", "(httpx/", "(httpcore/", "(aiohttp/", "(anyio/", "(h11/", "(pydantic",
                 "(litellm_logging.py:", "(logging_worker.py:", "(redact_messages.py:", "(served_output_texts.py:")),
    ("Celery", ("(celery/", "(kombu/", "(billiard/", "(vine/", "(amqp/")),
    ("database", ("(django/db/", "(psycopg/", "(psycopg_pool/", "(sqlite3/")),
    ("coding", ("encoding_app/",)),
    ("limits", ("gateway/limits.py",)),
]


def part_of(stack: str) -> str:
    """The part a collapsed py-spy stack (frames root;...;leaf) is charged to: the first
    known part from the leaf out."""
    for frame in reversed(stack.split(";")):
        for name, markers in PARTS:
            if any(marker in frame for marker in markers):
                return name
    return "rest"


def split(collapsed: str) -> Counter:
    samples = Counter()
    for line in collapsed.splitlines():
        stack, _, count = line.rpartition(" ")
        if stack and count.isdigit():
            samples[part_of(stack)] += int(count)
    return samples


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--raw", type=Path, help="also keep py-spy's collapsed stacks in this file")
    args = parser.parse_args()
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not Path(spy).exists():
        sys.exit("py-spy is not installed: .venv/bin/pip install py-spy")
    run_throughput.ensure_database()
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    from runs_app import services
    from runs_app.batching import batch_size
    from runs_app.models import LLMModel
    from runs_app.processes import worker_command

    call_command("migrate", verbosity=0)
    import redis

    redis.Redis.from_url(run_throughput.REDIS_URL).flushdb()
    fake, base_url = run_throughput.start_fake(args.latency)
    benchmark = run_throughput.questions(args.questions)
    model, _ = LLMModel.objects.update_or_create(name=f"bench-c{args.concurrency}", defaults=dict(
        litellm_model="openai/fake", api_base=base_url, answer_mode="choice", choice_strategy="logprobs",
        max_concurrency=args.concurrency, timeout_seconds=30))
    threads = max(2, -(-2 * args.concurrency // batch_size(args.concurrency, settings.CFPD_BATCH_SIZE)))
    out = Path(tempfile.mkdtemp()) / "worker.txt"
    worker = subprocess.Popen([*worker_command(threads), "-n", "split@%h"], cwd=run_throughput.ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    spying = None
    try:
        run_throughput.warm_up(model, args.concurrency)  # started and warmed up: imports are not counted
        run_throughput.vacuum()
        cpu_before = run_throughput.cpu_seconds(worker.pid)
        spying = subprocess.Popen([spy, "record", "--format", "raw", "--rate", "250", "--gil", "--output", str(out),
                                   "--pid", str(worker.pid)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1)
        run_throughput.wait_done(services.launch_run(benchmark, [model], use_cache=False), args.questions)
        cpu = run_throughput.cpu_seconds(worker.pid) - cpu_before
    finally:
        if spying is not None:
            spying.send_signal(2)
            spying.wait(timeout=60)
        worker.terminate()
        worker.wait(timeout=60)
        fake.terminate()
    if args.raw:
        shutil.copyfile(out, args.raw)
    # Samples of the thread stacks with a thread name prefix ("thread (0x..)"): drop it.
    samples = split(out.read_text())
    total = sum(samples.values())
    # The process's CPU time (from /proc, threads outside the GIL included) shared out in
    # the proportions of the samples.
    per_answer = {name: 1000 * cpu * samples[name] / max(total, 1) / args.questions
                  for name in [*dict(PARTS), "rest"]}
    if args.json:
        for name, ms in per_answer.items():
            print(json.dumps({"bench": "cpu_split", "part": name, "seconds": ms / 1000, "ms_per_answer": ms,
                              "questions": args.questions, "concurrency": args.concurrency}))
        return
    print(f"worker CPU per answer, {args.questions} questions at concurrency {args.concurrency}: "
          f"{1000 * cpu / args.questions:.1f} ms ({total} samples of the GIL's holder at 250 Hz):")
    for name, ms in per_answer.items():
        print(f"  {name:<9} {ms:6.2f} ms  ({100 * samples[name] / max(total, 1):.0f} %)")
    print(f"  {'total':<9} {sum(per_answer.values()):6.2f} ms")


if __name__ == "__main__":
    main()
