from django.apps import AppConfig


class FormatsAppConfig(AppConfig):
    """The ecosystem's formats, both ways: Inspect AI eval logs and tasks, Hugging Face
    datasets. Family-blind: what a family adds to a question (its fields as a sample's
    metadata) comes through its registration (benchmarks_app.families)."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "formats_app"
    verbose_name = "Exports and imports in other formats"

    def ready(self):
        from . import receivers  # noqa: F401  (a report's file goes with its row)
