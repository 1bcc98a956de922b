from django.apps import AppConfig


class TerritoriesAppConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "territories_app"
    verbose_name = "Territorial disputes (BorderLines)"

    def ready(self):
        from benchmarks_app import families

        from .family import BORDERLINES

        families.register(BORDERLINES)
        from .headline import register_headline  # its figures on the models' profiles
        register_headline()
