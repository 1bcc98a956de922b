from django.urls import path

from . import api

# Under /api/analysis/cfpd/ (its registration's `urls`), beside the other families' analysis API.
urlpatterns = [path("", api.AnalysisView.as_view(), name="api-analysis")]

for pattern in urlpatterns:  # the API answers 401/403 itself (see runs_app.api_urls)
    pattern.callback.login_required = False
