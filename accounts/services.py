"""Users and roles: the one place that creates groups and puts people in them.

Console access follows the roles: a user's staff flag (Django's "may open /admin/") is
on exactly when the user is a superuser or a member of a role group. `sync_console_access`
sets it; the signals in accounts.signals call it whenever a user's groups change or a
user is saved, so the console, `add_user`, `create_admin`, the shell and any API that
adds a user to a group all give the same access.
"""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.db import transaction
from django.db.models import Exists, OuterRef, Q

from .roles import ROLES, role_permissions


class RoleError(ValueError):
    pass


def sync_roles():
    """Create the role groups and set exactly their permissions (idempotent); then give
    console access to role members made before roles gave it."""
    # Every permission named by a role, read once (one query a name cost a quarter of a second).
    permissions = role_permissions()
    named = {name for names in permissions.values() for name in names}
    codenames = {name.split(".")[1] for name in named}
    found = {}
    for permission in Permission.objects.filter(codename__in=codenames).select_related("content_type"):
        found.setdefault(f"{permission.content_type.app_label}.{permission.codename}", permission)
    for role, names in permissions.items():
        group, _ = Group.objects.get_or_create(name=role)
        group.permissions.set([found[name] for name in names if name in found])
    # Only upwards here: a staff user without a role made by hand before this rule keeps
    # the flag until their groups next change.
    _with_role(get_user_model().objects.filter(is_staff=False)).update(is_staff=True)


def _role_member():
    users = get_user_model()
    return Exists(users.groups.through.objects.filter(user_id=OuterRef("pk"), group__name__in=ROLES))


def _with_role(users):
    return users.filter(Q(is_superuser=True) | _role_member())


def sync_console_access(user_ids) -> int:
    """Set the staff flag of these users to (superuser or member of a role). Returns how
    many users changed. Bulk updates: no save signals, so it never recurses."""
    users = get_user_model().objects.filter(pk__in=list(user_ids))
    granted = _with_role(users.filter(is_staff=False)).update(is_staff=True)
    revoked = users.filter(is_staff=True, is_superuser=False).exclude(_role_member()).update(is_staff=False)
    return granted + revoked


@transaction.atomic
def create_user_with_role(username, password, role=None, email="", superuser=False, update=False):
    """Create (or with `update`, reset) a user, in `role` if given; every role and
    superusers get console access."""
    if role is not None and role not in ROLES:
        raise RoleError(f"role {role!r} is not one of {', '.join(ROLES)}")
    users = get_user_model()
    user = users.objects.filter(username=username).first()
    if user is not None and not update:
        return user, False
    created = user is None
    if created:
        user = users(username=username, email=email)
    user.set_password(password)
    user.is_superuser = user.is_superuser or superuser
    user.save()
    if role is not None:
        group = Group.objects.filter(name=role).first()
        if group is None:  # the roles not made yet (every migrate makes them: accounts.apps)
            sync_roles()
            group = Group.objects.get(name=role)
        user.groups.add(group)
    sync_console_access([user.pk])
    user.refresh_from_db(fields=["is_staff"])
    return user, created


@transaction.atomic
def set_roles_from_provider(user, roles: set[str]):
    """A person signed on (accounts.sso): their roles made exactly `roles` (the roles their
    provider's groups map to), other groups kept, console access in step. The record of
    changes (auditlog) shows each role given or taken."""
    unknown = set(roles) - set(ROLES)
    if unknown:
        raise RoleError(f"not roles: {', '.join(sorted(unknown))}")
    if not Group.objects.filter(name__in=ROLES).exists():
        sync_roles()
    current = set(user.groups.filter(name__in=ROLES).values_list("name", flat=True))
    if current - roles:
        user.groups.remove(*Group.objects.filter(name__in=current - roles))
    if roles - current:
        user.groups.add(*Group.objects.filter(name__in=roles - current))
    sync_console_access([user.pk])
