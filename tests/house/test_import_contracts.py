"""The house's import rules, kept by import-linter's contracts in `.importlinter`: the core
(benchmarks, runs, coding, accounts) and the neutral analysis layer import no family app;
the model gateway imports no engine, coding, analysis, format or family module, nor Django,
and is reached through its interface; nothing imports the site (cfpd_site), which sits on
top; the kit (the helpers every room shares) imports no room; the families never import
each other; the core's apps stand in layers; no import circle between the modules of one app. A broken contract fails here with import-linter's own
report of the import chain that breaks it."""

import configparser
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def contracts() -> list[str]:
    config = configparser.ConfigParser()
    config.read(ROOT / ".importlinter")
    return [section for section in config.sections() if section.startswith("importlinter:contract:")]


def test_every_import_contract_is_kept():
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(lint), "--no-cache", "--config", str(ROOT / ".importlinter")], cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    assert len(contracts()) == 8  # a contract deleted is a rule gone: change this with the docs
    assert f"Contracts: {len(contracts())} kept, 0 broken." in result.stdout, result.stdout + result.stderr
    assert result.returncode == 0
