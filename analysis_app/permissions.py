"""Who may read the analysts' pages and API: the pages every family shares (the models'
profiles, the comparison, the exports) need `analysis_app.view_dashboard` (on
`analysis_app.models.Dashboard`); a family's own dashboard and its API need the permission its
registration names (`families.Dashboard.permission`): `can_read(that permission)`. The
analysts role holds them all."""

from rest_framework import permissions


class CanReadDashboards(permissions.BasePermission):
    permission = "analysis_app.view_dashboard"

    def has_permission(self, request, view):
        return bool(request.user and request.user.is_authenticated and request.user.has_perm(self.permission))


def can_read(permission: str) -> type[CanReadDashboards]:
    """The API permission of a page that needs `permission` (a family's dashboard's)."""
    return type(f"CanRead_{permission.replace('.', '_')}", (CanReadDashboards,), {"permission": permission})
