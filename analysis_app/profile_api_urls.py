from django.urls import path

from . import profile_api

urlpatterns = [
    path("compare/", profile_api.ModelComparisonView.as_view(), name="api-model-compare"),
    path("<str:name>/", profile_api.ModelProfileView.as_view(), name="api-model-profile"),
]

for pattern in urlpatterns:  # the API answers 401/403 itself (see runs_app.api_urls)
    pattern.callback.login_required = False
