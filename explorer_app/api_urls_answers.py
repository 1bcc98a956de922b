"""/api/answers/ (the list) and /api/answers/<id>/ (one answer)."""

from django.urls import path

from . import api_answers

urlpatterns = [
    path("", api_answers.AnswerListView.as_view(), name="api-answer-list"),
    path("<int:pk>/", api_answers.AnswerDetailView.as_view(), name="api-answer-detail"),
]

for pattern in urlpatterns:  # the API answers 401/403 itself (see runs_app.api_urls)
    pattern.callback.login_required = False
