"""CFPD's figures in the API moved from /api/analysis/ to /api/analysis/cfpd/ (issue 39, as its
pages did: scenarios_app/analysis/moved_urls.py): the old address answers 301 with the query
kept, which HTTP clients follow for a GET."""

from django.urls import path
from django.views.generic import RedirectView

urlpatterns = [
    path("", RedirectView.as_view(url="/api/analysis/cfpd/", permanent=True, query_string=True)),
]

for pattern in urlpatterns:  # an API address: it answers for itself (runs_app.api_urls), no sign-in page
    pattern.callback.login_required = False
