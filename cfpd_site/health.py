"""/healthz: whether this web process can reach what it needs, for load balancers and
Kubernetes' probes (deploy/k8s). Open to anyone (it says only "ok" or what is down, never
an address or a secret), never cached. 200 when the database and the broker both answer,
503 naming the ones that do not; each is given CHECK_SECONDS, so a service that hangs
cannot hang the probe. Answered by `HealthzFirst`, before the other middleware: a probe
asks by the pod's address (not in ALLOWED_HOSTS) and in plain HTTP (not redirected)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as NoAnswer

from django.db import connection
from django.contrib.auth.decorators import login_not_required
from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

CHECK_SECONDS = 3.0
_checks = ThreadPoolExecutor(max_workers=4, thread_name_prefix="healthz")


def _database() -> None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    finally:
        connection.close()  # this thread's connection goes back (to the pool, on PostgreSQL)


def _broker() -> None:
    from celery import current_app  # the site's app (cfpd_site.celery makes it every thread's default)

    with current_app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=CHECK_SECONDS)
        conn.default_channel  # noqa: B018 (opening a channel is what reaches Redis: it pings it)


CHECKS = {"database": _database, "broker": _broker}


def _state(check) -> str:
    future = _checks.submit(check)
    try:
        future.result(timeout=CHECK_SECONDS)
    except NoAnswer:
        return f"down: no answer within {CHECK_SECONDS:g} s"
    except Exception as error:  # what is down, by the error's kind: its text may name hosts
        return f"down: {type(error).__name__}"
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
