"""CFPD's dashboard had the neutral prefix /analysis/ to itself until issue 39 gave every family
an address space of its own (/analysis/cfpd/, /analysis/territories/, /analysis/crisis/). Old
links and bookmarks still work: each old address answers 301 to its new one, the query kept.
Only CFPD's own old addresses are matched (the dashboard, its answers and its panels' CSV), so
the other families' pages and the shared /analysis/figures/ pass by."""

from django.urls import re_path
from django.views.generic import RedirectView

urlpatterns = [
    re_path(r"^(?P<rest>(answers\.csv|answers\.parquet|[-a-zA-Z0-9_]+\.csv)?)$",
            RedirectView.as_view(url="/analysis/cfpd/%(rest)s", permanent=True, query_string=True)),
]
