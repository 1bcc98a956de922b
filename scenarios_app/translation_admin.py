"""The authors' console for a model's drafts of translations (issue 41): the form that asks
for one ("Draft with a model": the scenario, the language, the model and the
back-translation model), each draft's status and progress while a worker runs it, and the
side-by-side table of source, translation, back-translation and scores shown on a draft's
and a translation's page; and actors' names per language with their grammatical forms. Nothing here calls a model: the worker does (`drafting`)."""

from __future__ import annotations

import re

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html

from analysis_app.translation_quality import BERTSCORE_THRESHOLD, CHRF_THRESHOLD
from benchmarks_app.language_codes import SOURCE_LANGUAGE, stored_forms
from kit.admin_tools import ReadOnlyAdminMixin
from runs_app.models import LLMModel

from . import drafting, translations
from .models import ActorNameTranslation, Scenario, TranslationDraft
from .naming import format_forms, parse_forms


def may_draft(user) -> bool:
    return user.has_perm("scenarios_app.change_scenario")  # authors


class DraftForm(forms.Form):
    scenario = forms.ModelChoiceField(
        queryset=Scenario.objects.filter(is_current=True).select_related("benchmark").order_by("benchmark__name",
                                                                                               "key"),
        help_text="The scenario's current version is translated: its template and option texts.")
    language = forms.CharField(max_length=35, help_text="BCP 47 code of the translation, e.g. zh, ru, ar.")
    model = forms.ModelChoiceField(queryset=LLMModel.objects.filter(is_external=False).order_by("name"),
                                   help_text="The model that drafts the translation.")
    back_model = forms.ModelChoiceField(queryset=LLMModel.objects.filter(is_external=False).order_by("name"),
                                        label="Back-translation model",
                                        help_text=f"The model that translates the draft back into {SOURCE_LANGUAGE}, "
                                                  "to score each item against its source.")


def draft_view(model_admin, request):
    """GET: the form; POST: the draft queued for a worker, and its page."""
    if not may_draft(request.user):
        raise PermissionDenied
    initial = {}
    if request.method == "GET":
        scenario_id = request.GET.get("scenario", "")
        # A prefill only: a value no id can be (not digits, or past 64 bits) is ignored.
        if re.fullmatch(r"[0-9]{1,18}", scenario_id) and Scenario.objects.filter(pk=scenario_id,
                                                                                 is_current=True).exists():
            initial["scenario"] = int(scenario_id)
        reads = [code for code in translations.languages_of(request.user) if code != SOURCE_LANGUAGE]
        initial["language"] = request.GET.get("language", "")[:35] or (reads[0] if reads else "")
    form = DraftForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            draft = drafting.request_draft(data["scenario"], data["language"].strip(), data["model"],
                                           data["back_model"], requested_by=request.user)
        except drafting.DraftRefused as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"Asked {data['model'].name} for a draft of {data['scenario']} in "
                                      f"{draft.language}; a worker runs it (this page follows it).")
            return redirect(reverse("admin:scenarios_app_translationdraft_change", args=[draft.pk]))
    context = {**model_admin.admin_site.each_context(request), "opts": model_admin.model._meta, "form": form,
               "title": "Draft a translation with a model"}
    return TemplateResponse(request, "admin/scenarios_app/scenariotranslation/draft.html", context)


def side_by_side(scenario, language: str, fields: dict, back_translation: dict, scores: dict) -> str:
    """The table of each item: its source, its translation, the back-translation, chrF and
    BERTScore, and the drift flag."""
    source = translations.source_fields(scenario)
    rows = [{"field": field, "source": text, "translation": fields.get(field, ""),
             "back": back_translation.get(field, ""), "score": scores.get(field)} for field, text in source.items()]
    return render_to_string("admin/scenarios_app/scenariotranslation/side_by_side.html", {
        "rows": rows, "language": language, "source_language": SOURCE_LANGUAGE, "scored": bool(scores),
        "chrf_threshold": CHRF_THRESHOLD, "bertscore_threshold": BERTSCORE_THRESHOLD,
        "drifted": sum(1 for s in scores.values() if s.get("drifted"))})


@admin.register(TranslationDraft)
class TranslationDraftAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """Each draft a model was asked for: waiting, running (its step and progress), done
    (its translation, waiting for approval), refused (which slot and where) or failed."""

    list_display = ["scenario", "language", "model", "back_model", "status", "progress", "requested_by",
                    "requested_at"]
    list_filter = ["status", "language"]
    search_fields = ["scenario__key"]

    class Media:
        css = {"all": ["css/translations.css"]}
    fields = readonly_fields = ["scenario", "language", "model", "back_model", "status", "progress", "reason",
                                "translation_link", "items", "prompt_shown", "requested_by", "requested_at",
                                "started_at", "finished_at"]

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("scenario", "model", "back_model", "requested_by")

    @admin.display(description="Progress")
    def progress(self, draft):
        text = f"{draft.done} of {draft.total} calls"
        return f"{text} · {draft.step}" if draft.step else text

    @admin.display(description="Translation")
    def translation_link(self, draft):
        if draft.translation_id is None:
            return "—"
        return format_html('<a href="{}">{}</a> ({})', reverse("admin:scenarios_app_scenariotranslation_change",
                                                              args=[draft.translation_id]),
                           draft.translation, draft.translation.get_status_display())

    @admin.display(description="Side by side")
    def items(self, draft):
        return side_by_side(draft.scenario, draft.language, draft.fields, draft.back_translation, draft.scores)

    @admin.display(description="Prompt (template)")
    def prompt_shown(self, draft):
        return format_html('<pre class="prompt">{}</pre>', draft.prompts.get("template", "")) if draft.prompts else "—"


class ActorNameForm(forms.ModelForm):
    """An actor's translated name and its grammatical forms, typed `genitive=России;
    dative=России` and checked against the forms its language has."""

    forms_text = forms.CharField(label="Forms", required=False, widget=forms.Textarea(attrs={"rows": 3, "cols": 60}))

    class Meta:
        model = ActorNameTranslation
        fields = ["name"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        language = self.instance.language
        allowed = stored_forms(language)
        self.fields["forms_text"].initial = format_forms(self.instance.forms or {}, allowed)
        self.fields["forms_text"].help_text = (
            f"form=text, separated by ; (e.g. {allowed[0]}=…). The forms of names in "
            f"{language}: {', '.join(allowed)}. A translation asks for one as [Actor A:{allowed[0]}]." if allowed
            else f"{language} names actors in one form only: leave this empty.")

    def clean(self):
        cleaned = super().clean()
        try:
            cleaned["forms"] = translations.check_forms(self.instance.language,
                                                        parse_forms(cleaned.get("forms_text", "")))
        except ValueError as exc:  # TranslationError is one
            self.add_error("forms_text", str(exc))
        return cleaned


@admin.register(ActorNameTranslation)
class ActorNameTranslationAdmin(admin.ModelAdmin):
    """Actors' names per language: read by everyone who reads scenarios; the name and its
    forms edited by authors (through `translations.set_actor_name`, which asks the dyads
    that waited for them)."""

    form = ActorNameForm
    list_display = ["actor", "language", "name", "forms_shown", "provenance", "translated_at"]
    list_filter = ["language"]
    search_fields = ["actor__code", "name"]
    fields = ["actor", "language", "name", "forms_text", "provenance", "translated_by", "translated_at"]
    readonly_fields = ["actor", "language", "provenance", "translated_by", "translated_at"]

    def has_add_permission(self, request):
        return False  # a name is added with import_translations or the demo's fixture

    def has_delete_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return may_draft(request.user)  # authors

    @admin.display(description="Forms")
    def forms_shown(self, obj):
        return format_forms(obj.forms, stored_forms(obj.language)) or "—"

    def save_model(self, request, obj, form, change):
        translations.set_actor_name(obj.actor, obj.language, form.cleaned_data["name"],
                                    forms=form.cleaned_data["forms"], translated_by=request.user, provenance="person")
