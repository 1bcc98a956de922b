from django.apps import AppConfig
from django.core import checks
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
        from . import sign_in_record

        sign_in_record.connect()  # every sign-in and failed sign-in into SignInRecord
        from .history_log import quiet_sign_ins

        quiet_sign_ins()  # a sign-in is not a change in the record
        # The users' and roles' console pages replace django.contrib.auth's, which the
        # admin's autodiscovery (an earlier app) has registered by now.
        from . import two_factor_admin, user_admin  # noqa: F401

        checks.register(_sign_on_settings, checks.Tags.security)


def _sign_on_settings(app_configs=None, **kwargs):
    """CFPD_OIDC_ROLE_MAP names only the product's roles."""
    from django.conf import settings

    from .roles import ROLES

    return [checks.Error(f"CFPD_OIDC_ROLE_MAP: {group!r}={role!r} does not name a role",
                         hint=f"provider-group=role, a role among {', '.join(ROLES)}", id="accounts.E001")
            for group, role in settings.CFPD_OIDC_ROLE_MAP.items() if role not in ROLES or not group]
