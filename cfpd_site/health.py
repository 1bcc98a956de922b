"""/healthz: whether this web process can reach what it needs, for load balancers and
Kubernetes' probes (deploy/k8s). Open to anyone (it says only "ok" or what is down, never
an address or a secret), never cached. 200 when the database and the broker both answer,
503 naming the ones that do not; each is given CHECK_SECONDS, so a service that hangs
cannot hang the probe. Answered by `HealthzFirst`, before the other middleware: a probe
asks by the pod's address (not in ALLOWED_HOSTS) and in plain HTTP (not redirected)."""

from __future__ import annotations

import threading

from django.db import connection
from django.contrib.auth.decorators import login_not_required
from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

CHECK_SECONDS = 3.0


def _database() -> None:
    if connection.vendor == "postgresql":
        # A connection of its own, given CHECK_SECONDS to connect, rather than one borrowed from
        # the process's pool: the pool waits 60 s (for the workers), which kept a probe's thread
        # waiting a minute on a database that is down; and a pool busy serving pages is no sign
        # that the database is down.
        import psycopg

        params = connection.get_connection_params()
        with psycopg.connect(**params, connect_timeout=max(1, int(CHECK_SECONDS)), autocommit=True) as conn:
            conn.execute("SELECT 1").fetchone()
        return
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    finally:
        connection.close()


def _broker() -> None:
    from celery import current_app  # the site's app (cfpd_site.celery makes it every thread's default)

    with current_app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=CHECK_SECONDS)
        conn.default_channel  # noqa: B018 (opening a channel is what reaches Redis: it pings it)


CHECKS = {"database": _database, "broker": _broker}


def _state(check) -> str:
    """The check run in a thread of its own, waited for CHECK_SECONDS; a daemon thread, so that
    one left hanging on a service never holds the process when it stops."""
    outcome: list[BaseException | None] = []

    def run():
        try:
            check()
        except Exception as error:
            outcome.append(error)
        else:
            outcome.append(None)

    thread = threading.Thread(target=run, name="healthz", daemon=True)
    thread.start()
    thread.join(CHECK_SECONDS)
    if not outcome:
        return f"down: no answer within {CHECK_SECONDS:g} s"
    if outcome[0] is not None:  # what is down, by the error's kind: its text may name hosts
        return f"down: {type(outcome[0]).__name__}"
    return "ok"


@login_not_required
@never_cache
@require_GET
def healthz(request):
    states = {name: _state(check) for name, check in CHECKS.items()}
    down = [name for name, state in states.items() if state != "ok"]
    body = {"status": "down" if down else "ok", **states}
    if down:
        body["down"] = down
    return JsonResponse(body, status=503 if down else 200)


class HealthzFirst:
    """The first middleware: GET /healthz is answered here, before the host check
    (CommonMiddleware) and the HTTPS redirect (SecurityMiddleware); it says nothing a
    stranger could use."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path_info == "/healthz":
            return healthz(request)
        return self.get_response(request)
