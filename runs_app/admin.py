from django.contrib import admin, messages
from django.urls import reverse
from django.utils.html import format_html

from kit.history_admin import HistoryAdminMixin

from . import connection
from .models import LLMModel


@admin.register(LLMModel)
class LLMModelAdmin(HistoryAdminMixin, admin.ModelAdmin):
    list_display = ["name", "litellm_model", "answer_mode", "choice_strategy", "temperature", "max_concurrency",
                    "requests_per_minute", "is_bundled", "is_external", "connection_tested"]
    list_filter = ["answer_mode", "is_bundled", "is_external"]
    search_fields = ["name", "litellm_model"]
    actions = ["test_connection"]
    readonly_fields = ["connection_findings"]
    fieldsets = [
        (None, {"fields": ["name", "litellm_model", "api_base", "notes"]}),
        ("Answers", {"fields": ["answer_mode", "choice_strategy", "top_logprobs", "temperature", "max_tokens",
                                "top_p", "seed", "timeout_seconds"]}),
        ("Limits and prices", {"fields": ["max_concurrency", "requests_per_minute", "input_cost_per_token",
                                          "output_cost_per_token"]}),
        ("Origin", {"fields": ["is_bundled", "is_external"]}),
        ("Connection", {"fields": ["connection_findings"]}),
    ]

    @admin.display(description="Connection tested")
    def connection_tested(self, model):
        return connection.checked_at_text(model) or "never"

    @admin.display(description="What Test connection found")
    def connection_findings(self, model):
        if model.pk is None:
            return "Save the model, then test its connection (the action on the models list, or the models page)."
        job = connection.job_view(model)
        text = (f"tested {job['checked_at']}" if job["checked_at"] else "never tested") + (
            f"; a test is {job['status']}" if job["active"] else "")
        return format_html('{}: <a href="{}">findings and Test connection</a>', text,
                           reverse("run-model-connection", args=[model.pk]))

    def response_add(self, request, obj, post_url_continue=None):
        """A model just registered: say where to find out what its server supports."""
        if not (obj.is_bundled or obj.is_external):
            self.message_user(request, format_html(
                'Before launching, <a href="{}">test its connection</a>: a few small requests find whether its '
                "server returns log-probabilities, takes guided choice or a grammar, echoes prompts for rank "
                "classification and heeds the temperature; the launch plan reads what it finds.",
                reverse("run-model-connection", args=[obj.pk])), messages.INFO)
        return super().response_add(request, obj, post_url_continue)

    @admin.action(description="Test connection (a worker sends a few small requests to each server)",
                  permissions=["change"])
    def test_connection(self, request, queryset):
        queued, refused = [], []
        for model in queryset:
            try:
                connection.request_connection_test(model)
            except connection.ConnectionTestRefused as exc:
                refused.append(str(exc))
            else:
                queued.append(model)
        if queued:
            links = format_html(", ".join('<a href="{}">{}</a>' for _ in queued),
                                *[part for model in queued
                                  for part in (reverse("run-model-connection", args=[model.pk]), model.name)])
            self.message_user(request, format_html("Connection test queued for {}; each page shows what it finds.",
                                                   links), messages.INFO)
        for reason in refused:
            self.message_user(request, f"Not tested: {reason}.", messages.WARNING)
