"""The site's pages for 400, 403, 404 and 500: in the product's layout, saying what
happened and where to go (cfpd_site.error_advice), in both configurations.

* DEBUG off: Django calls the handlers named in cfpd_site/urls.py.
* DEBUG on (the demo runs so): Django would answer a wrong URL or id with its technical
  404 page (every URL pattern listed) and an uncaught error or bad request with its
  traceback page. `ErrorPages` answers those 404s with the product's page, and
  `PageReporter` (DEFAULT_EXCEPTION_REPORTER) renders the product's 400 or 500 page in
  place of the traceback, which stays in the server's log.

Under /api/ every error is JSON, as DRF's own ({"detail": ...}; kit.api_errors).
A refused permission is expected, so `ForbiddenWithoutTraceback` keeps its one log line
and drops the traceback Django attaches.
"""

import logging

from django.apps import apps
from django.conf import settings
from django.core.exceptions import BadRequest, SuspiciousOperation
from django.http import Http404, HttpResponse
from django.template.loader import render_to_string
from django.views.debug import ExceptionReporter

from accounts.roles import ROLES, role_descriptions

from kit.api_errors import json_error, wants_json
from .error_advice import NO_MATCH, advise

TEMPLATE = "errors/page.html"
log = logging.getLogger(__name__)


def _reason(exception) -> str:
    """The message the refusing code gave (`Http404("no such panel")`), if it is text:
    a Resolver404 carries a dict of the patterns tried, which is nobody's business."""
    args = getattr(exception, "args", ())
    return args[0] if args and isinstance(args[0], str) else ""


def _missing(request, reason: str) -> tuple[str, str] | None:
    """(what, key) of the record a get_object_or_404 did not find ("No Run matches the
    given query." at /runs/999/ -> ("run", "999")): the model's verbose name, and the
    address's part that names it — the argument named after the model (run_id, run), else
    pk, id, name, slug or key; "" when the address has none (the id came in a form)."""
    match = NO_MATCH.match(reason.strip())
    if match is None:
        return None
    name = match.group(1)
    model = next((m for m in apps.get_models() if m._meta.object_name == name), None)
    what = str(model._meta.verbose_name) if model is not None else name.lower()
    kwargs = dict(getattr(getattr(request, "resolver_match", None), "kwargs", None) or {})
    lower = name.lower()
    for argument in (f"{lower}_id", f"{lower}_pk", lower, "pk", "id", "name", "slug", "key"):
        if argument in kwargs:
            return what, str(kwargs[argument])
    return what, ""


def _roles_of(user) -> tuple[str, ...]:
    if user is None or not user.is_authenticated:
        return ()
    if user.is_superuser:
        return ("superuser",)
    return tuple(sorted(user.groups.filter(name__in=ROLES).values_list("name", flat=True)))


def render_error(request, status: int, exception=None) -> HttpResponse:
    if wants_json(request):
        return json_error(request, status)
    user = getattr(request, "user", None)
    signed_in = bool(user is not None and user.is_authenticated)
    reason = _reason(exception)
    advice = advise(status, request.path, signed_in=signed_in, roles=_roles_of(user) if status == 403 else (),
                    reason=reason, missing=_missing(request, reason) if status == 404 else None)
    context = {"advice": advice,
               "role_descriptions": list(role_descriptions().items()) if status == 403 and signed_in else []}
    try:
        html = render_to_string(TEMPLATE, context, request)
    except Exception:  # noqa: BLE001 — the page must not fail in turn (a broken context processor, a lost database)
        log.exception("the %s page could not be rendered with the request; rendering it without", status)
        try:
            html = render_to_string(TEMPLATE, context)
        except Exception:  # noqa: BLE001
            html = f"<!doctype html><title>{advice.title}</title><h1>{advice.title}</h1><p>{advice.message}</p>"
    return HttpResponse(html, status=status)


def bad_request(request, exception=None):
    return render_error(request, 400, exception)


def permission_denied(request, exception=None):
    return render_error(request, 403, exception)


def page_not_found(request, exception=None):
    return render_error(request, 404, exception)


def server_error(request):
    return render_error(request, 500)


def csrf_failure(request, reason=""):
    """CSRF_FAILURE_VIEW: most often a form left open across a sign-out or a restart."""
    return render_error(request, 403, PermissionError(
        "The form was sent with an expired or missing security token: reload the page (or sign in again) and "
        "send it anew. If it keeps happening, allow this site's cookies"))


class ErrorPages:
    """With DEBUG on, the product's 404 page in place of Django's technical one (see the
    module's docstring). With DEBUG off Django calls the handlers itself: this does nothing."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if not settings.DEBUG:
            return response
        if response.status_code == 404 and request.resolver_match is None:  # no URL pattern matched
            return page_not_found(request)
        if (response.status_code in (400, 500) and wants_json(request) and not hasattr(response, "accepted_renderer")
                and not response.get("Content-Type", "").startswith("application/json")):
            return json_error(request, response.status_code)  # the traceback page of an API call
        return response

    def process_exception(self, request, exception):
        if settings.DEBUG and isinstance(exception, Http404):
            return page_not_found(request, exception)
        return None


class PageReporter(ExceptionReporter):
    """DEFAULT_EXCEPTION_REPORTER: with DEBUG on, Django's answer to a bad request (400) or
    an uncaught error (500) is this page instead of the traceback; the log keeps the
    traceback. Without a request (an error e-mail) it is Django's report."""

    def get_traceback_html(self):
        if self.request is None:
            return super().get_traceback_html()
        status = 400 if isinstance(self.exc_value, (BadRequest, SuspiciousOperation)) else 500
        return render_error(self.request, status, self.exc_value).content.decode()


class ForbiddenWithoutTraceback(logging.Filter):
    """On django.request: a 403 (PermissionDenied) is an expected answer, logged as one
    line ("Forbidden (Permission denied): /runs/launch/") without the traceback Django
    attaches to it."""

    def filter(self, record):
        if getattr(record, "status_code", None) == 403:
            record.exc_info = None
            record.exc_text = None
        return True
