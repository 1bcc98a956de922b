from django.urls import path

from crisis_app.api import CrisisView
from territories_app.api import TerritoriesView

from . import api

urlpatterns = [path("", api.AnalysisView.as_view(), name="api-analysis"),
               path("territories/", TerritoriesView.as_view(), name="api-analysis-territories"),
               path("crisis/", CrisisView.as_view(), name="api-analysis-crisis")]

for pattern in urlpatterns:  # the API answers 401/403 itself (see runs_app.api_urls)
    pattern.callback.login_required = False
