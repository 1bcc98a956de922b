"""What this process saw of the services it needs: since when each has been failing,
as reported by the tasks that met the failure and by the watcher's own probes.
Process-local and thread-safe; no Django. The watcher (`runs_app.watcher`) reads it,
writes it onto the active runs (`services.watch_services`) and clears a service once
it answers again.
"""

from __future__ import annotations

import threading
import time
from datetime import datetime, timezone

_lock = threading.Lock()
_down: dict[str, datetime] = {}  # service -> since (UTC)
_last_report: dict[str, float] = {}  # service -> monotonic time of the latest report


def report(service: str, when: datetime | None = None):
    """`service` failed just now (kept: the first time of an outage)."""
    with _lock:
        _down.setdefault(service, when or datetime.now(timezone.utc))
        _last_report[service] = time.monotonic()


def down() -> dict[str, datetime]:
    """The services failing, with the time each outage began."""
    with _lock:
        return dict(_down)


def quiet_for(service: str) -> float:
    """Seconds since the latest report of `service` (infinite when never reported)."""
    with _lock:
        last = _last_report.get(service)
    return float("inf") if last is None else time.monotonic() - last


def clear(service: str) -> datetime | None:
    """`service` answers again; when its outage began (None when it was not down)."""
    with _lock:
        _last_report.pop(service, None)
        return _down.pop(service, None)


def reset():
    with _lock:
        _down.clear()
        _last_report.clear()
