"""/api/answers/: the same as the pages, in the API."""

from . import api_urls_answers, api_urls_grid

urlpatterns = api_urls_grid.urlpatterns + api_urls_answers.urlpatterns
