"""Inspect AI's side of bench/fanout_baselines.py: run in Inspect's own virtual
environment (var/bench-inspect-venv), never in .venv; fanout_baselines.py starts it.

Reads a JSON file of prompts (one list of chat messages each, what the product sends),
evaluates them as one task (`generate()` with one token, temperature 0, log-probabilities
of the top 20 tokens; `match()` scores the letter) through Inspect's OpenAI-compatible
provider (`openai-api/fake/fake`: chat completions to the fake server, key from
FAKE_API_KEY) with `max_connections` C, and prints one JSON line: Inspect's own
`stats.started_at` / `completed_at`, the wall time of the `eval()` call, the samples that
failed, the span from the first sample's start to the last one's end, this process's
CPU seconds during the call and its peak RSS. Inspect's defaults otherwise (samples
logged, as the product records every answer); no console display.

    python bench/inspect_fanout_task.py PROMPTS.json BASE_URL CONCURRENCY LOG_DIR
"""

import json
import resource
import sys
import time
from datetime import datetime


def main():
    prompts_path, base_url, concurrency, log_dir = sys.argv[1:5]
    concurrency = int(concurrency)
    from inspect_ai import Task, eval
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.model import ChatMessageSystem, ChatMessageUser, GenerateConfig
    from inspect_ai.scorer import match
    from inspect_ai.solver import generate

    kinds = {"system": ChatMessageSystem, "user": ChatMessageUser}
    with open(prompts_path, encoding="utf-8") as handle:
        prompts = json.load(handle)
    samples = [Sample(id=i, input=[kinds[m["role"]](content=m["content"]) for m in messages], target="A")
               for i, messages in enumerate(prompts)]
    task = Task(dataset=MemoryDataset(samples), solver=generate(), scorer=match(location="begin"),
                config=GenerateConfig(max_tokens=1, temperature=0, logprobs=True, top_logprobs=20))
    cpu_before = time.process_time()
    started = time.perf_counter()
    [log] = eval(task, model="openai-api/fake/fake", model_base_url=base_url, max_connections=concurrency,
                 display="none", log_level="warning", log_dir=log_dir, fail_on_error=False)
    call_s = time.perf_counter() - started
    cpu_s = time.process_time() - cpu_before
    stats = log.stats
    inspect_s = (datetime.fromisoformat(stats.completed_at) - datetime.fromisoformat(stats.started_at)).total_seconds()
    samples_logged = log.samples or []
    failed = sum(1 for sample in samples_logged if sample.error)
    window = None
    if samples_logged:  # the first sample's start to the last one's end: Inspect's own clock, in microseconds
        window = (max(datetime.fromisoformat(s.completed_at) for s in samples_logged)
                  - min(datetime.fromisoformat(s.started_at) for s in samples_logged)).total_seconds()
    print(json.dumps({
        "status": log.status, "samples": len(samples), "failed": failed, "inspect_s": inspect_s,
        "samples_s": window, "eval_call_s": call_s, "cpu_s": cpu_s,
        "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "error": str(log.error.message)[:300] if log.error else None,
    }), flush=True)


if __name__ == "__main__":
    main()
