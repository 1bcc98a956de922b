"""The answer to a bad query parameter on a dashboard: the page with the message, naming
the form box it came from, or plain text for a CSV link; status 400 either way."""

from django.http import HttpResponse
from django.shortcuts import render


def bad_parameter(request, error, labels: dict[str, str], template: str, page: bool = True) -> HttpResponse:
    label = labels.get(error.field)
    message = f"{error} (the {label} box)" if label else str(error)
    if not page:
        return HttpResponse(message, status=400, content_type="text/plain")
    return render(request, template, {"error": message}, status=400)
