from django.apps import AppConfig


class ScenariosAppConfig(AppConfig):
    default_auto_field = 'django.db.models.BigAutoField'
    name = 'scenarios_app'
    verbose_name = "Authoring"

    def ready(self):
        from benchmarks_app import families

        from .family import CFPD

        families.register(CFPD)
        from .headline import register_headline  # its figures on the models' profiles
        register_headline()
