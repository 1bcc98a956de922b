"""The test family's own page (tests/integration/test_open_registry.py), beside the product's
URLs: a family brings its dashboard's route with its app; the core's templates only link it."""

from django.http import HttpResponse
from django.urls import include, path


def riddles_page(request):
    return HttpResponse("Riddles answered, by level.")


urlpatterns = [
    path("riddles/", riddles_page, name="riddles-dashboard"),
    path("", include("cfpd_site.urls")),
]
