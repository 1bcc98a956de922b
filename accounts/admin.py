from django.contrib import admin, messages
from django.template.response import TemplateResponse

from kit.admin_tools import ReadOnlyAdminMixin

from . import api_tokens, history_log  # noqa: F401  history_log: the site-wide record's console page
from .models import ApiToken, Profile, SignInRecord


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """Tokens are made here for a user and shown once, on the page that follows *Save*;
    afterwards only their prefix is visible. Revoking keeps the row (who had which token)."""

    list_display = ["prefix", "name", "user", "created_at", "expires_at", "last_used_at", "revoked_at"]
    list_filter = [("revoked_at", admin.EmptyFieldListFilter)]
    search_fields = ["name", "prefix", "user__username"]
    actions = ["revoke"]

    def get_fields(self, request, obj=None):
        if obj is None:
            return ["user", "name"]
        return ["user", "name", "prefix", "created_at", "expires_at", "last_used_at", "revoked_at"]

    def get_readonly_fields(self, request, obj=None):
        return [] if obj is None else ["user", "prefix", "created_at", "expires_at", "last_used_at", "revoked_at"]

    def save_model(self, request, obj, form, change):
        if change:
            return super().save_model(request, obj, form, change)
        made = api_tokens.create_token(obj.user, obj.name)
        obj.pk, obj.prefix, obj.created_at = made.record.pk, made.record.prefix, made.record.created_at
        request._api_token_shown_once = made.token

    def response_add(self, request, obj, post_url_continue=None):
        # The token goes straight into this response: never into a message, a session or a
        # redirect, so no cookie or store ever holds it (admin pages are sent no-store).
        return TemplateResponse(request, "admin/accounts/apitoken/created.html", {
            **self.admin_site.each_context(request), "opts": self.opts, "title": "API token created",
            "record": obj, "token": request._api_token_shown_once})

    @admin.action(description="Revoke selected tokens", permissions=["change"])
    def revoke(self, request, queryset):
        revoked = api_tokens.revoke_tokens(queryset)
        self.message_user(request, f"{revoked} token(s) revoked; they no longer open the API.", messages.SUCCESS)


@admin.register(Profile)
class ProfileAdmin(admin.ModelAdmin):
    """The languages a person reads (issue 41: an author approves translations into them)."""

    list_display = ["user", "languages"]
    search_fields = ["user__username"]


@admin.register(SignInRecord)
class SignInRecordAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """Every sign-in, failed sign-in and API token use (accounts.sign_in_record), for the
    superusers only; read only, as the record of changes is."""

    list_display = ["at", "kind", "username", "address", "token_prefix", "detail"]
    list_filter = ["kind", ("at", admin.DateFieldListFilter)]
    search_fields = ["username", "address", "token_prefix"]
    date_hierarchy = "at"
    list_select_related = ["user", "token"]

    def has_view_permission(self, request, obj=None):
        return request.user.is_active and request.user.is_superuser
