from django.apps import AppConfig


class PanelsAppConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "panels_app"
    verbose_name = "Panels of people"

    def ready(self):
        # People's answers reach the dashboards, the explorer and the exports through the
        # neutral hook, which may not import this room (docs/architecture.md, "Panels of people").
        from analysis_app import people

        from .people_source import SOURCE

        people.register(SOURCE)
