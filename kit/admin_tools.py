"""Admin pieces shared by the apps."""

from kit.params import MAX_INT


class GuardedIdsMixin:
    """An object id beyond 64 bits (or not a number) is "no such object". An integer
    primary key's lookup says so by itself; a one-to-one key's lookup (a family's detail
    of a question) overflows the database's integer instead."""

    def get_object(self, request, object_id, from_field=None):
        try:
            if not 0 < int(object_id) <= MAX_INT:
                return None
        except (TypeError, ValueError):
            return None
        return super().get_object(request, object_id, from_field)


class ReadOnlyAdminMixin:
    """Rows that only a service writes (questions from expansion, codes from the coding
    service): listed and searchable in admin, never added, changed or deleted there."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
