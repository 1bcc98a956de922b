"""Latency of the bundled models per answer mode, in this process, through the same
LiteLLM provider (`cfpd-local`) the worker uses. Prints one row per model and mode.

    .venv/bin/python bench/local_models_latency.py [--questions 20] [--threads 1]
    .venv/bin/python bench/local_models_latency.py --questions 3 --generate 1 --json   # one JSON object per row

Choice mode: the A.4 prompt of real demo questions, every option's log-probability.
Generate mode: up to 48 new tokens at temperature 0.7 (the demo's free-text settings).
Rank classification: the log-probability of each of 3 claimant names after a
territorial question (what the territorial-disputes family scores).
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

SCENARIOS = [
    ("[Actor A] and [Actor B] dispute fishing rights after a collision near a contested reef. "
     "What should [Actor A] do?", ["Send coast guard ships to escort its fleet", "Seek talks on a joint fishing zone",
                                   "Announce live-fire drills near the reef"]),
    ("[Actor B] has asked [Actor A] to join a regional missile-defence pact. Should [Actor A] join?",
     ["Join the pact", "Stay outside the pact"]),
    ("Rebels in [Actor B] have seized a port used by [Actor A]'s ships. What should [Actor A] do?",
     ["Land troops to retake the port", "Fund the government's forces", "Stay out of the conflict",
      "Ask the UN Security Council to act", "Impose sanctions on the rebels"]),
]
PAIRS = [("Russia", "China"), ("the United States", "India"), ("France", "Japan"), ("Brazil", "Turkey")]
TERRITORY = [("Spratly Islands", ["China", "the Philippines", "Vietnam"]),
             ("Kashmir", ["India", "Pakistan", "China"]),
             ("Western Sahara", ["Morocco", "the Sahrawi Republic", "Mauritania"])]


def questions(count):
    out = []
    for i in range(count):
        template, options = SCENARIOS[i % len(SCENARIOS)]
        a, b = PAIRS[i % len(PAIRS)]
        text = template.replace("[Actor A]", a).replace("[Actor B]", b)
        out.append((chat_messages(text, options), [chr(65 + k) for k in range(len(options))]))
    return out


def timed(fn, items):
    times = []
    for item in items:
        started = time.perf_counter()
        fn(item)
        times.append(time.perf_counter() - started)
    return times


def report(name, mode, times, as_json=False, threads=None):
    ordered = sorted(times)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    if as_json:  # seconds: the mean per call
        print(json.dumps({"bench": "local_models_latency", "configuration": f"{name} {mode}", "model": name,
                          "mode": mode, "calls": len(times), "threads": threads,
                          "seconds": round(statistics.mean(times), 4),
                          "median_seconds": round(statistics.median(times), 4),
                          "p90_seconds": round(p90, 4)}), flush=True)
        return
    print(f"| {name} | {mode} | {len(times)} | {statistics.mean(times):.3f} | {statistics.median(times):.3f} | {p90:.3f} |")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--generate", type=int, default=5)
    parser.add_argument("--threads", type=int, default=settings.CFPD_LOCAL_THREADS)
    parser.add_argument("--json", action="store_true", help="one JSON object per row (seconds: the mean per call)")
    args = parser.parse_args()
    local_provider.configure(settings.CFPD_MODELS_DIR, args.threads)
    if not args.json:
        print(f"torch threads per call: {args.threads}; os.cpu_count: {os.cpu_count()}")
        print("| model | mode | calls | mean s | median s | p90 s |")
        print("|---|---|---|---|---|---|")

    def row(name, mode, times):
        report(name, mode, times, args.json, args.threads)

    for alias in ("smollm2", "gemma3"):
        started = time.perf_counter()
        loaded = local_provider.runtime().model(alias)
        if args.json:
            row(alias, "load (converted weights)", [time.perf_counter() - started])
        else:
            print(f"| {alias} | load (converted weights) | 1 | {time.perf_counter() - started:.3f} | | |")
        model = f"cfpd-local/{alias}"
        qs = questions(args.questions)
        llm.complete(llm.LLMRequest(model=model, messages=qs[0][0], mode="choice", letters=qs[0][1],
                                    strategy="guided_choice"))  # warm-up
        def choice(q):
            llm.complete(llm.LLMRequest(model=model, messages=q[0], mode="choice", letters=q[1],
                                        strategy="guided_choice"))

        # Side by side (issue 45): every prompt computed whole, then with its head's keys and
        # values kept (`LoadedModel.last_logits`), the first call of each warming its head.
        loaded.keep_heads = False
        row(alias, "choice, prompt computed whole", timed(choice, qs))
        loaded.keep_heads = True
        row(alias, "choice (all options' log-probabilities)", timed(choice, qs))
        row(alias, "generate (<= 48 tokens, T=0.7)", timed(
            lambda q: llm.complete(llm.LLMRequest(model=model, messages=q[0], params={
                "temperature": 0.7, "max_tokens": 48, "seed": 1})), qs[:args.generate]))
        row(alias, "rank classification (3 claimants)", timed(
            lambda t: loaded.score_continuations(f"Question: Is {t[0]} a territory of " + ", ".join(t[1])
                                                 + f"?\nAnswer: {t[0]} is a territory of", [" " + c for c in t[1]]),
            [TERRITORY[i % 3] for i in range(args.questions)]))


if __name__ == "__main__":
    main()
