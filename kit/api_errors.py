"""Errors under /api/ are JSON, as DRF's own are ({"detail": "..."}), never Django's HTML
pages: a script reading the API must be able to parse every answer.

`wants_json(request)` says whether a request is an API call; `json_error(request, status)`
answers one. The site's error handlers (handler404, handler500, ...) call them for API
paths; `not_found` is the API's catch-all for a URL that matches no endpoint."""

from django.http import HttpResponsePermanentRedirect, JsonResponse
from django.urls import Resolver404, resolve

API_PREFIX = "/api/"

DETAILS = {
    400: "Bad request.",
    401: "Authentication credentials were not provided.",
    403: "You do not have permission to perform this action.",
    404: "Not found.",
    405: "Method not allowed.",
    500: "Server error: the request was logged; try again later.",
}


def wants_json(request) -> bool:
    """Whether the request is an API call: its path is under /api/ (the API's docs pages
    for people, /api/docs/, keep their HTML)."""
    path = request.path_info or "/"
    return (path == API_PREFIX.rstrip("/") or path.startswith(API_PREFIX)) and not path.startswith(API_PREFIX + "docs/")


def json_error(request, status: int, detail: str | None = None) -> JsonResponse:
    return JsonResponse({"detail": detail or DETAILS.get(status, "Error.")}, status=status)


def not_found(request, *args, **kwargs):
    """Any /api/ URL that matches no endpoint: a JSON 404. A URL missing only its final
    slash is sent on to the endpoint for GET and HEAD (as Django's APPEND_SLASH would)
    and named in the 404 otherwise, since a redirect would drop a POST's body."""
    path = request.path_info
    if not path.endswith("/"):
        try:
            match = resolve(path + "/")
        except Resolver404:
            match = None
        if match is not None and match.func is not not_found:
            if request.method in ("GET", "HEAD"):
                query = request.META.get("QUERY_STRING", "")
                return HttpResponsePermanentRedirect(request.path + "/" + (f"?{query}" if query else ""))
            return json_error(request, 404, f"Not found. Did you mean {request.path}/ (with the final slash)?")
    return json_error(request, 404)


not_found.login_required = False  # an API answer, not a redirect to the sign-in page
not_found.csrf_exempt = True  # a POST to a wrong URL is a 404, not a CSRF page
