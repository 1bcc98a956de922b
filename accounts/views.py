from functools import cache

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_safe


def home(request):
    return render(request, "home.html")


@cache
def _favicon_bytes() -> bytes:
    return (settings.BASE_DIR / "static" / "favicon.ico").read_bytes()


@login_not_required  # browsers ask for it on every page, the sign-in page's too
@require_safe
@cache_control(max_age=86400, public=True)
def favicon(request):
    """/favicon.ico: pages of the site link static/favicon.svg, but the console's and the
    API's pages link none, so browsers ask for this one."""
    return HttpResponse(_favicon_bytes(), content_type="image/x-icon")
