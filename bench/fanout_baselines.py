"""What other engines reach against the same fake server: the baselines of the run
engine's throughput (bench/run_throughput.py, issue 15).

The fake OpenAI-compatible server (tests/fakes/fake_openai.py) answers every request
after a fixed latency (0.2 s by default), so C requests in flight give at best C / latency
answers per second: the ideal. Each system asks N choice questions (the product's A.4
prompt, "Synthetic question i. What should be done?" with options Wait / Act) with at most
C in flight:

* ``litellm``: LiteLLM alone, `litellm.acompletion` under an `asyncio.Semaphore`, with
  the request the run engine sends (`gateway.llm.LLMRequest.call_kwargs` in choice mode:
  one token, temperature 0, `logprobs` and `top_logprobs` 20) and the chosen letter read
  from the log-probabilities. P processes (default 1 and 2; the product runs 2 worker
  processes) each ask their share of the questions with their share of C, after a few
  warm-up calls; the clock starts when all are ready. This is the machine's ceiling for
  any engine built on LiteLLM.
* ``inspect``: Inspect AI (pinned below) in its own virtual environment,
  var/bench-inspect-venv, created here with `python3 -m venv` and pip on first use
  (1-2 minutes; `--no-install` skips Inspect instead). One `eval()` of a task of N
  samples (`generate()`, `match()`), model `openai-api/fake/fake` (Inspect's
  OpenAI-compatible provider: chat completions, FAKE_API_KEY, the server's URL as
  `model_base_url`), `max_connections` C, the same messages and generate settings
  (bench/inspect_fanout_task.py, run by that environment's Python). Its figure is the
  wall time of the `eval()` call (Python start and imports excluded); Inspect's own
  stats (started_at to completed_at, whole seconds) and the span of its samples are
  printed beside it. Skipped with one line saying why when it cannot be installed or run.

For each configuration: throughput (answers/s), the ratio of the ideal, CPU ms per answer
(the client processes; the fake server's beside it), peak RSS per process, the most
requests the server saw in flight, and failures.

    .venv/bin/python bench/fanout_baselines.py    # litellm (1, 2 processes), inspect x C 32, 128 x N 2,000, 20,000
    .venv/bin/python bench/fanout_baselines.py --systems litellm --processes 2 --concurrency 128 --questions 2000
    .venv/bin/python bench/fanout_baselines.py --json          # one JSON object per configuration per line

With `--json` stdout carries only the JSON lines (keys: bench "fanout", system, processes,
concurrency, questions, seconds, throughput, ideal, ratio, cpu_ms_per_answer, rss_mib,
...); the human lines and messages go to stderr. Importable: `measure_litellm`,
`measure_inspect`, `start_fake`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import queue
import resource
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

INSPECT_VERSION = "0.3.285"  # what `pip install inspect-ai` gave on 2026-11-23; pinned so figures compare
OPENAI_VERSION = "3.54.0"  # the openai package installed with it
INSPECT_VENV = ROOT / "var" / "bench-inspect-venv"
INSPECT_TASK = ROOT / "bench" / "inspect_fanout_task.py"
WORK_DIR = ROOT / "var" / "bench" / "fanout"
OPTIONS = ["Wait", "Act"]
WARM_UP_CALLS = 4  # per process: imports, the client's connection pool, LiteLLM's first-call set-up


# -- the fake server -----------------------------------------------------------------------

def start_fake(latency: float) -> tuple[subprocess.Popen, str]:
    """The fake server in its own process (as the workers see it): (process, base URL)."""
    from tests.fakes.fake_openai import spawn

    return spawn(latency, ROOT)


def _server(base_url: str, path: str, method: str = "GET") -> dict:
    root = base_url.removesuffix("/v1")
    request = urllib.request.Request(root + path, method=method, data=b"{}" if method == "POST" else None)
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)


class InFlightSampler:
    """The fake server's requests in flight and, given `slots` (a function reading them), the
    slots the system holds, sampled every `every` s over a measurement by a thread: their
    means over the samples from the first to the last with a request in flight (the
    system's ramp and tail included, the idle before and after not). Where the two differ,
    calls held a slot outside the server's wait: in the client's own work or its queue for
    the CPU, or a slot idle between two calls."""

    def __init__(self, base_url: str, slots=None, every: float = 0.05):
        self.base_url, self.slots, self.every = base_url, slots, every
        self.samples: list[tuple[int, int | None]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self):
        while not self._stop.wait(self.every):
            try:
                self.samples.append((_server(self.base_url, "/stats")["in_flight"],
                                     self.slots() if self.slots else None))
            except Exception:  # noqa: BLE001 — a missed sample, not a failed measurement
                continue

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(timeout=5)
        return False

    def means(self) -> dict:
        busy = [i for i, (server, _) in enumerate(self.samples) if server]
        if not busy:
            return {}
        window = self.samples[busy[0]:busy[-1] + 1]
        means = {"server_in_flight_mean": round(sum(server for server, _ in window) / len(window), 1)}
        if self.slots:
            means["slots_held_mean"] = round(sum(held for _, held in window) / len(window), 1)
        return means


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_busy_seconds() -> float:
    """CPU seconds this whole machine has spent busy since boot, every core (`/proc/stat`:
    all but idle and iowait): over a measurement, what the system under test cost with
    everything it needs (its workers, PostgreSQL, Redis, the fake server, the bench's own
    polling), where the per-process figures name parts of it."""
    fields = [int(value) for value in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    return (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


class ServerWatch:
    """The fake server's counters and CPU over one measurement."""

    def __init__(self, process: subprocess.Popen, base_url: str):
        self.process, self.base_url = process, base_url

    def __enter__(self):
        _server(self.base_url, "/stats/reset", "POST")
        self.cpu = _cpu_seconds(self.process.pid)
        return self

    def __exit__(self, *exc):
        self.cpu = _cpu_seconds(self.process.pid) - self.cpu
        self.stats = _server(self.base_url, "/stats")
        return False


# -- the questions -------------------------------------------------------------------------

def prompts(count: int) -> list[list[dict]]:
    """The chat messages of N synthetic choice questions, as the product renders them."""
    from scenarios_app.prompting import chat_messages

    return [chat_messages(f"Synthetic question {i}. What should be done?", OPTIONS) for i in range(count)]


def choice_kwargs(messages: list[dict], base_url: str) -> dict:
    """LiteLLM's arguments for one choice question: the run engine's own request shape."""
    from gateway import llm

    return llm.LLMRequest(model="openai/fake", messages=messages, api_base=base_url, timeout=30, mode="choice",
                          letters=["A", "B"], strategy="logprobs", top_logprobs=20).call_kwargs()


def read_letter(response) -> str | None:
    """The chosen letter from the first token's top log-probabilities, as the engine reads it."""
    from gateway.choice import chosen_letter, option_logprobs

    choice = response.choices[0]
    content = getattr(getattr(choice, "logprobs", None), "content", None) or []
    top = getattr(content[0], "top_logprobs", None) or [] if content else []
    return chosen_letter(option_logprobs([(item.token, item.logprob) for item in top], ["A", "B"]))


# -- LiteLLM alone -------------------------------------------------------------------------

async def _ask_all(litellm, requests: list[dict], concurrency: int) -> int:
    """Ask every request with at most `concurrency` in flight; the number that failed."""
    semaphore = asyncio.Semaphore(concurrency)
    failed = 0

    async def ask(kwargs):
        nonlocal failed
        async with semaphore:
            try:
                if read_letter(await litellm.acompletion(**kwargs)) is None:
                    failed += 1
            except Exception:  # counted, not raised: one failure must not end the measurement
                failed += 1

    await asyncio.gather(*(ask(kwargs) for kwargs in requests))
    return failed


def _litellm_process(base_url: str, indexes: range, concurrency: int, barrier, results) -> None:
    """One process's share: warm up, wait for the others, ask, report."""
    from gateway import llm

    litellm = llm.litellm  # configured as the engine configures it (drop_params, no debug info)
    questions = prompts(indexes.stop)[indexes.start:]
    requests = [choice_kwargs(messages, base_url) for messages in questions]

    async def run():
        await _ask_all(litellm, [choice_kwargs(questions[0], base_url)] * WARM_UP_CALLS, WARM_UP_CALLS)
        wait = asyncio.get_running_loop().run_in_executor
        await wait(None, barrier.wait)  # warmed up
        await wait(None, barrier.wait)  # go: the server's counters are reset
        cpu = time.process_time()
        failed = await _ask_all(litellm, requests, concurrency)
        return failed, time.monotonic(), time.process_time() - cpu

    failed, ended, cpu = asyncio.run(run())
    results.put({"failed": failed, "ended": ended, "cpu_s": cpu,
                 "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024})


def _shares(total: int, parts: int) -> list[int]:
    return [total // parts + (1 if k < total % parts else 0) for k in range(parts)]


def measure_litellm(base_url: str, count: int, concurrency: int, latency: float, processes: int = 1,
                    server: ServerWatch | None = None) -> dict:
    """LiteLLM alone: `processes` processes, each with its share of N and of C."""
    context = multiprocessing.get_context("spawn")  # a clean interpreter, like a worker process
    barrier, results = context.Barrier(processes + 1), context.Queue()
    workers, start = [], 0
    for share, limit in zip(_shares(count, processes), _shares(concurrency, processes)):
        workers.append(context.Process(target=_litellm_process,
                                       args=(base_url, range(start, start + share), max(1, limit), barrier, results)))
        start += share
    for worker in workers:
        worker.start()
    try:
        barrier.wait(timeout=300)
        if server:
            server.__enter__()
        busy = machine_busy_seconds()
        started = time.monotonic()
        barrier.wait(timeout=60)
        reports = []
        with InFlightSampler(base_url) as sampler:
            while len(reports) < len(workers):
                try:
                    reports.append(results.get(timeout=5))
                except queue.Empty:
                    crashed = [worker.exitcode for worker in workers if worker.exitcode not in (None, 0)]
                    if crashed:
                        raise RuntimeError(f"a LiteLLM process ended with exit code {crashed[0]}") from None
        busy = machine_busy_seconds() - busy
        if server:
            server.__exit__(None, None, None)
    finally:
        for worker in workers:
            worker.join(timeout=30)
            if worker.is_alive():
                worker.kill()
    seconds = max(report["ended"] for report in reports) - started
    return _row("litellm", processes, concurrency, count, latency, seconds,
                cpu_s=sum(report["cpu_s"] for report in reports), rss_mib=max(report["rss_mib"] for report in reports),
                failed=sum(report["failed"] for report in reports), server=server,
                machine_cpu_ms=round(1000 * busy / count, 2), **sampler.means())


# -- Inspect AI ----------------------------------------------------------------------------

class Skipped(Exception):
    """A baseline that cannot be measured here; the message says why."""


def inspect_python(install: bool = True) -> Path:
    """The Python of Inspect's virtual environment, created and filled on first use."""
    python = INSPECT_VENV / "bin" / "python"
    wanted = f"inspect_ai=={INSPECT_VERSION}"
    check = [str(python), "-c", "import importlib.metadata as m; print('inspect_ai==' + m.version('inspect_ai'))"]
    if python.exists():
        found = subprocess.run(check, capture_output=True, text=True).stdout.strip()
        if found == wanted:
            return python
    if not install:
        raise Skipped(f"Inspect AI {INSPECT_VERSION} is not installed in {INSPECT_VENV} (run without --no-install)")
    log = WORK_DIR / "inspect-install.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    print(f"installing Inspect AI {INSPECT_VERSION} into {INSPECT_VENV.relative_to(ROOT)} "
          f"(once; 1-2 minutes; log: {log.relative_to(ROOT)})", file=sys.stderr, flush=True)
    with open(log, "w") as output:
        done = subprocess.run(["python3", "-m", "venv", str(INSPECT_VENV)], stdout=output, stderr=output)
        if done.returncode == 0:
            done = subprocess.run([str(python), "-m", "pip", "install", "--disable-pip-version-check",
                                   f"inspect-ai=={INSPECT_VERSION}", f"openai=={OPENAI_VERSION}"],
                                  stdout=output, stderr=output)
    if done.returncode != 0:
        raise Skipped(f"Inspect AI {INSPECT_VERSION} could not be installed (see {log.relative_to(ROOT)})")
    return python


def measure_inspect(base_url: str, count: int, concurrency: int, latency: float, python: Path,
                    server: ServerWatch | None = None) -> dict:
    """Inspect AI: one `eval()` of N samples with `max_connections` C, in its own process."""
    WORK_DIR.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=WORK_DIR, prefix="inspect-") as scratch:
        prompts_file = Path(scratch) / "prompts.json"
        prompts_file.write_text(json.dumps(prompts(count)))
        env = dict(os.environ, FAKE_API_KEY="bench-no-key", INSPECT_TELEMETRY="", PYTHONPATH="")
        started = time.monotonic()
        if server:
            server.__enter__()
        done = subprocess.run([str(python), str(INSPECT_TASK), str(prompts_file), base_url, str(concurrency),
                               str(Path(scratch) / "logs")], capture_output=True, text=True, env=env, timeout=3600)
        if server:
            server.__exit__(None, None, None)
        total = time.monotonic() - started
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        reason = (done.stderr.strip().splitlines() or ["no output"])[-1][:200]
        raise Skipped(f"Inspect AI did not run (exit {done.returncode}): {reason}")
    report = json.loads(lines[-1])
    if report["status"] != "success":
        raise Skipped(f"Inspect AI's eval ended {report['status']}: {report['error']}")
    return _row("inspect", 1, concurrency, count, latency, report["eval_call_s"], cpu_s=report["cpu_s"],
                rss_mib=report["rss_mib"], failed=report["failed"], server=server, version=INSPECT_VERSION,
                inspect_stats_s=report["inspect_s"], samples_s=report["samples_s"], total_s=round(total, 2))


# -- report --------------------------------------------------------------------------------

def _row(system, processes, concurrency, count, latency, seconds, cpu_s, rss_mib, failed, server=None, **extra):
    throughput = count / seconds
    ideal = concurrency / latency
    row = {"bench": "fanout", "system": system, "processes": processes, "concurrency": concurrency,
           "questions": count, "seconds": round(seconds, 3), "throughput": round(throughput, 1),
           "ideal": round(ideal, 1), "ratio": round(throughput / ideal, 3), "unit": "of ideal (C / latency)",
           "cpu_ms_per_answer": round(1000 * cpu_s / count, 2), "rss_mib": round(rss_mib, 1), "failed": failed}
    if server is not None:
        row.update(server_cpu_ms_per_answer=round(1000 * server.cpu / count, 2),
                   max_in_flight=server.stats["max_in_flight"])
    row.update(extra)
    return row


def human(row: dict) -> str:
    if row["system"] == "litellm":
        label = f"litellm x{row['processes']}"
    else:
        label = f"inspect {row.get('version', '')}"
    line = (f"{label:<16} N={row['questions']:>6} C={row['concurrency']:>4}  {row['throughput']:7.1f}/s of ideal "
            f"{row['ideal']:6.1f}/s  ratio {row['ratio']:.2f}  {row['seconds']:.1f}s  CPU/answer "
            f"{row['cpu_ms_per_answer']:.1f} ms (server {row.get('server_cpu_ms_per_answer', float('nan')):.1f})  "
            f"RSS {row['rss_mib']:.0f} MiB  in flight {row.get('max_in_flight', '?')}  failed {row['failed']}")
    if row["system"] == "inspect":
        line += (f"  (Inspect's stats {row['inspect_stats_s']:.0f}s, samples {row['samples_s'] or 0:.1f}s, "
                 f"with Python start {row['total_s']:.1f}s)")
    return line


def _list(text: str, convert=str) -> list:
    return [convert(item.strip()) for item in text.split(",") if item.strip()]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--systems", type=_list, default=["litellm", "inspect"], help="litellm,inspect (default both)")
    parser.add_argument("--processes", type=lambda t: _list(t, int), default=[1, 2],
                        help="LiteLLM's process counts (default 1,2)")
    parser.add_argument("--concurrency", type=int, action="append", help="default 32 and 128")
    parser.add_argument("--questions", type=int, action="append", help="default 2,000 and 20,000")
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--no-install", action="store_true", help="skip Inspect AI unless its environment exists")
    parser.add_argument("--json", action="store_true", help="one JSON object per configuration per line on stdout")
    args = parser.parse_args()
    unknown = set(args.systems) - {"litellm", "inspect"}
    if unknown:
        parser.error(f"unknown systems {sorted(unknown)}; choose from litellm, inspect")
    def say(text):  # with --json, stdout carries the JSON lines alone
        print(text, file=sys.stderr if args.json else sys.stdout, flush=True)

    python = None
    if "inspect" in args.systems:
        try:
            python = inspect_python(install=not args.no_install)
            say(f"Inspect AI {INSPECT_VERSION} ({python.parent.parent.relative_to(ROOT)}), "
                f"model openai-api/fake/fake, max_connections = C")
        except Skipped as exc:
            say(f"inspect skipped: {exc}")
            if args.json:
                print(json.dumps({"bench": "fanout", "system": "inspect", "skipped": str(exc)}), flush=True)
    fake, base_url = start_fake(args.latency)
    try:
        say(f"LiteLLM {version('litellm')}; fake server latency {args.latency}s; ideal = C / latency")
        for count in args.questions or [2000, 20000]:
            for concurrency in args.concurrency or [32, 128]:
                runs = []
                if "litellm" in args.systems:
                    runs += [lambda p=p: measure_litellm(base_url, count, concurrency, args.latency, p,
                                                         ServerWatch(fake, base_url)) for p in args.processes]
                if python is not None:
                    runs.append(lambda: measure_inspect(base_url, count, concurrency, args.latency, python,
                                                        ServerWatch(fake, base_url)))
                for run in runs:
                    try:
                        row = run()
                    except Skipped as exc:
                        say(f"inspect skipped: {exc}")
                        if args.json:
                            print(json.dumps({"bench": "fanout", "system": "inspect", "concurrency": concurrency,
                                              "questions": count, "skipped": str(exc)}), flush=True)
                        continue
                    say(human(row))
                    if args.json:
                        print(json.dumps(row), flush=True)
    finally:
        fake.terminate()
        fake.wait()


if __name__ == "__main__":
    main()
