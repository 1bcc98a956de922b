"""No two processes share a disk (issue 42, docs/architecture.md "Files between processes"):
a file one process writes and another reads goes through the files' storage
(`django.core.files.storage.default_storage`), never through CFPD_VAR_DIR, which is each
process's own. Every use of VAR_DIR in the product is one that stays on its host, listed
here with why; a new one fails until it is judged and listed."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ROOMS = ("accounts", "analysis_app", "benchmarks_app", "cfpd_site", "crisis_app", "encoding_app", "explorer_app",
         "formats_app", "gateway", "kit", "panels_app", "runs_app", "scenarios_app", "territories_app")
# file -> why its uses of VAR_DIR stay on one host
ON_ONE_HOST = {
    "cfpd_site/settings.py": "where VAR_DIR is read; SQLite, the file broker and static files: the one-machine default",
    "cfpd_site/settings_test.py": "the suite's settings: each test process's own folder",
    "runs_app/management/commands/run_benchmark.py": "the log of the worker the command starts beside itself",
}


def users_of_var_dir() -> set[str]:
    found = set()
    for room in ROOMS:
        for path in (ROOT / room).rglob("*.py"):
            if re.search(r"\bVAR_DIR\b", path.read_text()):
                found.add(str(path.relative_to(ROOT)))
    return found


def test_every_use_of_the_var_dir_stays_on_its_host():
    assert users_of_var_dir() == set(ON_ONE_HOST), (
        "a module uses VAR_DIR: if another process reads what it writes, use default_storage instead; "
        "otherwise list it in ON_ONE_HOST with why")
