"""Time per territorial question of the bundled models in each answer mode, all through
the LiteLLM seam the worker uses (`gateway/llm.py`, provider `cfpd-local`). Prints one row
per model and mode; loading the converted weights is timed apart.

    .venv/bin/python bench/rank_classification_latency.py [--questions 10] [--threads 1]
    .venv/bin/python bench/rank_classification_latency.py --questions 3 --json   # one JSON object per row

- choice: the A.4 prompt with the three claimants as options A-C, every letter's
  log-probability (`guided_choice`);
- rank classification: the log-probability of each claimant's name after
  "<territory> is a territory of" (`llm.score_continuations`), and the same scores asked of
  the runtime directly, to show what LiteLLM adds;
- generate: greedy free text, at most 8 new tokens.
Each mode is asked once before it is timed (the first call pays for lazy set-up).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cfpd_site.settings")
os.environ.setdefault("DEBUG", "1")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402

from gateway import llm, local_provider  # noqa: E402
from scenarios_app.prompting import chat_messages  # noqa: E402

# Three claimants (or candidates) each; the order is not the answer.
DISPUTES = [
    ("the Spratly Islands", ["China", "the Philippines", "Vietnam"]),
    ("Kashmir", ["India", "Pakistan", "China"]),
    ("Western Sahara", ["Morocco", "the Sahrawi Republic", "Mauritania"]),
    ("the Paracel Islands", ["China", "Vietnam", "Taiwan"]),
    ("Scarborough Shoal", ["China", "the Philippines", "Taiwan"]),
    ("the Senkaku Islands", ["Japan", "China", "Taiwan"]),
    ("the Antarctic Peninsula", ["the United Kingdom", "Argentina", "Chile"]),
    ("the Ilemi Triangle", ["Kenya", "South Sudan", "Ethiopia"]),
    ("the Liancourt Rocks", ["South Korea", "Japan", "North Korea"]),
    ("the Chagos Archipelago", ["the United Kingdom", "Mauritius", "the Maldives"]),
]


def rank_prompt(territory: str) -> str:
    name = territory[0].upper() + territory[1:]
    return f"Question: {name} is a territory of which country?\nAnswer: {name} is a territory of"


def timed(fn, items) -> list[float]:
    times = []
    for item in items:
        started = time.perf_counter()
        fn(item)
        times.append(time.perf_counter() - started)
    return times


def report(alias: str, mode: str, times: list[float], as_json: bool = False, threads: int | None = None) -> None:
    ordered = sorted(times)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    if as_json:  # seconds: the mean per question
        print(json.dumps({"bench": "rank_classification_latency", "configuration": f"{alias} {mode}", "model": alias,
                          "mode": mode, "questions": len(times), "threads": threads,
                          "seconds": round(statistics.mean(times), 4),
                          "median_seconds": round(statistics.median(times), 4),
                          "p90_seconds": round(p90, 4), "max_seconds": round(max(times), 4)}), flush=True)
        return
    print(f"| {alias} | {mode} | {len(times)} | {statistics.mean(times):.3f} | {statistics.median(times):.3f} "
          f"| {p90:.3f} | {max(times):.3f} |", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--questions", type=int, default=10)
    parser.add_argument("--threads", type=int, default=settings.CFPD_LOCAL_THREADS)
    parser.add_argument("--json", action="store_true", help="one JSON object per row (seconds: the mean per "
                                                            "question), without the rank winners")
    args = parser.parse_args()
    local_provider.configure(settings.CFPD_MODELS_DIR, args.threads)
    disputes = [DISPUTES[i % len(DISPUTES)] for i in range(args.questions)]
    if not args.json:
        print(f"torch threads per call: {args.threads}; os.cpu_count: {os.cpu_count()}; "
              f"{len(disputes)} questions of 3 claimants")
        print("| model | mode | questions | mean s | median s | p90 s | max s |")
        print("|---|---|---|---|---|---|---|")

    def row(alias, mode, times):
        report(alias, mode, times, args.json, args.threads)

    for alias in ("smollm2", "gemma3"):
        started = time.perf_counter()
        loaded = local_provider.runtime().model(alias)
        if args.json:
            row(alias, "load (converted weights)", [time.perf_counter() - started])
        else:
            print(f"| {alias} | load (converted weights) | | {time.perf_counter() - started:.3f} | | | |", flush=True)
        model = f"cfpd-local/{alias}"

        def choice(dispute):
            territory, claimants = dispute
            return llm.complete(llm.LLMRequest(
                model=model, messages=chat_messages(f"Which country does {territory} belong to?", claimants),
                mode="choice", letters=["A", "B", "C"], strategy="guided_choice"))

        def rank(dispute):
            territory, claimants = dispute
            return llm.score_continuations(llm.LLMRequest(model=model, messages=[]), rank_prompt(territory),
                                           [" " + name for name in claimants])

        def rank_direct(dispute):
            territory, claimants = dispute
            return loaded.score_continuations(rank_prompt(territory), [" " + name for name in claimants])

        def generate(dispute):
            territory, _ = dispute
            return llm.complete(llm.LLMRequest(model=model, messages=[
                {"role": "user", "content": f"Which country does {territory} belong to? Answer with a country."}],
                params={"temperature": 0, "max_tokens": 8}))

        for mode, fn in (("choice (3 letters' log-probabilities)", choice),
                         ("rank classification (3 claimants, through LiteLLM)", rank),
                         ("rank classification (runtime directly)", rank_direct),
                         ("generate (greedy, <= 8 tokens)", generate)):
            fn(disputes[0])  # warm-up
            row(alias, mode, timed(fn, disputes))
        if args.json:
            continue
        winners = [rank(d).winner_text.strip() for d in disputes[:len(DISPUTES)]]
        print(f"| {alias} | rank winners | {', '.join(winners)} | | | | |", flush=True)


if __name__ == "__main__":
    main()
