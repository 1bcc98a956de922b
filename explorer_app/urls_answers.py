"""/answers/ (the answers list, its CSV with ?format=csv) and /answers/<id>/ (one answer)."""

from django.urls import path

from . import views_answers

urlpatterns = [
    path("", views_answers.answers, name="answer-list"),
    path("<int:pk>/", views_answers.answer_page, name="answer-detail"),
]
