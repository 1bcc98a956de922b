from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _sync_roles(sender, **kwargs):
    from .services import sync_roles

    sync_roles()


class AccountsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "accounts"
    verbose_name = "Accounts and roles"

    def ready(self):
        # After every migrate, when all apps' permissions exist.
        post_migrate.connect(_sync_roles, dispatch_uid="accounts.sync_roles")
        from . import signals

        signals.connect()  # console access follows the roles (accounts.services)
        from .history_log import quiet_sign_ins

        quiet_sign_ins()  # a sign-in is not a change in the record
        # The users' and roles' console pages replace django.contrib.auth's, which the
        # admin's autodiscovery (an earlier app) has registered by now.
        from . import user_admin  # noqa: F401
