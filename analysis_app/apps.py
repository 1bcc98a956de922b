from django.apps import AppConfig


class AnalysisAppConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "analysis_app"
    verbose_name = "Analysis shared by every family"
