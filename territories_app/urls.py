from django.urls import path

from . import views

urlpatterns = [
    path("", views.territories_page, name="territories-dashboard"),
    path("<slug:key>.csv", views.panel_csv, name="territories-panel-csv"),
]
