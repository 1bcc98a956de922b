"""The authors' console for panels: the design (questions picked with the launch's selection
when saved), attention checks and profile questions inline, single-use links made as a CSV,
the open link and its cap, links withdrawn; one respondent's answers exported or deleted on
their request."""

from __future__ import annotations

import io
import json

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ActionForm
from django.db import models
from django.http import HttpResponse
from django.urls import reverse
from django.utils.html import format_html

from kit.csv_safety import SafeWriter
from kit.history_admin import HistoryAdminMixin

from . import services
from .models import AttentionCheck, Panel, ProfileQuestion, Respondent


class AttentionCheckForm(forms.ModelForm):
    class Meta:
        model = AttentionCheck
        fields = ["text", "options", "expected", "position"]

    def clean(self):
        cleaned = super().clean()
        if not self.errors:
            try:
                services.check_attention_check(AttentionCheck(text=cleaned.get("text") or "",
                                                              options=cleaned.get("options"),
                                                              expected=cleaned.get("expected") or 0))
            except services.PanelError as exc:
                raise forms.ValidationError(str(exc)) from None
        return cleaned


class AttentionCheckInline(admin.StackedInline):
    model = AttentionCheck
    form = AttentionCheckForm
    extra = 0


class ProfileQuestionInline(admin.TabularInline):
    model = ProfileQuestion
    extra = 0


def _https_urls(field, **kwargs):
    """A platform's completion URL typed without a scheme is read as https (Django 6's default)."""
    if isinstance(field, models.URLField):
        kwargs.setdefault("assume_scheme", "https")
    return field.formfield(**kwargs)


class PanelForm(forms.ModelForm):
    class Meta:
        model = Panel
        formfield_callback = _https_urls
        fields = ["name", "stands_for", "benchmark", "selection", "seed", "items_per_respondent", "ask_reason",
                  "consent_text", "closing_text", "completion_url", "completion_code", "open_cap"]

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("benchmark") is not None and "selection" not in self.errors:
            trial = Panel(benchmark=cleaned["benchmark"], selection=cleaned.get("selection") or {},
                          seed=cleaned.get("seed") or 0)
            try:
                services.read_selection(trial)
            except services.PanelError as exc:
                self.add_error("selection", str(exc))
        if bool(cleaned.get("completion_url")) != bool(cleaned.get("completion_code")):
            self.add_error("completion_code", "Give both the completion URL and its code, or neither.")
        return cleaned


class LinksActionForm(ActionForm):
    count = forms.IntegerField(min_value=1, max_value=services.MAX_LINKS, required=False, initial=10,
                               label="Links")


@admin.register(Panel)
class PanelAdmin(HistoryAdminMixin, admin.ModelAdmin):
    form = PanelForm
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}  # a platform's URL typed without one
    inlines = [AttentionCheckInline, ProfileQuestionInline]
    list_display = ["name", "stands_for", "benchmark", "question_count", "respondent_count", "results"]
    readonly_fields = ["open_link", "question_count"]
    action_form = LinksActionForm
    actions = ["make_links"]

    @admin.display(description="questions")
    def question_count(self, panel):
        return panel.panel_questions.count() if panel.pk else 0

    @admin.display(description="links")
    def respondent_count(self, panel):
        return panel.respondents.count()

    @admin.display(description="results")
    def results(self, panel):
        return format_html('<a href="{}">panel page</a>', reverse("panels_app:panel", args=[panel.pk]))

    @admin.display(description="open link")
    def open_link(self, panel):
        if not panel.open_token:
            return "none (give a cap to open one)"
        return reverse("panels_app:join", args=[panel.open_token])

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        panel = form.instance
        if not change or {"benchmark", "selection", "seed"} & set(form.changed_data):
            try:
                found = services.pick_questions(panel)
                messages.info(request, f"{len(found)} question(s) picked for {panel.name}.")
            except services.PanelError as exc:
                messages.warning(request, str(exc))
        if panel.open_cap:
            services.open_link(panel, panel.open_cap)

    @admin.action(description="Make single-use links (CSV of their URLs)")
    def make_links(self, request, queryset):
        count = request.POST.get("count") or "10"
        if not count.isdigit() or not 1 <= int(count) <= services.MAX_LINKS:
            self.message_user(request, f"Links: give a whole number from 1 to {services.MAX_LINKS:,}.",
                              messages.ERROR)
            return None
        out = io.StringIO()
        writer = SafeWriter(out)
        writer.writerow(["panel", "url"])
        try:
            for panel in queryset:
                for url in services.make_links_for(panel, int(count), request.build_absolute_uri("/")):
                    writer.writerow([panel.name, url])
        except services.PanelError as exc:
            self.message_user(request, str(exc), messages.ERROR)
            return None
        response = HttpResponse(out.getvalue(), content_type="text/csv")
        response["Content-Disposition"] = 'attachment; filename="panel-links.csv"'
        return response


@admin.register(Respondent)
class RespondentAdmin(admin.ModelAdmin):
    list_display = ["id", "panel", "external_id", "via_open_link", "consented_at", "finished_at", "failed_checks",
                    "withdrawn_at"]
    list_filter = ["panel", "via_open_link"]
    fields = ["panel", "via_open_link", "number", "profile", "consented_at", "finished_at", "failed_checks",
              "withdrawn_at"]
    readonly_fields = fields
    actions = ["withdraw_links", "export_answers", "erase_answers"]

    def has_add_permission(self, request):
        return False

    @admin.action(description="Withdraw the chosen links", permissions=["change"])
    def withdraw_links(self, request, queryset):
        withdrawn = sum(services.withdraw(respondent) for respondent in queryset)
        self.message_user(request, f"{withdrawn} link(s) withdrawn.")

    @admin.action(description="Export the chosen respondents' answers (JSON)", permissions=["view"])
    def export_answers(self, request, queryset):
        found = [services.respondent_export(r) for r in queryset.select_related("panel").order_by("pk")]
        response = HttpResponse(json.dumps(found, indent=1, ensure_ascii=False), content_type="application/json")
        response["Content-Disposition"] = 'attachment; filename="respondent-answers.json"'
        return response

    @admin.action(description="Delete the chosen respondents' answers and profile (on their request)",
                  permissions=["change"])
    def erase_answers(self, request, queryset):
        chosen = list(queryset)
        deleted = sum(services.erase_respondent(r) for r in chosen)
        self.message_user(request, f"{deleted} answer(s) of {len(chosen)} respondent(s) deleted; their links are "
                                   "closed and the panel's figures no longer count them.")
