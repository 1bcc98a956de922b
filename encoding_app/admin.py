from django.contrib import admin

from cfpd_site.admin_tools import ReadOnlyAdminMixin

from .models import Code, CodingPolicy


@admin.register(CodingPolicy)
class CodingPolicyAdmin(admin.ModelAdmin):
    """One row: the shares of double coding and audit, and the reviewers' lease."""

    list_display = ["__str__", "double_coding_share", "audit_share", "lease_minutes", "seed"]

    def has_add_permission(self, request):
        return not CodingPolicy.objects.exists() and super().has_add_permission(request)

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Code)
class CodeAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """The history of codes, read-only: codes change only through the coding service."""

    list_display = ["response", "code", "source", "rule", "coder", "is_current", "undone_at", "created_at"]
    list_filter = ["source", "is_current", "rule"]
    search_fields = ["response__question__key", "coder__username", "note"]
    list_select_related = ["response", "coder"]
