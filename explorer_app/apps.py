from django.apps import AppConfig


class ExplorerAppConfig(AppConfig):
    """Every answer in reach: one answer's page, the answers list, the models × questions grid
    and the difference between two runs. Family-blind: what a family adds to an answer comes
    through its registration (benchmarks_app.families)."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "explorer_app"
    verbose_name = "Answers"
