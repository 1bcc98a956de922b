"""How long a full cyclic garbage collection stops a worker process, before and after
`gc.freeze()` (what `runs_app.tasks.freeze_start_up_objects` does once a worker is ready).

A worker holds what its start-up loaded: Django and every app, Celery, LiteLLM and its
price table, the OpenAI client. CPython's collector walks every tracked object at each
full (generation 2) collection, holding the GIL: every thread waits, the event loop
whose model calls are in flight included. `gc.freeze()` moves the objects alive at that
moment to a permanent generation that collections skip (reference counting still frees
them). This loads what a worker loads, then times `gc.collect()` --rounds times before
and after the freeze, and prints the tracked objects and the best and median pause.

    .venv/bin/python bench/gc_pause.py [--rounds 5] [--json]
"""

import argparse
import gc
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cfpd_site.settings")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def load_what_a_worker_loads():
    import django

    django.setup()
    from cfpd_site.celery import app  # noqa: F401 — the Celery app and its tasks
    from gateway import llm
    from runs_app import tasks  # noqa: F401

    llm.warm_up()  # LiteLLM, the OpenAI client, the price table (as `worker_init` does)


def pauses(rounds):
    seconds = []
    for _ in range(rounds):
        started = time.perf_counter()
        gc.collect()
        seconds.append(time.perf_counter() - started)
    return seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    load_what_a_worker_loads()
    results = []
    for state in ("unfrozen", "frozen"):
        if state == "frozen":
            gc.freeze()
        tracked = len(gc.get_objects())
        measured = pauses(args.rounds)
        results.append({"bench": "gc_pause", "configuration": f"full collection, {state}",
                        "seconds": statistics.median(measured), "best_seconds": min(measured),
                        "tracked_objects": tracked, "frozen_objects": gc.get_freeze_count(), "rounds": args.rounds})
    for result in results:
        if args.json:
            print(json.dumps(result))
        else:
            print(f"{result['configuration']:<26} {result['seconds'] * 1000:7.1f} ms (best {result['best_seconds'] * 1000:.1f}); "
                  f"{result['tracked_objects']:,} objects tracked, {result['frozen_objects']:,} frozen")


if __name__ == "__main__":
    main()
