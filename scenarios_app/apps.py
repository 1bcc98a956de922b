from django.apps import AppConfig


class ScenariosAppConfig(AppConfig):
    default_auto_field = 'django.db.models.BigAutoField'
    name = 'scenarios_app'
    verbose_name = "Authoring"
