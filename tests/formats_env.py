"""Other projects' own readers for the formats tests: Inspect AI and Hugging Face
`datasets`, installed in their own virtual environment (var/formats-venv), never in .venv
(installing them there would move fsspec and boto3 the product uses). Tests that need
them run a short script in that environment's Python and are skipped, saying how to
create it, when it is absent:

    .venv/bin/uv venv var/formats-venv
    .venv/bin/uv pip install --python var/formats-venv/bin/python inspect-ai==0.3.285 openai==3.54.0 datasets==5.2.0
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FORMATS_VENV = Path(os.environ.get("CFPD_FORMATS_VENV") or ROOT / "var" / "formats-venv")
PYTHON = FORMATS_VENV / "bin" / "python"
INSPECT_VERSION = "0.3.285"
DATASETS_VERSION = "5.2.0"
INSTALL = (f".venv/bin/uv venv {FORMATS_VENV} && .venv/bin/uv pip install --python {PYTHON} "
           f"inspect-ai=={INSPECT_VERSION} openai==3.54.0 datasets=={DATASETS_VERSION}")


# Every Eval Ever's package (its validator) needs Python >= 3.12: an environment of its own
# on pyenv's 3.12 where the machine has it.
EEE_VENV = Path(os.environ.get("CFPD_EEE_VENV") or ROOT / "var" / "eee-venv")
EEE_PYTHON = EEE_VENV / "bin" / "python"
EEE_VERSION = "0.3.0"
EEE_INSTALL = (f".venv/bin/uv venv {EEE_VENV} --python 3.12 && .venv/bin/uv pip install --python {EEE_PYTHON} "
               f"every-eval-ever=={EEE_VERSION}")


def _has(module: str, python: Path = PYTHON) -> bool:
    if not python.exists():
        return False
    return subprocess.run([str(python), "-c", f"import {module}"], capture_output=True).returncode == 0


def need(module: str):
    """Skip the test unless the formats environment has `module` (inspect_ai, datasets)."""
    if module == "every_eval_ever":
        if not _has(module, EEE_PYTHON):
            pytest.skip(f"every_eval_ever is not installed in {EEE_VENV} (create it with: {EEE_INSTALL})")
        return
    if not _has(module):
        pytest.skip(f"{module} is not installed in {FORMATS_VENV} (create it with: {INSTALL})")


def eee_validate(paths) -> tuple[int, list]:
    """(exit code, JSON report) of Every Eval Ever's own validator (`eee-validate --format
    json`) on the files: 0 clean, 1 errors, 2 warnings only."""
    done = subprocess.run([str(EEE_PYTHON), "-m", "every_eval_ever.validate", *map(str, paths), "--format", "json"],
                          capture_output=True, text=True, timeout=300, env=dict(os.environ, PYTHONPATH=""))
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        raise AssertionError(f"exit {done.returncode}: {done.stdout[-2000:]}{done.stderr[-2000:]}") from None
    return done.returncode, report


def run_python(script: str, *args, env: dict | None = None, timeout: float = 300, cwd=None):
    """Run `script` in the formats environment; its last stdout line is JSON, returned."""
    environment = dict(os.environ, PYTHONPATH="", INSPECT_TELEMETRY="", HF_DATASETS_OFFLINE="1",
                       HF_HUB_OFFLINE="1", **(env or {}))
    done = subprocess.run([str(PYTHON), "-c", script, *map(str, args)], capture_output=True, text=True,
                          env=environment, timeout=timeout, cwd=cwd)
    assert done.returncode == 0, (f"exit {done.returncode}\nstdout:\n{done.stdout[-3000:]}\n"
                                  f"stderr:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])
