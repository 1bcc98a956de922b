"""Keep console access in step with the roles, however a user or a group changes
(the console's user page, `add_user`, the shell, an API): see
accounts.services.sync_console_access."""

from django.contrib.auth import get_user_model

from .roles import ROLES
from .services import sync_console_access

# The fields whose change can change console access; a save that names neither (a
# sign-in writes only last_login) needs no check.
_ACCESS_FIELDS = {"is_staff", "is_superuser"}


def user_saved(sender, instance, created, update_fields=None, raw=False, **kwargs):
    if raw or (update_fields is not None and not _ACCESS_FIELDS & set(update_fields)):
        return
    if sync_console_access([instance.pk]):
        instance.refresh_from_db(fields=["is_staff"])


def groups_changed(sender, instance, action, reverse, pk_set, **kwargs):
    """m2m_changed on User.groups: `user.groups.add(...)` (reverse False: instance is the
    user) or `group.user_set.add(...)` (reverse True: instance is the group)."""
    if not reverse:
        if action in ("post_add", "post_remove", "post_clear") and sync_console_access([instance.pk]):
            instance.refresh_from_db(fields=["is_staff"])
        return
    if instance.name not in ROLES:
        return
    if action == "pre_clear":  # the members are gone by post_clear; note them now
        instance._cleared_user_ids = list(instance.user_set.values_list("pk", flat=True))
    elif action == "post_clear":
        sync_console_access(getattr(instance, "_cleared_user_ids", []))
    elif action in ("post_add", "post_remove"):
        sync_console_access(pk_set or [])


def connect():
    from django.db.models.signals import m2m_changed, post_save

    users = get_user_model()
    post_save.connect(user_saved, sender=users, dispatch_uid="accounts.console_access.user_saved")
    m2m_changed.connect(groups_changed, sender=users.groups.through, dispatch_uid="accounts.console_access.groups")
