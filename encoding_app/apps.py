from django.apps import AppConfig


class EncodingAppConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "encoding_app"
    verbose_name = "Coding of answers"

    def ready(self):
        from . import checks, receivers  # noqa: F401  (the encoder's self-check; the signal receivers)
