from django.urls import path

from . import validation_views

urlpatterns = [
    path("", validation_views.validation_page, name="crisis-validation"),
]
