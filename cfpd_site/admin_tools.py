"""Admin pieces shared by the apps."""


class ReadOnlyAdminMixin:
    """Rows that only a service writes (questions from expansion, codes from the coding
    service): listed and searchable in admin, never added, changed or deleted there."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
