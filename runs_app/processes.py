"""Starting the helper process a run needs on one machine: a Celery worker (the
embedded default has no separate worker service)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from django.conf import settings


def worker_command(concurrency: int = 8, pool: str = "threads", queues: str = "celery") -> list[str]:
    """The worker command line. The file broker has no broadcast, so the worker's
    mingle/gossip/heartbeat chatter is off; with Redis the same flags do no harm."""
    return [sys.executable, "-m", "celery", "-A", "cfpd_site", "worker", "--pool", pool,
            "--concurrency", str(concurrency), "--queues", queues, "--loglevel", "WARNING",
            "--without-mingle", "--without-gossip", "--without-heartbeat"]


def start_worker(concurrency: int = 8, log_path: Path | None = None, env: dict | None = None) -> subprocess.Popen:
    if log_path:
        Path(log_path).parent.mkdir(parents=True, exist_ok=True)
    log = open(log_path, "ab") if log_path else subprocess.DEVNULL
    return subprocess.Popen(worker_command(concurrency), cwd=settings.BASE_DIR, stdout=log,
                            stderr=subprocess.STDOUT, env={**os.environ, **(env or {})})


def stop(process: subprocess.Popen | None, timeout: float = 10):
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
