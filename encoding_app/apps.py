from django.apps import AppConfig


class EncodingAppConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "encoding_app"
    verbose_name = "Encoding"

    def ready(self):
        from . import receivers  # noqa: F401  (connects the signal receivers)
