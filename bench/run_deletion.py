"""How long deleting a run takes at scale, on PostgreSQL: `Run.delete()` as the admin does it
(Django's collector, the tally triggers taking its answers away), in a fresh process, with its
peak memory and the load average beside it.

    DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/cfpd_scale .venv/bin/python bench/run_deletion.py RUN_ID [--json]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cfpd_site.settings")
os.environ.setdefault("DEBUG", "0")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=int)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    import django

    django.setup()
    from runs_app.models import Response, Run

    run = Run.objects.get(pk=args.run)
    units = Response.objects.filter(run=run).count()
    answered = Response.objects.filter(run=run, status="done").count()
    load = os.getloadavg()[0]
    started = time.perf_counter()
    run.delete()
    seconds = time.perf_counter() - started
    record = {"bench": "run_deletion", "run": args.run, "units": units, "answered": answered,
              "seconds": round(seconds, 1), "peak_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
              "load_before": round(load, 2), "load_after": round(os.getloadavg()[0], 2)}
    print(json.dumps(record) if args.json else
          f"run {args.run}: {units:,} units ({answered:,} answered) deleted in {seconds:.1f} s, peak "
          f"{record['peak_mib']} MiB, load {record['load_before']} before, {record['load_after']} after")


if __name__ == "__main__":
    main()
