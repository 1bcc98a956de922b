"""The console's pages for users and roles: roles are ticked on the user's page (also when
the user is made), each with what it gives, and console access is shown as what it is,
a consequence of the roles (accounts.services.sync_console_access), not a box to tick."""

from django import forms
from django.contrib import admin
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group, User
from django.utils.translation import gettext_lazy as _

from kit.history_admin import HistoryAdminMixin

from .roles import ROLES, role_descriptions

ROLES_HELP = ("A role is all a person needs: every role opens the console (/admin/), which shows each member only "
              "what the role allows, and the site's pages for it. Superusers may do everything.")


class RoleChoiceField(forms.ModelMultipleChoiceField):
    widget = forms.CheckboxSelectMultiple

    def label_from_instance(self, group):
        description = role_descriptions().get(group.name)
        return f"{group.name}: {description}" if description else group.name


def console_access_text(user) -> str:
    if user is None or user.pk is None:
        return "given by the roles you tick"
    if user.is_superuser:
        return "yes (superuser)"
    roles = sorted(user.groups.filter(name__in=ROLES).values_list("name", flat=True))
    if roles:
        return f"yes, as a member of {', '.join(roles)}"
    return "no: tick a role to open the console"


admin.site.unregister(User)
admin.site.unregister(Group)


@admin.register(User)
class RoleUserAdmin(HistoryAdminMixin, UserAdmin):
    fieldsets = (
        (None, {"fields": ("username", "password")}),
        (_("Personal info"), {"fields": ("first_name", "last_name", "email")}),
        ("Roles and access", {"fields": ("groups", "console_access", "is_active", "is_superuser",
                                         "user_permissions")}),
        (_("Important dates"), {"fields": ("last_login", "date_joined")}),
    )
    add_fieldsets = (
        (None, {"classes": ("wide",), "fields": ("username", "usable_password", "password1", "password2", "groups")}),
    )
    readonly_fields = ("console_access",)
    filter_horizontal = ("user_permissions",)
    list_display = ("username", "email", "roles", "is_superuser", "is_active", "last_login")
    list_filter = ("groups", "is_superuser", "is_active")

    class Media:
        css = {"all": ["css/admin_roles.css"]}

    def formfield_for_manytomany(self, db_field, request=None, **kwargs):
        if db_field.name == "groups":
            kwargs["form_class"] = RoleChoiceField
            kwargs["label"] = "Roles"
            kwargs["help_text"] = ROLES_HELP
            kwargs.setdefault("queryset", Group.objects.order_by("name"))
        return super().formfield_for_manytomany(db_field, request=request, **kwargs)

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        field = super().formfield_for_dbfield(db_field, request, **kwargs)
        if db_field.name == "groups":
            # No "add another group" link beside the roles: migrate makes the roles, and
            # the link's wrapper squeezed their descriptions into a narrow column.
            field.widget = getattr(field.widget, "widget", field.widget)
        return field

    @admin.display(description="Console access")
    def console_access(self, user):
        return console_access_text(user)

    @admin.display(description="Roles")
    def roles(self, user):
        return ", ".join(sorted(group.name for group in user.groups.all())) or "none"

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("groups")


@admin.register(Group)
class RoleGroupAdmin(GroupAdmin):
    list_display = ("name", "gives")
    readonly_fields = ("gives",)
    fields = ("name", "gives", "permissions")

    @admin.display(description="What the role gives")
    def gives(self, group):
        return role_descriptions().get(group.name, "not a role of CFPD Workbench: members get only these permissions, "
                                                 "and no console access unless they also hold a role")
