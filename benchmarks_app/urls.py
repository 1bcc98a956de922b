from django.urls import path

from . import views

urlpatterns = [
    path("", views.benchmark_list, name="benchmark-list"),
    path("<slug:name>/", views.benchmark_detail, name="benchmark-detail"),
]
