"""Speed of `import_free_runs`: the free-form crisis release (or some of its models)
imported into a fresh, migrated database, timed inside one process (Django's start and
the migrations are not counted).

    .venv/bin/python bench/import_free_release.py /tmp/wargaming/logging/outputs/v4 --model gpt4o
    .venv/bin/python bench/import_free_release.py DIR --postgres --json     # BENCH_DATABASE_URL

Prints the seconds spent reading the trees alone (`free_release.read_release`), the
seconds of the import (reading included) and runs/s, then the seconds of importing the
same tree again (every run already imported: nothing written). ``--model NAME``
(repeatable) copies those models' folders of the outputs tree, and of the chats tree
beside it, into a temporary release first.

Database: SQLite in a temporary directory (default), or with --postgres the database
BENCH_DATABASE_URL names (default postgres://postgres:postgres@127.0.0.1:5432/cfpd_ffs_bench),
dropped, created and migrated at each invocation. Queue: the embedded file broker in the
temporary directory (the scoring tasks the import queues are written there and
discarded), or Redis if BENCH_REDIS_URL is set. DEBUG is off (no query log).
"""

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
POSTGRES_URL = os.environ.get("BENCH_DATABASE_URL",
                              "postgres://postgres:postgres@127.0.0.1:5432/cfpd_ffs_bench")


def subset(release: Path, models: list[str], into: Path) -> Path:
    """A copy of the release holding only ``models`` (outputs and chats trees)."""
    outputs = into / "logging" / "outputs" / release.name
    chats = release.parent.parent / "chats" / release.name
    for model in models:
        if not (release / model).is_dir():
            raise SystemExit(f"--model {model}: no folder {release / model}")
        shutil.copytree(release / model, outputs / model)
        if (chats / model).is_dir():
            shutil.copytree(chats / model, into / "logging" / "chats" / release.name / model)
    return outputs


def recreate_postgres(url: str):
    import scale_db

    scale_db.recreate_database(url)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("release", help="the release's logging/outputs/v4 (or a tree in its layout)")
    parser.add_argument("--model", action="append", default=[], help="import only this model's folder (repeatable)")
    parser.add_argument("--postgres", action="store_true", help="into BENCH_DATABASE_URL instead of SQLite")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()

    scratch = Path(tempfile.mkdtemp(prefix="bench-free-release-"))
    try:
        release = Path(args.release).resolve()
        directory = subset(release, args.model, scratch / "release") if args.model else release
        env = {"DJANGO_SETTINGS_MODULE": "cfpd_site.settings", "DEBUG": "0", "CFPD_ENV_FILE": "",
               "SECRET_KEY": os.environ.get("SECRET_KEY", "bench-only-secret-key"), "SECURE_SSL_REDIRECT": "0",
               "CFPD_VAR_DIR": str(scratch / "var"), "REDIS_URL": os.environ.get("BENCH_REDIS_URL", "")}
        if args.postgres:
            recreate_postgres(POSTGRES_URL)
            env["DATABASE_URL"] = POSTGRES_URL
        else:
            env.update(DATABASE_URL="", SQLITE_PATH=str(scratch / "bench.sqlite3"))
        os.environ.update(env)
        (scratch / "var").mkdir()

        import django

        django.setup()
        from django.core.management import call_command
        from django.db import connection

        from crisis_app import free_release, importing

        call_command("migrate", verbosity=0)
        started = time.perf_counter()
        free_release.read_release(directory, free_release.default_chats_directory(directory))
        reading = time.perf_counter() - started
        started = time.perf_counter()
        report = importing.import_free_runs(directory)
        seconds = time.perf_counter() - started
        started = time.perf_counter()
        again = importing.import_free_runs(directory)
        again_seconds = time.perf_counter() - started
        if report.flaws or again.runs:
            raise SystemExit(f"unexpected: {len(report.flaws)} flaw(s), {len(again.runs)} run(s) imported again")
        result = {"release": str(args.release), "models": args.model or "all", "database": connection.vendor,
                  "runs": len(report.runs), "responses": report.responses, "scores": report.scores,
                  "read_seconds": round(reading, 2), "import_seconds": round(seconds, 2),
                  "runs_per_second": round(len(report.runs) / seconds, 2),
                  "seconds_per_run": round(seconds / max(len(report.runs), 1), 4),
                  "again_seconds": round(again_seconds, 2), "already_imported": len(again.already_imported)}
        connection.close()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{result['database']}, {result['models']}: {result['runs']} runs, {result['responses']} responses, "
              f"{result['scores']} scores in {result['import_seconds']:.1f} s ({result['runs_per_second']:.2f} runs/s, "
              f"{result['seconds_per_run']:.3f} s/run; reading the trees {result['read_seconds']:.1f} s); "
              f"again (all {result['already_imported']} already imported): {result['again_seconds']:.1f} s")


if __name__ == "__main__":
    main()
