"""What every family's analysts' pages share: the status of the figures a page waits for
(`analysis_app.computed`). Every page needs `analysis_app.view_dashboard` (`VIEW`, the
analysts role)."""

from django.contrib.auth.decorators import permission_required
from django.http import JsonResponse

from . import computed

VIEW = "analysis_app.view_dashboard"


@permission_required(VIEW, raise_exception=True)
def figures_status(request):
    """How many of the figures a page waits for (`key`, repeated) the worker has not
    computed yet: the page's placeholder polls this and reloads at 0."""
    keys = request.GET.getlist("key")[:50]
    # A key is at most 128 characters (ComputedFigure.key) and PostgreSQL stores no NUL: such a
    # parameter names no figure, and is said so rather than sent to the database.
    if any(len(key) > 128 or "\x00" in key for key in keys):
        return JsonResponse({"detail": "key: at most 128 characters, no NUL character"}, status=400)
    return JsonResponse({"pending": computed.pending(keys)})
