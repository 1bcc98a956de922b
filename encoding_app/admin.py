from django.contrib import admin, messages

from kit.admin_tools import ReadOnlyAdminMixin

from . import audits, judges
from .models import Code, CodingPolicy, Judge, JudgeRequest, RuleStatus
from .services import CodingError


@admin.register(CodingPolicy)
class CodingPolicyAdmin(admin.ModelAdmin):
    """One row: the shares of double coding and audit, and the reviewers' lease."""

    list_display = ["__str__", "double_coding_share", "audit_share", "lease_minutes", "seed", "min_rule_accuracy",
                    "min_audited_items", "min_judge_items"]

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


@admin.register(RuleStatus)
class RuleStatusAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """Each rule's audited accuracy and whether it codes; re-enabling is the one change."""

    list_display = ["rule", "suspended", "audited", "correct", "lower", "upper", "suspended_at", "counted_from"]
    list_filter = ["suspended"]
    actions = ["reenable"]

    def has_change_permission(self, request, obj=None):
        # The action needs it; the form stays read-only (every field is read-only).
        return request.user.is_superuser

    def get_readonly_fields(self, request, obj=None):
        return [f.name for f in self.model._meta.fields]

    @admin.action(description="Re-enable the selected rules (their audit window starts again)", permissions=["change"])
    def reenable(self, request, queryset):
        for status in queryset:
            audits.reenable_rule(status.rule, request.user)
        self.message_user(request, f"{queryset.count()} rule(s) code again; re-run encode_responses to re-code "
                                   f"the answers they left to reviewers.", messages.SUCCESS)


@admin.register(Judge)
class JudgeAdmin(admin.ModelAdmin):
    """Judge models: promoted only with the audit page's evidence (the service refuses otherwise)."""

    list_display = ["model", "promoted", "promoted_at", "promoted_by", "demoted_at"]
    readonly_fields = ["model", "promoted", "promoted_at", "promoted_by", "demoted_at"]
    actions = ["promote", "demote"]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.action(description="Promote: the judge's readings become codes", permissions=["change"])
    def promote(self, request, queryset):
        for judge in queryset:
            try:
                agreement = judges.promote_judge(judge, request.user)
            except CodingError as error:
                self.message_user(request, str(error), messages.ERROR)
            else:
                self.message_user(request, f"judge {judge.model.name} promoted ({agreement.agree} of {agreement.n} "
                                           f"readings agreed with people)", messages.SUCCESS)

    @admin.action(description="Demote: its codes go back to the reviewers", permissions=["change"])
    def demote(self, request, queryset):
        for judge in queryset:
            count = judges.demote_judge(judge, request.user)
            self.message_user(request, f"judge {judge.model.name} demoted; {count} answers back with reviewers",
                              messages.SUCCESS)


@admin.register(JudgeRequest)
class JudgeRequestAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ["judge_response", "target_response", "judge", "reading", "code", "reading_rule", "read_at"]
    list_filter = ["judge", "reading_rule"]
    list_select_related = ["judge__model", "judge_response", "target_response"]
