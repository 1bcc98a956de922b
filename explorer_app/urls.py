"""/answers/: the answers list and one answer's page (urls_answers), the grid and the
comparison of two runs (urls_grid)."""

from . import urls_answers, urls_grid

urlpatterns = urls_grid.urlpatterns + urls_answers.urlpatterns
