from django.urls import path

from . import api

urlpatterns = [
    path("alignment/", api.AlignmentView.as_view(), name="api-panel-alignment"),
]

for pattern in urlpatterns:  # the API answers 401/403 itself (see runs_app.api_urls)
    pattern.callback.login_required = False
