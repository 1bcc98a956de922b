"""/api/answers/grid/ and /api/answers/compare/."""

from django.urls import path

from . import api_grid

urlpatterns = [
    path("grid/", api_grid.AnswerGridView.as_view(), name="api-answer-grid"),
    path("compare/", api_grid.AnswerCompareView.as_view(), name="api-answer-compare"),
]

for pattern in urlpatterns:  # the API answers 401/403 itself (see runs_app.api_urls)
    pattern.callback.login_required = False
