"""Large files through the importers (issue 32): time and peak memory of each import, run
as its own `manage.py` process under /usr/bin/time -v (else getrusage of the child).

    .venv/bin/python bench/import_large.py responses --rows 1000000
    .venv/bin/python bench/import_large.py scenarios --rows 100000 [--dry-run] [--bad-every 10]
    .venv/bin/python bench/import_large.py bomb                      # 3.1 MB npz expanding to 3.2 GB
    .venv/bin/python bench/import_large.py borderlines               # a 121-character Religion
    .venv/bin/python bench/import_large.py responses --rows 1000000 --output-bytes 200   # a ~200 MB CSV

Each invocation makes a fresh SQLite database in a temporary directory (or, with
--postgres, the database BENCH_DATABASE_URL names, default
postgres://postgres:postgres@127.0.0.1:5432/cfpd_files_bench, dropped and created),
migrates it, adds what the file refers to (for `responses`: a benchmark of rows/10
questions, each answered by 2 models × 5 repeats), writes the file in a stream and runs
the import command. Printed: the file's size, the import's wall seconds, its peak RSS
(MB), its exit status and the last lines of its output. Setting up (migrations, the
questions, the file) is not counted.
"""

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
POSTGRES_URL = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres:postgres@127.0.0.1:5432/cfpd_files_bench")


def recreate_postgres(url: str):
    import scale_db

    scale_db.recreate_database(url)


def setup_django(scratch: Path, postgres: bool) -> dict:
    env = {"DJANGO_SETTINGS_MODULE": "cfpd_site.settings", "DEBUG": "0", "CFPD_ENV_FILE": "",
           "SECRET_KEY": os.environ.get("SECRET_KEY", "bench-only-secret-key"), "SECURE_SSL_REDIRECT": "0",
           "CFPD_VAR_DIR": str(scratch / "var"), "REDIS_URL": os.environ.get("BENCH_REDIS_URL", ""),
           "OPENBLAS_NUM_THREADS": "1"}
    if postgres:
        recreate_postgres(POSTGRES_URL)
        env["DATABASE_URL"] = POSTGRES_URL
    else:
        env.update(DATABASE_URL="", SQLITE_PATH=str(scratch / "bench.sqlite3"))
    os.environ.update(env)
    (scratch / "var").mkdir(exist_ok=True)
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    return env


def make_questions(count: int) -> list[str]:
    from benchmarks_app.models import Benchmark, Question

    benchmark = Benchmark.objects.create(name="big", title="big")
    options = [{"text": "Open negotiations with the other side", "category": "a"},
               {"text": "Launch a limited strike on its bases", "category": "b"}]
    keys = [f"big/q{n}" for n in range(count)]
    for start in range(0, count, 5000):
        Question.objects.bulk_create([
            Question(benchmark=benchmark, key=key, text="What should A do?", options=options, option_order=[0, 1],
                     choice_count=2) for key in keys[start:start + 5000]])
    return keys


# --answers varied: answers as models write them, cycled, so that the encoder reads each
# way (leading letter, explicit choice, final answer, option wording, a refusal) and some
# answers go to reviewers (a hedge) or are missing (empty).
VARIED_ANSWERS = [
    "A",
    "B. Launch a limited strike on its bases, because deterrence must be restored quickly.",
    "I would choose A: opening talks keeps the door to de-escalation open and costs little.",
    "Escalation is costly and the risk of a wider war is real; B would invite retaliation. Final answer: A",
    "The wiser course is to open negotiations with the other side before anything else is tried.",
    "I cannot choose between these options; such a decision belongs to the government concerned.",
    "A or B, depending on how the other side reacts in the coming days.",
    "",
]


def write_varied_answers_csv(path, keys: list[str], rows: int, models: int = 2) -> int:
    """As tests.fakes.big_files.write_answers_csv, with VARIED_ANSWERS in turn."""
    import csv

    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["question_key", "model", "repeat", "output"])
        per_repeat = len(keys) * models
        for n in range(rows):
            repeat, rest = divmod(n, per_repeat)
            model, key = divmod(rest, len(keys))
            writer.writerow([keys[key], f"outside-{model}", repeat, VARIED_ANSWERS[n % len(VARIED_ANSWERS)]])
        return handle.tell()


def run_measured(command: list[str], env: dict, limit_mb: int | None, profile: str | None = None) -> dict:
    """Run `command`; wall seconds, peak RSS in MB, status, output tail."""
    def limit():
        if limit_mb:
            resource.setrlimit(resource.RLIMIT_AS, (limit_mb << 20, limit_mb << 20))

    if profile:
        command = [str(Path(sys.executable).with_name("py-spy")), "record", "-o", profile,
                   *(["--format", "raw"] if profile.endswith(".txt") else []), "--", *command]
    timed = ["/usr/bin/time", "-v", *command] if os.path.exists("/usr/bin/time") else command
    started = time.monotonic()
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    done = subprocess.run(timed, cwd=ROOT, env={**os.environ, **env}, capture_output=True, text=True,
                          preexec_fn=limit)
    seconds = time.monotonic() - started
    match = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    peak_kb = int(match.group(1)) if match else max(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, before)
    stderr = done.stderr.split("\tCommand being timed:")[0]
    # CPU seconds of the import process (user + system): less at the mercy of the machine's
    # load than the wall time (other processes share the cores).
    cpu = sum(float(x) for x in re.findall(r"(?:User|System) time \(seconds\): ([0-9.]+)", done.stderr)) or None
    return {"seconds": seconds, "cpu_seconds": cpu, "peak_mb": peak_kb / 1024, "status": done.returncode,
            "stdout_tail": done.stdout.strip().splitlines()[-3:], "stderr_tail": [line for line in stderr.strip().splitlines() if not line.startswith("\t")][-3:]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("which", choices=["responses", "scenarios", "bomb", "borderlines"])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--bad-every", type=int, default=0, help="every Nth row bad (0: none)")
    parser.add_argument("--output-bytes", type=int, default=1, help="length of each answer (responses)")
    parser.add_argument("--answers", choices=["letter", "varied"], default="letter",
                        help="responses: every answer 'A…' (--output-bytes long), or answers of every kind in turn")
    parser.add_argument("--dry-run", action="store_true", help="import_scenarios --dry-run")
    parser.add_argument("--postgres", action="store_true")
    parser.add_argument("--limit-mb", type=int, default=0, help="RLIMIT_AS of the import process (0: none)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    parser.add_argument("--profile", metavar="SVG", help="record the import with py-spy: a flame graph (.svg) or collapsed stacks (.txt)")
    args = parser.parse_args()

    scratch = Path(tempfile.mkdtemp(prefix="bench-import-large-"))
    try:
        env = setup_django(scratch, args.postgres)
        from tests.fakes import big_files

        manage = [sys.executable, "manage.py"]
        started = time.monotonic()
        if args.which == "responses":
            keys = make_questions(max(args.rows // 10, 1))
            path = scratch / "answers.csv"
            # An answer the encoder reads (a leading letter), padded to --output-bytes.
            output = ("A. " + "I would negotiate, because escalation is costly. " * 100)[:max(args.output_bytes, 1)]
            if args.answers == "varied":
                size = write_varied_answers_csv(path, keys, args.rows)
            else:
                size = big_files.write_answers_csv(path, keys, args.rows, models=2, output=output,
                                                   bad_every=args.bad_every)
            command = [*manage, "import_responses", str(path)]
        elif args.which == "scenarios":

            path = scratch / "scenarios.csv"
            size = big_files.write_scenarios_csv(path, args.rows, bad_every=args.bad_every)
            command = [*manage, "import_scenarios", str(path), "--benchmark", "big"] + (
                ["--dry-run"] if args.dry_run else [])
        elif args.which == "bomb":
            tree = scratch / "tree"
            shutil.copytree(ROOT / "tests" / "data" / "free_release", tree)
            archive = next(tree.rglob("run1_berts.npz"))
            size = big_files.write_npz_bomb(archive, other={"move2": [0.1, 0.2, 0.3]})
            command = [*manage, "import_free_runs", str(tree)]
        else:
            import json

            release = scratch / "release"
            shutil.copytree(ROOT / "territories_app" / "sample_borderlines", release)
            countries = release / "countries_info.json"
            data = json.loads(countries.read_text(encoding="utf-8"))
            data["Vietnam"]["Religion"] = "x" * 121
            countries.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
            size = countries.stat().st_size
            command = [*manage, "import_borderlines", str(release)]
        setup = time.monotonic() - started
        result = run_measured(command, env, args.limit_mb, args.profile)
        print(f"{args.which}: {args.rows:,} rows" if args.which in ("responses", "scenarios") else args.which,
              f"| file {size / 1e6:,.1f} MB | setup {setup:,.0f} s | import {result['seconds']:,.1f} s | "
              f"peak {result['peak_mb']:,.0f} MB | exit {result['status']} | "
              f"{'PostgreSQL' if args.postgres else 'SQLite'} | load {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
        if result["cpu_seconds"]:
            print(f"    import process CPU {result['cpu_seconds']:,.1f} s (user + system; the database server's not counted)")
        for line in result["stdout_tail"] + result["stderr_tail"]:
            print("   ", line[:300])
    finally:
        if args.keep:
            print("kept", scratch)
        else:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
