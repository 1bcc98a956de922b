"""`scripts/setup`'s stamps: the packages' bytecode is compiled once per install, whichever of
`scripts/setup --test`, `scripts/serve` or `scripts/demo` comes next. With one hash in the
stamp, the demo's set-up after the tests' compiled all of site-packages again (19 s with its
bytecode already written, 70 s without), and the next test set-up once more: in the suite,
`test_clean_stop`'s `scripts/serve` paid it. Run on a copy of the script in a folder of its own
whose `.venv` is this one's Python with an install already stamped (nothing is installed or
compiled in this checkout)."""

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
COMPILING = "compiling the installed packages' bytecode"


def _hash(folder: Path, *names: str) -> str:
    """The hash `scripts/setup` stamps for these requirements files (their contents in order)."""
    return hashlib.sha256(b"".join((folder / name).read_bytes() for name in names)).hexdigest()


def _setup(folder: Path, *args: str) -> str:
    done = subprocess.run(["bash", "scripts/setup", *args], cwd=folder, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHON": sys.executable})
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_the_packages_are_compiled_once_whether_the_demo_or_the_tests_set_up_next(tmp_path):
    for name in ("requirements.txt", "requirements-weights.txt", "requirements-test.txt"):
        shutil.copy(ROOT / name, tmp_path / name)
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "setup", tmp_path / "scripts" / "setup")
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / "bin" / "python").symlink_to(sys.executable)
    # An install of the tests' set (which covers the demo's), as `scripts/setup --test` leaves it.
    tests, demo = (_hash(tmp_path, "requirements.txt", "requirements-weights.txt", "requirements-test.txt"),
                   _hash(tmp_path, "requirements.txt", "requirements-weights.txt"))
    (tmp_path / ".venv" / ".requirements.sha256").write_text(tests + "\n")
    (tmp_path / ".venv" / ".requirements.covered").write_text(f"{tests}\n{demo}\n")
    # The sign-on tests' provider already there (the set-up would fetch it from npm).
    provider = tmp_path / "var" / "oidc-provider" / "node_modules" / "oidc-provider"
    provider.mkdir(parents=True)
    (provider / "package.json").write_text("{}")

    assert COMPILING in _setup(tmp_path, "--test")  # the install's first set-up compiles
    assert set((tmp_path / ".venv" / ".bytecode").read_text().split()) == {tests, demo}
    assert COMPILING not in _setup(tmp_path)  # scripts/serve, scripts/demo
    assert COMPILING not in _setup(tmp_path, "--test")  # and the tests again
    # Another install (the requirements changed) is compiled again.
    (tmp_path / "requirements-test.txt").write_text((ROOT / "requirements-test.txt").read_text() + "\n# changed\n")
    changed = _hash(tmp_path, "requirements.txt", "requirements-weights.txt", "requirements-test.txt")
    (tmp_path / ".venv" / ".requirements.sha256").write_text(changed + "\n")
    (tmp_path / ".venv" / ".requirements.covered").write_text(f"{changed}\n{demo}\n")
    assert COMPILING in _setup(tmp_path, "--test")
