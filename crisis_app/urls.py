from django.urls import path

from . import views

urlpatterns = [
    path("", views.crisis_page, name="crisis-dashboard"),
    path("<slug:key>.csv", views.panel_csv, name="crisis-panel-csv"),
]
