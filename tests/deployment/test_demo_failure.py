"""`scripts/demo` fails cleanly (issue 38): a failed step is named with what to do next,
every process the demo started (the worker, the weights' conversions, commands) is
stopped, and a run again resumes at that step, skipping those recorded as done.

Cheap by construction: the demo's record says the set-up and the database are done (as
after a run that failed later), so neither the installer nor the migrations run, and the
test hook CFPD_DEMO_FAIL_AT fails the step after them, once the worker and the two
conversions have been started."""

import os
import signal
import subprocess
from pathlib import Path

from tests.deployment.test_clean_stop import _default_signals, live_processes

ROOT = Path(__file__).resolve().parents[2]
# The record's first line: the settings the steps were done under (the demo's defaults).
SETTINGS = "# sample=40 text=10 borderlines=1 crisis=1/3 pairs=1\n"


def session_members(sid):
    """Live processes of the session."""
    return live_processes(3, sid)


def run_demo(var, fail_at):
    env = {k: v for k, v in os.environ.items()
           if k not in ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE") and not k.startswith("CFPD_DEMO")}
    env.update(CFPD_VAR_DIR=str(var), CFPD_ENV_FILE="", DEBUG="1", SECRET_KEY="demo-failure-test-key",
               CFPD_DEMO_FAIL_AT=fail_at, CFPD_DEMO_SERVE="0")
    # Its own session: whatever the demo started and left behind would still be in it.
    process = subprocess.Popen([str(ROOT / "scripts" / "demo")], cwd=ROOT, env=env, start_new_session=True,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               preexec_fn=_default_signals)
    try:
        output, _ = process.communicate(timeout=180)
        return process.returncode, output, session_members(process.pid)
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_a_failed_step_is_named_stops_every_process_and_a_rerun_resumes_there(tmp_path):
    var = tmp_path / "var"
    var.mkdir()
    state = var / "demo-state"
    state.write_text(SETTINGS + "set-up\ndatabase\n")

    status, output, left = run_demo(var, "demo-data")
    assert status == 1, output
    assert "demo: the step 'demo-data' (loading the demo benchmark and the admin account) failed (exit 1)." in output
    assert "What to do: the loading command's error is above" in output
    assert "Run scripts/demo again to resume at 'demo-data'" in output
    # Both conversions and the worker's loop (and, as it is quick, Celery) had started; none is left.
    stopped = int(output.split("Stopped the ")[1].split()[0])
    assert stopped >= 3, output
    assert left == []
    assert state.read_text() == SETTINGS + "set-up\ndatabase\n"  # the failed step is not recorded

    status, output, left = run_demo(var, "demo-data")
    assert status == 1 and left == []
    assert "== skipping set-up: done in an earlier run" in output
    assert "== skipping database: done in an earlier run" in output
    assert "resuming an unfinished demo: set-up, database done before" in output
    assert "the step 'demo-data'" in output and "(2 step(s) done are skipped;" in output
