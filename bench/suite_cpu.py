"""Where a machine's CPU goes while something runs (issue 37: the suite is CPU-bound on two
cores, so its time is the CPU its processes spend): every second, the CPU time each process
used since the last look, summed by kind of process (pytest, Celery worker, PostgreSQL,
Chromium, `transformers serve`, gunicorn, Redis, other), from /proc.

    .venv/bin/python bench/suite_cpu.py --out var/suite-cpu.json -- scripts/test
    .venv/bin/python bench/suite_cpu.py --pid 1234          # until that process ends

Prints one JSON line per kind (seconds of CPU, share of the total) and writes the same with the
per-minute series to --out. Processes that start and end between two looks are counted by
their parent's children times (cutime/cstime) only when the parent is the one watched; a look
every second misses little of a suite whose processes live seconds or more."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")
KINDS = (  # first match on the command line wins
    ("celery worker", ("celery",)),
    ("postgresql", ("postgres:", "postgres ", "/postgres")),
    ("chromium", ("chromium", "chrome")),
    ("transformers serve", ("transformers serve", "bin/transformers")),
    ("gunicorn", ("gunicorn",)),
    ("redis", ("redis-server",)),
    ("pytest", ("pytest", "xdist", "exec(eval(sys.stdin.readline()))")),  # xdist's workers start through execnet
    ("manage.py / python", ("manage.py", "python")),
)


def kind_of(cmdline: str) -> str:
    for kind, marks in KINDS:
        if any(mark in cmdline for mark in marks):
            return kind
    return "other"


def snapshot() -> dict[int, tuple[str, int]]:
    """pid -> (kind, CPU ticks used so far)."""
    seen = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        seen[int(entry.name)] = (kind_of(cmdline), int(fields[11]) + int(fields[12]))
    return seen


def watch(alive, interval: float = 1.0) -> dict:
    totals: dict[str, float] = defaultdict(float)
    minutes: list[dict[str, float]] = []
    before = snapshot()
    started = time.monotonic()
    while alive():
        time.sleep(interval)
        now = snapshot()
        minute = int((time.monotonic() - started) // 60)
        while len(minutes) <= minute:
            minutes.append(defaultdict(float))
        for pid, (kind, ticks) in now.items():
            used = (ticks - before[pid][1]) if pid in before else ticks
            if pid not in before and time.monotonic() - started < interval * 2:
                used = 0  # processes running before the watch began
            if used > 0:
                totals[kind] += used / TICK
                minutes[minute][kind] += used / TICK
        before = now
    wall = time.monotonic() - started
    return {"wall_seconds": round(wall, 1), "cpu_seconds": {k: round(v, 1) for k, v in sorted(totals.items())},
            "per_minute": [{k: round(v, 1) for k, v in m.items()} for m in minutes]}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path)
    parser.add_argument("--pid", type=int)
    parser.add_argument("command", nargs="*")
    args = parser.parse_args(argv)
    if args.pid:
        result = watch(lambda: Path(f"/proc/{args.pid}").exists())
        status = 0
    elif args.command:
        process = subprocess.Popen(args.command)
        result = watch(lambda: process.poll() is None)
        status = process.returncode
    else:
        parser.error("a command to run (after --) or --pid")
    total = sum(result["cpu_seconds"].values()) or 1
    for kind, seconds in sorted(result["cpu_seconds"].items(), key=lambda kv: -kv[1]):
        print(json.dumps({"kind": kind, "cpu_seconds": seconds, "share": round(seconds / total, 3)}))
    print(json.dumps({"wall_seconds": result["wall_seconds"], "cpu_seconds": round(total, 1),
                      "cores_busy": round(total / result["wall_seconds"], 2)}))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1))
    return status


if __name__ == "__main__":
    sys.exit(main())
