"""Addresses that moved out of this app: the actors went to the core (one row per state for
every family, `benchmarks_app.Actor`), and old links to their console pages still work."""

from django.urls import re_path
from django.views.generic import RedirectView

urlpatterns = [
    re_path(r"^(?P<rest>.*)$",
            RedirectView.as_view(url="/admin/benchmarks_app/actor/%(rest)s", permanent=True, query_string=True)),
]
