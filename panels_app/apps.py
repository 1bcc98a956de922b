from django.apps import AppConfig


class PanelsAppConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "panels_app"
    verbose_name = "Panels of people"
