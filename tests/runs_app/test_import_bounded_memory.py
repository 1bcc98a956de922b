"""Files of any size (issue 32): each importer run as its own process under a memory limit
(RLIMIT_AS), with a file that would take the machine down if read whole, reports the flaw
or imports in bounded memory; the report of bad rows is built once."""

import io
import os
import re
import resource
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.db import connection

from benchmarks_app.models import Benchmark, Question
from crisis_app import npz_members
from crisis_app.free_release import read_inconsistencies
from runs_app.models import Response
from scenarios_app import transfer
from scenarios_app.transfer import ImportReport, import_scenarios
from tests.factories import GOOD_ROW, HEADER, table_csv
from tests.fakes.big_files import write_answers_csv, write_npz_bomb

ROOT = Path(__file__).resolve().parents[2]
TREE = ROOT / "tests" / "data" / "free_release"
LIMIT_MB = 1536  # the address space the import may map: a 3.2 GB array cannot fit


def database_env():
    db = connection.settings_dict
    if connection.vendor == "postgresql":
        auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
        return {"DATABASE_URL": f"postgres://{auth}@{db['HOST']}:{db['PORT']}/{db['NAME']}"}
    return {"SQLITE_PATH": db["NAME"], "DATABASE_URL": ""}


def limited_command(*args, limit_mb=LIMIT_MB):
    """`manage.py *args` in a child limited to `limit_mb` of address space: (completed
    process, wall seconds, the child's peak RSS in MB)."""
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (limit_mb << 20, limit_mb << 20))

    env = {**os.environ, **database_env(), "DJANGO_SETTINGS_MODULE": "cfpd_site.settings_test",
           "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    timed = ["/usr/bin/time", "-f", "peak-kb=%M"] if os.path.exists("/usr/bin/time") else []
    started = time.monotonic()
    done = subprocess.run([*timed, sys.executable, "manage.py", *map(str, args)], cwd=settings.BASE_DIR, env=env,
                          capture_output=True, text=True, preexec_fn=limit, timeout=900)
    seconds = time.monotonic() - started
    found = re.search(r"peak-kb=(\d+)", done.stderr)
    # Without /usr/bin/time: the largest child this process has waited for, an upper bound.
    peak = int(found.group(1)) / 1024 if found else resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return done, seconds, peak


# ---------------------------------------------------------------- npz members (pure)

def test_a_member_declaring_gigabytes_is_refused_before_it_is_inflated(tmp_path):
    path = tmp_path / "b.npz"
    size = write_npz_bomb(path, values=50_000_000, other={"move2": [0.1, 0.2, 0.3]})  # 400 MB of zeros
    assert size < 2_000_000
    _, flaws, _ = read_inconsistencies("b.npz", path, 3)
    # size_bound(3) = 10 000 + 64 + 3 x 16 = 10 112 bytes; the member declares 400 000 128.
    assert flaws == [f"b.npz: move1 would expand to 0.4 GB, {400_000_128 / zipfile.ZipFile(path).getinfo('move1.npy').compress_size:,.0f} "
                     f"times its packed {zipfile.ZipFile(path).getinfo('move1.npy').compress_size:,} bytes, where 3 "
                     "values need at most 10,112: not read; write one value per pair"]


def test_a_header_declaring_more_values_than_the_pairs_is_named_from_the_header_alone(tmp_path):
    # A small member whose header says 10^9 values: refused on the header, nothing more read.
    path = tmp_path / "b.npz"
    with zipfile.ZipFile(path, "w") as archive:
        with archive.open("move1.npy", "w") as member:
            np.lib.format.write_array_header_1_0(member, {"descr": "<f8", "fortran_order": False,
                                                          "shape": (1_000_000_000,)})
            member.write(b"\0" * 24)
    archive, members = npz_members.open_archive(path)
    array, problem = npz_members.read_flat(archive, members["move1"], 3, "3 samples make 3 pairs")
    assert array is None and problem == "move1 has 1000000000 values where 3 samples make 3 pairs"


def test_objects_are_never_unpickled(tmp_path):
    path = tmp_path / "b.npz"
    with zipfile.ZipFile(path, "w") as archive:
        with archive.open("move1.npy", "w") as member:
            np.lib.format.write_array(member, np.array([{"a": 1}, None, 3], dtype=object), allow_pickle=True)
    _, flaws, _ = read_inconsistencies("b.npz", path, 3)
    assert flaws[0] == "b.npz: move1 holds object values, not real numbers"


# ---------------------------------------------------------------- the bomb, as a process

@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_3_gb_npz_bomb_is_a_flaw_of_its_run_under_a_1_5_gb_limit(tmp_path):
    tree = tmp_path / "tree"
    shutil.copytree(TREE, tree)
    archive = next(tree.rglob("run1_berts.npz"))
    size = write_npz_bomb(archive, values=400_000_000, other={"move2": [0.1, 0.2, 0.3]})  # 3.2 GB inflated
    assert size < 20_000_000
    done, seconds, _ = limited_command("import_free_runs", tree, "--dry-run")
    assert "MemoryError" not in done.stderr and "Traceback" not in done.stderr, done.stderr[-2000:]
    relative = archive.relative_to(tree).as_posix()
    assert f"{relative}: move1 would expand to 3.2 GB" in done.stdout
    assert "would import 4 runs" in done.stdout  # the other runs are sound
    assert seconds < 120


# ---------------------------------------------------------------- a large answer file, as a process

@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_200k_answers_import_in_bounded_memory_with_progress(tmp_path):
    benchmark = Benchmark.objects.create(name="big", title="big")
    options = [{"text": "Negotiate", "category": "a"}, {"text": "Strike", "category": "b"}]
    keys = [f"big/q{n}" for n in range(20_000)]
    Question.objects.bulk_create([Question(benchmark=benchmark, key=key, text="What should A do?", options=options,
                                           option_order=[0, 1], choice_count=2) for key in keys], batch_size=2000)
    path = tmp_path / "answers.csv"
    write_answers_csv(path, keys, 200_000, models=2, output="A")  # 20 000 keys x 2 models x 5 repeats
    done, seconds, peak = limited_command("import_responses", path)
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-2000:])
    assert "imported 200000 answers as run" in done.stdout
    assert Response.objects.filter(run__benchmark=benchmark).count() == 200_000
    assert peak < 500, f"peak RSS {peak:.0f} MB"


@pytest.mark.django_db
def test_a_bad_row_in_a_large_file_writes_nothing_and_each_bad_row_is_named(tmp_path):
    benchmark = Benchmark.objects.create(name="big", title="big")
    keys = [f"big/q{n}" for n in range(100)]
    Question.objects.bulk_create([Question(benchmark=benchmark, key=key, text="?", options=[], option_order=[],
                                           choice_count=0) for key in keys])
    path = tmp_path / "answers.csv"
    write_answers_csv(path, keys, 20_000, bad_every=5000)  # rows 4 999, 9 999, … name missing keys
    out = io.StringIO()
    with pytest.raises(CommandError, match="4 problem"):
        call_command("import_responses", str(path), stdout=out, stderr=io.StringIO())
    # Row n is on line n + 2 (the header is line 1).
    assert out.getvalue().splitlines()[0] == (f"{path}: line 5001: no question with key 'missing-4999' (keys are as "
                                              "export_questions writes them)")
    assert Response.objects.count() == 0


@pytest.mark.django_db
def test_a_repeated_unit_names_its_first_line(tmp_path):
    benchmark = Benchmark.objects.create(name="big", title="big")
    Question.objects.create(benchmark=benchmark, key="big/q0", text="?", options=[], option_order=[], choice_count=0)
    path = tmp_path / "answers.csv"
    path.write_text("question_key,model,repeat,output\nbig/q0,m,0,A\nbig/q0,m,1,A\nbig/q0,m,0,B\nbig/q0,m,0,C\n")
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("import_responses", str(path), stdout=out, stderr=io.StringIO())
    assert out.getvalue().splitlines() == [f"{path}: line 4: (big/q0, m, repeat 0) repeats line 2",
                                           f"{path}: line 5: (big/q0, m, repeat 0) repeats line 2"]


# ---------------------------------------------------------------- linear report

def bad_scenarios(count):
    bad = list(GOOD_ROW)
    bad[0] = "Nowhere"
    return table_csv([[f"k{n}", *bad] for n in range(count)], header=["Key", *HEADER])


@pytest.mark.django_db
def test_the_report_of_bad_rows_is_built_once_however_many_lines_are_printed(monkeypatch):
    # The admin upload and a JSON file go through ImportReport: asking `ok` for each line
    # printed (as the command did) scanned every row each time: 302 scans of 300 rows.
    builds = []
    original = ImportReport._find_bad_rows
    monkeypatch.setattr(ImportReport, "_find_bad_rows", lambda self: builds.append(1) or original(self))
    report = import_scenarios(bad_scenarios(300), "big")
    printed = [f"x: {line}" if not report.ok else line for line in report.lines()]
    assert len(printed) == 300 and not report.ok and report.summary().startswith("300 of 300 rows")
    assert len(builds) == 1


@pytest.mark.django_db
def test_the_command_checks_each_row_once_and_prints_each_bad_row_as_found(tmp_path, monkeypatch):
    path = tmp_path / "scenarios.csv"
    path.write_text(bad_scenarios(300), encoding="utf-8")
    checks = []
    original = transfer._check_row
    monkeypatch.setattr(transfer, "_check_row", lambda *args: checks.append(1) or original(*args))
    out = io.StringIO()
    with pytest.raises(CommandError, match="300 of 300 rows have problems"):
        call_command("import_scenarios", str(path), stdout=out)
    lines = out.getvalue().splitlines()
    assert len(lines) == 300 and lines[0].startswith(f"{path}: line 2 (k0): Domain: 'Nowhere' is not a domain")
    assert len(checks) == 300  # one check per row; a bad file is not read a second time
