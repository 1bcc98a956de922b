"""Which failures are the infrastructure's, not a unit's: a lost connection to Redis
(the broker, the limiter, the cache) or to the database, or a full disk. Such a failure
never fails a unit: the task is retried once the service is back, and a run waiting on
a service says so (`services.watch_services`). Only what a provider answered (or a bad
request) can fail a unit (`llm.classify`).

No Django import at module level: the database's errors are recognised by name and
module, so the pure engine modules can use this too.
"""

from __future__ import annotations

import errno
import os

REDIS = "redis"  # the broker, the limiter or the cache (one Redis in every set-up shipped)
QUEUE = "queue"  # the embedded default's file broker (var/queue)
DATABASE = "database"
DISK_FULL = "disk_full"

LABELS = {REDIS: "Redis", QUEUE: "the queue folder", DATABASE: "the database", DISK_FULL: "the database's disk"}


def _chain(exc: BaseException):
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def service_of(exc: BaseException) -> str | None:
    """The service whose failure `exc` is (REDIS, QUEUE, DATABASE, DISK_FULL), or None
    when it is no infrastructure's (a provider's answer, a bug). A full disk is told
    apart wherever it shows: PostgreSQL's DiskFull (SQLSTATE 53100), SQLite's
    "database or disk is full", an OSError ENOSPC (the file broker writing a message)."""
    service = None
    for item in _chain(exc):
        module, name = type(item).__module__, type(item).__name__
        if name == "DiskFull" or getattr(item, "sqlstate", None) == "53100" or (
                isinstance(item, OSError) and item.errno == errno.ENOSPC) or "disk is full" in str(item):
            return DISK_FULL
        if service is not None:
            continue
        if module.startswith("redis") and name in ("ConnectionError", "TimeoutError", "BusyLoadingError",
                                                   "ReadOnlyError", "MasterDownError"):
            service = REDIS
        elif module.startswith("kombu") and name in ("OperationalError", "ChannelError", "ConnectionError"):
            service = REDIS if os.environ.get("REDIS_URL") else QUEUE
        elif module.startswith(("django.db", "psycopg", "sqlite3")) and name in ("OperationalError",
                                                                                  "InterfaceError"):
            service = DATABASE
        elif module == "builtins" and isinstance(item, (ConnectionRefusedError, ConnectionResetError)) \
                and type(exc).__module__.startswith(("redis", "kombu")):
            service = REDIS
    return service


class SimulatedDiskFull(OSError):
    """The fault tests' full disk (no tmpfs without root): raised by the writer while the
    file named by CFPD_FAULT_DISK_FULL exists. Never set outside the tests."""

    def __init__(self):
        super().__init__(errno.ENOSPC, "No space left on device (simulated: CFPD_FAULT_DISK_FULL)")


def check_simulated_disk_full():
    path = os.environ.get("CFPD_FAULT_DISK_FULL")
    if path and os.path.exists(path):
        raise SimulatedDiskFull()
