from django.urls import path

from . import views

urlpatterns = [
    path("", views.dashboard_page, name="analysis-dashboard"),
    path("answers.csv", views.answers_csv, name="analysis-answers-csv"),
    path("answers.parquet", views.answers_parquet, name="analysis-answers-parquet"),
    path("<slug:key>.csv", views.panel_csv, name="analysis-panel-csv"),
]
