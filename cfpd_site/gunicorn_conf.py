"""gunicorn's settings for the web container (`gunicorn cfpd_site.wsgi:application -c
cfpd_site/gunicorn_conf.py`): the application is loaded once in the master before the
workers are forked (`preload_app`), with what the requests need imported then
(`CFPD_WARM_START`, read by `cfpd_site.wsgi`, done by `cfpd_site.warm_start`: LiteLLM and its
OpenAI client, which a launch's plan and the models' key check use; the URLconf with every
view's module, the templates, plotly's chart parts). A fresh worker, after a start or a
restart, answers its first request without importing for seconds first — on a busy machine
the LiteLLM import alone outlasted gunicorn's 30 s timeout and the user got a 500, and the
URLconf's made every page's first visit take 2-3.5 s at load 2 (issue 38)."""

import os

os.environ.setdefault("CFPD_WARM_START", "1")

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("GUNICORN_WORKERS", "3"))
preload_app = True
accesslog = "-"


def _exit_now(status: int) -> None:
    """End this process without the interpreter's finalization. After the preloaded app, that
    finalization frees every object one by one: in a forked worker it also copies every shared
    page first; 10-14 s for each process at load 8 (1 s for the whole server with this), time a
    stop, a restart or a rolling deploy waits for. The database's connections are closed first,
    so that PostgreSQL sees each end as a normal one."""
    import sys

    try:
        from django.db import connections

        for alias in connections:
            connection = connections[alias]
            connection.close()
            if getattr(connection, "pool", None) is not None:
                connection.close_pool()
    except Exception:  # noqa: BLE001 (what could not close is closed by the exit itself)
        pass
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


def worker_exit(server, worker):
    """Called in the worker, in the `finally` of its run: the SystemExit in flight says how it
    ends. Only a clean end (status 0) is hurried; any other keeps its status and its traceback."""
    import sys

    ending = sys.exc_info()[1]
    if isinstance(ending, SystemExit) and ending.code in (0, None):
        _exit_now(0)


def on_exit(server):
    """Called by the master's halt just before sys.exit(exit_status): hurried only when that
    status is 0 (a stop asked for), so a failed boot keeps its non-zero status for the
    orchestrator."""
    import sys

    caller = sys._getframe(1)
    if caller.f_code.co_name == "halt" and caller.f_locals.get("exit_status") == 0:
        _exit_now(0)
