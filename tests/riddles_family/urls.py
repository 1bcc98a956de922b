"""The test family's own page (tests/benchmarks_app/test_open_registry.py): a family brings its
dashboard's route with its app and registers where it is mounted (`Family.urls`); the site's
URLconf mounts every registered family's, so nothing in the core names it."""

from django.http import HttpResponse
from django.urls import path


def riddles_page(request):
    return HttpResponse("Riddles answered, by level.")


urlpatterns = [
    path("", riddles_page, name="riddles-dashboard"),
]
