"""Users and roles: the one place that creates groups and puts people in them."""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.db import transaction

from .roles import ROLE_PERMISSIONS, ROLES, STAFF_ROLES


class RoleError(ValueError):
    pass


def sync_roles():
    """Create the role groups and set exactly their permissions (idempotent)."""
    for role, names in ROLE_PERMISSIONS.items():
        group, _ = Group.objects.get_or_create(name=role)
        wanted = []
        for name in names:
            app_label, codename = name.split(".")
            permission = Permission.objects.filter(content_type__app_label=app_label, codename=codename).first()
            if permission is not None:
                wanted.append(permission)
        group.permissions.set(wanted)


@transaction.atomic
def create_user_with_role(username, password, role=None, email="", superuser=False, update=False):
    """Create (or with `update`, reset) a user; authors and superusers get admin access."""
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
    user.is_staff = user.is_staff or superuser or role in STAFF_ROLES
    user.save()
    if role is not None:
        sync_roles()
        user.groups.add(Group.objects.get(name=role))
    return user, created

