from django.urls import path

from . import views

urlpatterns = [
    path("export/", views.export_start, name="report-export-start"),
    path("<int:pk>/", views.export_page, name="report-export"),
    path("<int:pk>/status.json", views.export_status, name="report-export-status"),
    path("<int:pk>/download/", views.export_download, name="report-export-download"),
]
