"""`scripts/serve` (which the demo ends in) stops every process it started on Ctrl-C
(SIGINT) or SIGTERM: the site and the worker, with no child left behind."""

import os
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from tests import migrated

ROOT = Path(__file__).resolve().parents[2]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def live_processes(field: int, value: int) -> list[int]:
    """Live processes (zombies excluded) whose /proc/PID/stat field after the command name
    equals value: field 2 is the process group, field 3 the session."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[field]) == value and fields[0] != "Z":
            members.append(int(entry.name))
    return members


def group_members(pgid):
    """Live processes of the process group."""
    return live_processes(2, pgid)


def _default_signals():
    """In the child, before exec: INT and TERM neither ignored nor blocked (both would be
    inherited by the shell, which could then never act on them)."""
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})


def answers(url):
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status < 500
    except urllib.error.HTTPError as exc:
        return exc.code < 500
    except OSError:
        return False


@pytest.mark.parametrize("stop_signal", [signal.SIGINT, signal.SIGTERM])
def test_serve_stops_the_site_and_the_worker(tmp_path, stop_signal):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE")}
    env.update(CFPD_VAR_DIR=str(tmp_path / "var"), CFPD_DEMO_ADDR=f"127.0.0.1:{port}", CFPD_ENV_FILE="",
               DEBUG="1", SECRET_KEY="clean-stop-test-key")
    # Its own session, so that the process group is the script and everything it started.
    # As from a terminal: INT and TERM at their defaults. A shell cannot trap a signal that
    # was ignored when it started, and this test process may have inherited or set one
    # (the whole suite runs in one process, with libraries that touch signal handling).
    # Its database already migrated (tests/migrated.py): serve's own `migrate` then finds
    # every migration applied, in seconds, where a new one took 30 s of CPU.
    migrated.into_sqlite(tmp_path / "var" / "cfpd.sqlite3")
    process = subprocess.Popen([str(ROOT / "scripts" / "serve")], cwd=ROOT, env=env, start_new_session=True,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, preexec_fn=_default_signals)
    try:
        deadline = time.monotonic() + 120
        while not answers(f"http://127.0.0.1:{port}/accounts/login/"):
            assert process.poll() is None, process.stdout.read().decode()
            assert time.monotonic() < deadline, "the site did not answer within 120 s"
            time.sleep(0.5)
        started = group_members(process.pid)
        assert len(started) >= 3  # the script, the worker, the site
        process.send_signal(stop_signal)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            status = Path(f"/proc/{process.pid}/status").read_text()
            pytest.fail("serve did not stop: " + " ".join(line for line in status.splitlines()
                                                          if line.startswith(("SigBlk", "SigIgn", "SigCgt"))))
        deadline = time.monotonic() + 20
        while group_members(process.pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert group_members(process.pid) == []
        assert not answers(f"http://127.0.0.1:{port}/accounts/login/")
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
