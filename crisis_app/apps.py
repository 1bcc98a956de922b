from django.apps import AppConfig


class CrisisAppConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "crisis_app"
    verbose_name = "Free-form crisis simulations"

    def ready(self):
        from benchmarks_app import families

        from .family import FREEFORM

        families.register(FREEFORM)
        from .headline import register_headline  # its figures on the models' profiles
        register_headline()
        from . import checks, receivers  # noqa: F401
