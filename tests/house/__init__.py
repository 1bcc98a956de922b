"""The house's own Python modules, as the structure tests read them (sizes, writers of state):
every .py file outside the virtualenv, var/, bench/, tests/ and migrations."""

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SKIPPED = {".venv", "var", "bench", "tests", "migrations", "node_modules", "__pycache__"}


def house_modules() -> list[Path]:
    """The house's .py files: the skipped folders not entered (the virtualenv holds thousands)."""
    found = []
    for folder, folders, files in os.walk(ROOT):
        folders[:] = sorted(name for name in folders if name not in SKIPPED and not name.startswith("."))
        found += [Path(folder) / name for name in sorted(files) if name.endswith(".py")]
    return found
