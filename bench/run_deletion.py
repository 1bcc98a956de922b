"""How long deleting a run takes at scale, on PostgreSQL, both ways side by side (issue 42):
`Run.delete()` (Django's collector, the tally triggers taking its answers away 100 at a
time) and `runs_app.services.delete_run` (statements over ranges of 100,000 ids), each in a
fresh process, with its peak memory and the load average beside it; one JSON line each.

    DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/cfpd_scale \\
        nice -n 10 .venv/bin/python bench/run_deletion.py RUN [--collector-seconds 240] [--way both]

The collector's deletion of a 2.66 M-answer run takes over an hour: it is watched for
--collector-seconds (pg_stat_activity: when its first `DELETE` of units came, and the ids
its statements reached), then stopped (its backend terminated: the transaction rolls back
and the run is whole again), and its time extrapolated from the rate of its deletes, as
docs/performance.md did before. `--collector-seconds 0` lets it finish. Then delete_run
deletes the whole run, for real (`--way collector` keeps it).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cfpd_site.settings")
os.environ.setdefault("DEBUG", "0")

UNIT_DELETE = re.compile(r'DELETE FROM "runs_app_response" WHERE "runs_app_response"."id" IN \((\d+)')


def peak_mib(pid: int) -> float | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    found = re.search(r"VmHWM:\s+(\d+) kB", status)
    return round(int(found.group(1)) / 1024) if found else None


def child(way: str, run_id: int):
    """One deletion in this process: its backend's pid first (for the watcher), then the
    seconds, the units and the peak memory as JSON."""
    import resource

    import django

    django.setup()
    from django.db import connection

    from runs_app import services
    from runs_app.models import Run

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        print(json.dumps({"backend": cursor.fetchone()[0]}), flush=True)
    run = Run.objects.get(pk=run_id)
    started = time.perf_counter()
    if way == "collector":
        run.delete()
        units = None
    else:
        def progress(done, total, phase):
            print(json.dumps({"progress": done, "total": total, "at": round(time.perf_counter() - started, 1),
                              "load": round(os.getloadavg()[0], 2)}), flush=True)

        units = services.delete_run(run, progress=progress).units
    print(json.dumps({"done": round(time.perf_counter() - started, 1), "units": units,
                      "peak_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}), flush=True)


def count_units(run_id: int) -> tuple[int, int]:
    import psycopg

    with psycopg.connect(os.environ["DATABASE_URL"]) as conn:
        return conn.execute("SELECT count(*), count(*) FILTER (WHERE status = 'done') FROM runs_app_response "
                            "WHERE run_id = %s", (run_id,)).fetchone()


def watch_collector(run_id: int, seconds: float, units: int) -> dict:
    """Run.delete() in a child, watched; stopped after `seconds` (0: to its end)."""
    import psycopg

    load = os.getloadavg()[0]
    proc = subprocess.Popen([sys.executable, __file__, str(run_id), "--child", "collector"], stdout=subprocess.PIPE,
                            text=True, cwd=ROOT)
    backend = json.loads(proc.stdout.readline())["backend"]
    started = time.perf_counter()
    first_delete, seen, peak, loads = None, [], None, [load]
    with psycopg.connect(os.environ["DATABASE_URL"], autocommit=True) as conn:
        while proc.poll() is None:
            row = conn.execute("SELECT query FROM pg_stat_activity WHERE pid = %s", (backend,)).fetchone()
            at = time.perf_counter() - started
            found = UNIT_DELETE.search(row[0]) if row else None
            if found:
                first_delete = first_delete if first_delete is not None else at
                seen.append((at, int(found.group(1))))
            peak = peak_mib(proc.pid) or peak
            loads.append(os.getloadavg()[0])
            if seconds and at > seconds:
                conn.execute("SELECT pg_terminate_backend(%s)", (backend,))
                break
            time.sleep(2)
    stopped = proc.poll() is None or proc.returncode != 0
    out = proc.communicate(timeout=120)[0] if not stopped else ""
    if proc.poll() is None:
        proc.kill()
    record = {"bench": "run_deletion", "way": "Run.delete() (Django's collector)", "run": run_id, "units": units,
              "load_before": round(load, 2), "load_max": round(max(loads), 2), "peak_mib": peak}
    if not stopped:
        record["seconds"] = json.loads(out.strip().splitlines()[-1])["done"]
        return record
    record["stopped_after_s"] = round(time.perf_counter() - started, 1)
    record["reading_ids_s"] = round(first_delete, 1) if first_delete is not None else None
    if len(seen) >= 2 and seen[-1][0] > seen[0][0]:
        per_second = abs(seen[-1][1] - seen[0][1]) / (seen[-1][0] - seen[0][0])
        record["units_per_min"] = round(per_second * 60)
        record["estimated_s"] = round(first_delete + units / per_second) if per_second else None
        record["ids_seen"] = [seen[0][1], seen[-1][1]]
    return record


def run_service(run_id: int, units: int) -> dict:
    load = os.getloadavg()[0]
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, __file__, str(run_id), "--child", "service"], stdout=subprocess.PIPE,
                            text=True, cwd=ROOT)
    lines = [json.loads(line) for line in proc.stdout]
    proc.wait()
    done = lines[-1]
    loads = [load] + [line["load"] for line in lines if "load" in line]
    return {"bench": "run_deletion", "way": "services.delete_run", "run": run_id, "units": units,
            "deleted": done["units"], "seconds": done["done"], "process_s": round(time.perf_counter() - started, 1),
            "statements": sum(1 for line in lines if "progress" in line), "peak_mib": done["peak_mib"],
            "load_before": round(load, 2), "load_max": round(max(loads), 2),
            "load_after": round(os.getloadavg()[0], 2)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=int)
    parser.add_argument("--way", choices=["both", "collector", "service"], default="both")
    parser.add_argument("--collector-seconds", type=float, default=240)
    parser.add_argument("--child", choices=["collector", "service"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args.child, args.run)
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        sys.exit("DATABASE_URL must point at PostgreSQL")
    units, answered = count_units(args.run)
    if args.way in ("both", "collector"):
        print(json.dumps(watch_collector(args.run, args.collector_seconds, units)), flush=True)
    if args.way in ("both", "service"):
        print(json.dumps(run_service(args.run, units)), flush=True)


if __name__ == "__main__":
    main()
