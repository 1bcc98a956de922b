from django.urls import path

from . import views

# Under /analysis/, beside the families' pages (cfpd_site/urls.py).
urlpatterns = [
    path("figures/status.json", views.figures_status, name="analysis-figures-status"),
]
