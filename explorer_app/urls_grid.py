"""/answers/grid/ and /answers/compare/: the models × questions grid and two runs compared."""

from django.urls import path

from . import views_grid

urlpatterns = [
    path("grid/", views_grid.answer_grid, name="answer-grid"),
    path("compare/", views_grid.answer_compare, name="answer-compare"),
]
