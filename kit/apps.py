from django.apps import AppConfig


class KitConfig(AppConfig):
    """The helpers every room shares; its one table holds the files the processes pass to
    each other when no object storage is configured (kit.file_store)."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "kit"
    verbose_name = "Shared helpers"

    def ready(self):
        from kit.history_admin import leave_reverse_relations_out

        leave_reverse_relations_out()
