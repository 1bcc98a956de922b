from django.urls import path

from . import profile_views as views

# "compare" and the CSVs before <name>: a model named "compare" is reached through the list's link.
urlpatterns = [
    path("", views.model_index, name="model-index"),
    path("compare/", views.model_compare, name="model-compare"),
    path("compare/differences.csv", views.model_compare_csv, name="model-compare-csv"),
    path("status.json", views.headlines_status, name="model-headlines-status"),
    path("<str:name>/", views.model_profile, name="model-profile"),
    path("<str:name>/figures.csv", views.model_profile_csv, name="model-profile-csv"),
]
