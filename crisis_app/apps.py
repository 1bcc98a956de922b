from django.apps import AppConfig


class CrisisAppConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "crisis_app"
    verbose_name = "Free-form crisis simulations"

    def ready(self):
        from analysis_app import computed
        from benchmarks_app import families

        from .family import FREEFORM

        families.register(FREEFORM)
        # One BERTScore preset's validation: loads its encoder (seconds, GBs of memory), on first use only;
        # a failed one marks the stored scorer of that preset (validation_record).
        computed.register("crisis-validation", "crisis_app.validation_record:validate_and_record")
        from .headline import register_headline  # its figures on the models' profiles
        register_headline()
        from . import checks, receivers  # noqa: F401
