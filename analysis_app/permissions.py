"""Who may read the analysts' pages and API, for every family: the analysts role
(`analysis_app.view_dashboard`, on `analysis_app.models.Dashboard`)."""

from rest_framework import permissions


class CanReadDashboards(permissions.BasePermission):
    def has_permission(self, request, view):
        return bool(request.user and request.user.is_authenticated
                    and request.user.has_perm("analysis_app.view_dashboard"))
