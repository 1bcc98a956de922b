"""One asyncio event loop per process, in a thread of its own, on which the engine's
model calls wait: a worker thread hands it a batch of calls and blocks until they are
all answered. One loop, not one per batch: LiteLLM keeps its HTTP clients (and their
connection pools) per process, and a client made on one loop cannot be used on another."""

from __future__ import annotations

import asyncio
import threading

_loop: asyncio.AbstractEventLoop | None = None
_lock = threading.Lock()


def _running_loop() -> asyncio.AbstractEventLoop:
    global _loop
    with _lock:
        if _loop is None or _loop.is_closed():
            loop = asyncio.new_event_loop()
            started = threading.Event()
            loop.call_soon(started.set)
            threading.Thread(target=loop.run_forever, name="cfpd-model-calls", daemon=True).start()
            started.wait()
            _loop = loop
        return _loop


def run(coroutine):
    """Run `coroutine` on the process's loop and return its result (or raise its error)."""
    return asyncio.run_coroutine_threadsafe(coroutine, _running_loop()).result()
