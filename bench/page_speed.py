"""How long each analysts' page takes on the demo's data, cold and warm, as a table.

    scripts/demo                                   # once: the demo's database (var/cfpd.sqlite3)
    .venv/bin/python bench/page_speed.py           # every page, 5 warm loads each
    .venv/bin/python bench/page_speed.py --database /tmp/demo-copy/var/cfpd.sqlite3 --rounds 10 --json

Reads a copy of the database (the demo's is never written: a throwaway analyst is added
to the copy). Each page is measured in a fresh Python process, through django.test.Client
signed in as an analyst, in-process cache (the embedded default):

* cold: the process's first load of the page (its modules imported on first use, the
  cache empty): what the first analyst after a restart waits;
* warm: the best and the median of --rounds further loads (the cache filled);
* rebuilt: the median of loads with `fresh=1` where the page takes it (the dashboard
  recomputed from the database, as after a code changed), else "—". The CFPD dashboard
  asks its worker instead and shows its previous build meanwhile: its "rebuilt" is that
  request and the page it redirects to; the bench builds its board as the worker would
  after the cold load (printed as the worker's seconds).

Figures the worker computes (the metric's validation: analysis_app.computed) are not in a
page's time: the page shows a placeholder until they are done. The bench then computes
them as the worker would, in a process of its own, and prints the worker's seconds. Exit status 1 when a warm median is over
--target seconds (1.0).

The models' pages (/models/, a profile, a comparison: --model and --versus name the two
models, the demo's by default) read one result the worker computes, every family's
headline figures of every model (kind "model-headlines"). The first page to ask for it
(/models/) shows the placeholder on its cold load; the bench computes it then, as the
worker would, so that the warm loads and the later pages show the figures, and prints the
worker's seconds with each family's share. Their "rebuilt" is `fresh=1` (the worker asked
again) and the page it redirects to, which shows the previous figures meanwhile."""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = [
    ("CFPD dashboard", "/analysis/cfpd/", True),
    ("Crisis inconsistency", "/analysis/crisis/", True),
    ("Territorial disputes", "/analysis/territories/", True),
    ("Metric validation", "/analysis/crisis/validation/", False),
]
# The models' profile pages (analysis_app.profile_views), of --model and --versus.
PROFILE_PAGES = [
    ("Models", "/models/", False),  # takes no fresh=1
    ("Model profile", "/models/{model}/", True),
    ("Model comparison", "/models/compare/?model={model}&model={versus}", True),
]
# What the worker builds once a page asked for it (analysis_app.computed's kinds): built by
# the bench after the page's cold load, so that its warm loads show it.
BUILT_AFTER_COLD = ("cfpd-dashboard", "model-headlines")
ANALYST = "bench-page-speed"


def _environment(database: Path) -> dict:
    env = dict(os.environ, SQLITE_PATH=str(database), DEBUG="1", CFPD_ENV_FILE="",
               DJANGO_SETTINGS_MODULE="cfpd_site.settings", CFPD_VAR_DIR=str(database.parent))
    for name in ("DATABASE_URL", "REDIS_URL"):  # the embedded default: SQLite, in-process cache
        env.pop(name, None)
    return env


def _setup_django():
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def child(path: str, rounds: int, fresh: bool) -> dict:
    """One page in this (fresh) process: the cold load, then `rounds` warm ones."""
    started = time.perf_counter()
    _setup_django()
    from django.contrib.auth import get_user_model
    from django.test import Client

    client = Client(HTTP_HOST="localhost")
    client.force_login(get_user_model().objects.get(username=ANALYST))
    setup = time.perf_counter() - started

    def load(query=""):
        begin = time.perf_counter()
        response = client.get(path + (query.replace("?", "&") if "?" in path else query))
        if response.status_code == 302:  # `fresh=1` asked the worker again: the page it goes back to
            response = client.get(response["Location"])
        seconds = time.perf_counter() - begin
        if response.status_code != 200:
            raise SystemExit(f"{path}{query}: HTTP {response.status_code}")
        return seconds, len(response.content)

    from django.utils import timezone

    asked_from = timezone.now()
    cold, size = load()
    # A board or figures the worker builds (the CFPD dashboard's, the models' headline
    # figures): built here, as the worker would, so that the warm loads show them; their
    # seconds are the worker's, not the page's.
    worker = _run_pending(BUILT_AFTER_COLD, asked_from)
    if worker:
        size = load()[1]
    warm = [load()[0] for _ in range(rounds)]
    rebuilt = [load("?fresh=1")[0] for _ in range(max(1, rounds // 2))] if fresh else []
    return {"path": path, "setup": setup, "cold": cold, "warm_best": min(warm),
            "warm_median": statistics.median(warm), "rebuilt": statistics.median(rebuilt) if rebuilt else None,
            "bytes": size, "worker": worker}


def _run_pending(kinds: tuple[str, ...], asked_from) -> float | None:
    """Compute the figures of `kinds` this page asked for, as the worker does; their seconds."""
    try:
        from analysis_app import computed
        from analysis_app.models import ComputedFigure
    except ImportError:  # a tree from before computed figures
        return None
    begin, any_ = time.perf_counter(), False
    for figure in ComputedFigure.objects.filter(kind__in=kinds, status="pending",
                                                 requested_at__gte=asked_from):
        computed.compute(figure.pk)
        any_ = True
    return time.perf_counter() - begin if any_ else None


def prepare(source: Path, folder: Path) -> Path:
    if not source.exists():
        raise SystemExit(f"no database at {source}: run scripts/demo first (or pass --database)")
    copy = folder / "pages.sqlite3"
    # The WAL too, so that a database the demo still has open is read whole.
    for suffix in ("", "-wal", "-shm"):
        if Path(str(source) + suffix).exists():
            shutil.copyfile(str(source) + suffix, str(copy) + suffix)
    script = ("import sys; sys.path.insert(0, %r); import django; django.setup();"
              "from accounts.services import create_user_with_role as c; c(%r, 'bench-pass-123', role='analysts')"
              % (str(ROOT), ANALYST))
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], env=_environment(copy),
                   check=True, cwd=ROOT)
    subprocess.run([sys.executable, "-c", script], env=_environment(copy), check=True, cwd=ROOT,
                   stdout=subprocess.DEVNULL)
    return copy


def worker_seconds(copy: Path) -> list[tuple[str, float, dict]]:
    """Each done computed figure: its kind (and preset), its seconds, and for the models'
    headline figures each family's seconds."""
    # A tree from before computed figures has no such model: nothing to print then.
    script = ("import sys, json; sys.path.insert(0, %r); import django; django.setup()\n"
              "try:\n    from analysis_app.models import ComputedFigure as F\n"
              "except ImportError:\n    print('[]'); sys.exit()\n"
              "print(json.dumps([(' '.join(filter(None, [f.kind, f.params.get('preset', '')])), f.seconds, "
              "  {k: v.get('seconds') for k, v in (f.result or {}).get('families', {}).items()}) for f in "
              "F.objects.filter(status='done')]))" % str(ROOT))
    out = subprocess.run([sys.executable, "-c", script], env=_environment(copy), check=True, cwd=ROOT,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database", type=Path, default=ROOT / "var" / "cfpd.sqlite3")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--target", type=float, default=1.0)
    parser.add_argument("--json", action="store_true", help="one JSON object per page, nothing else")
    parser.add_argument("--model", default="local-smollm2", help="the profile's model (and the compared one)")
    parser.add_argument("--versus", default="local-gemma3", help="the model compared with --model")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--fresh", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.rounds, args.fresh)))
        return 0
    with tempfile.TemporaryDirectory(prefix="cfpd-page-speed-") as folder:
        copy = prepare(args.database.resolve(), Path(folder))
        results = []
        profile_pages = [(title, path.format(model=args.model, versus=args.versus), fresh)
                         for title, path, fresh in PROFILE_PAGES]
        for title, path, fresh in PAGES + profile_pages:
            command = [sys.executable, __file__, "--child", path, "--rounds", str(args.rounds)]
            out = subprocess.run(command + (["--fresh"] if fresh else []), env=_environment(copy), cwd=ROOT,
                                 check=True, capture_output=True, text=True).stdout
            result = {"bench": "page_speed", "page": title, **json.loads(out.strip().splitlines()[-1])}
            results.append(result)
            if args.json:
                print(json.dumps(result))
        # What the worker would do meanwhile: compute the figures the pages asked for.
        script = ("import sys; sys.path.insert(0, %r); import django; django.setup()\n"
                  "try:\n    from analysis_app import computed\n"
                  "except ImportError:\n    sys.exit()\n"
                  "from analysis_app.models import ComputedFigure as F\n"
                  "for f in F.objects.filter(status='pending'):\n"
                  "    try:\n        computed.compute(f.pk)\n    except Exception as e:\n        print(e)" % str(ROOT))
        subprocess.run([sys.executable, "-c", script], env=_environment(copy), check=True, cwd=ROOT,
                       stdout=subprocess.DEVNULL)
        computed = worker_seconds(copy)
    if not args.json:
        width = max(30, *(len(r["path"]) for r in results))
        print(f"{'page':<22} {'path':<{width}} {'cold s':>7} {'warm best':>10} {'warm median':>12} {'rebuilt':>8}")
        for r in results:
            rebuilt = f"{r['rebuilt']:.3f}" if r["rebuilt"] is not None else "—"
            print(f"{r['page']:<22} {r['path']:<{width}} {r['cold']:>7.3f} {r['warm_best']:>10.3f} "
                  f"{r['warm_median']:>12.3f} {rebuilt:>8}")
        print(f"(warm: {args.rounds} loads; Django set-up per process, not counted: "
              f"{statistics.median(r['setup'] for r in results):.2f} s)")
        for r in results:
            if r.get("worker"):
                print(f"built by the worker after the first load of {r['path']}: {r['worker']:.1f} s")
        for name, seconds, families in computed:
            shares = ", ".join(f"{family} {part:.1f} s" for family, part in families.items() if part is not None)
            print(f"computed by the worker, not in any page's time: {name}: {seconds:.1f} s"
                  + (f" ({shares})" if shares else ""))
    slow = [r for r in results if r["warm_median"] > args.target]
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())
