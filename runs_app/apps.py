from django.apps import AppConfig


class RunsAppConfig(AppConfig):
    default_auto_field = 'django.db.models.BigAutoField'
    name = 'runs_app'
    verbose_name = "Runs"
