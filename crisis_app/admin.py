"""The authoring console for free-form crisis simulations: a simulation with its move-2
continuations and its variants inline, checked as one submission (a variant is checked
against the texts as edited in the same form), its questions synced on save, and a
preview of every variant's conversation. Scorers and group scores are read-only here:
services write them."""

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join

from kit.admin_tools import GuardedIdsMixin, ReadOnlyAdminMixin
from kit.history_admin import HistoryAdminMixin

from . import preview, services, translation_texts
from .models import TEXT_FIELDS, Continuation, GroupScore, Scorer, Simulation, SimulationTranslation, Variant

JSON_WIDGET = forms.Textarea(attrs={"rows": 3, "cols": 48, "class": "vLargeTextField"})


class SimulationForm(forms.ModelForm):
    class Meta:
        model = Simulation
        fields = "__all__"

    def clean_ranked_options(self):
        options = self.cleaned_data.get("ranked_options")
        if options in (None, ""):
            return []
        if not isinstance(options, list) or not all(isinstance(o, str) and o.strip() for o in options):
            raise ValidationError('Write the ranked options as a list of texts: ["Board the ship …", '
                                  '"Protest …"], or [] for none.')
        if len(set(options)) != len(options):
            raise ValidationError("Two ranked options are the same text: each option once.")
        return options


def _living_forms(formset):
    return [form for form in formset.forms
            if form.is_valid() and form.cleaned_data and not form.cleaned_data.get("DELETE")]


class ContinuationFormSet(forms.BaseInlineFormSet):
    """The continuations as submitted, which the variants are checked against. (Deleting
    one with questions is refused by admin itself: the questions are PROTECTed.)"""


class VariantFormSet(forms.BaseInlineFormSet):
    """Each variant is checked against the simulation's texts as submitted: the model's
    clean reads `simulation.texts()`, so the simulation being edited answers it with the
    submitted texts and continuations (an unsaved simulation has none to query)."""

    continuation_formset = None

    def full_clean(self):
        if not self.is_bound:
            return super().full_clean()
        texts = {name: getattr(self.instance, name) or "" for name in TEXT_FIELDS}
        if self.continuation_formset is not None and self.continuation_formset.is_bound:
            texts.update({f"continuation:{form.cleaned_data['name']}": form.cleaned_data.get("text") or ""
                          for form in _living_forms(self.continuation_formset)
                          if form.cleaned_data.get("name")})
        else:
            texts = self.instance.texts() if self.instance.pk else texts
        self.instance.texts = lambda: dict(texts)
        super().full_clean()


class ContinuationInline(admin.StackedInline):
    model = Continuation
    formset = ContinuationFormSet
    extra = 0
    fields = [("name", "label", "position"), "text"]


class VariantInline(admin.StackedInline):
    model = Variant
    formset = VariantFormSet
    extra = 0
    fields = [("name", "label", "position"), ("level", "ablation", "explicit", "answer_kind"), "replacements",
              "text_overrides"]

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        if db_field.name in ("replacements", "text_overrides"):
            kwargs["widget"] = JSON_WIDGET
        return super().formfield_for_dbfield(db_field, request, **kwargs)


@admin.register(Simulation)
class SimulationAdmin(HistoryAdminMixin, GuardedIdsMixin, admin.ModelAdmin):
    form = SimulationForm
    list_display = ["key", "title", "benchmark", "variant_count", "continuation_count", "preview_link"]
    list_filter = ["benchmark"]
    search_fields = ["key", "title"]
    inlines = [ContinuationInline, VariantInline]
    fieldsets = [
        (None, {"fields": ["benchmark", "key", "title"]}),
        ("Texts (placeholders such as {PLAYER} are filled by each variant's map)",
         {"fields": ["role", "background", "move1_incident", "answer_format", ("scored_section", "section_end")]}),
        ("Ranked options (for variants whose answer kind is ranked)", {"fields": ["ranked_options"]}),
    ]
    change_form_template = "admin/crisis_app/simulation/change_form.html"

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        if db_field.name == "ranked_options":
            kwargs["widget"] = forms.Textarea(attrs={"rows": 5, "cols": 90, "class": "vLargeTextField"})
        elif db_field.name in TEXT_FIELDS:
            kwargs["widget"] = forms.Textarea(attrs={"rows": 5, "cols": 90, "class": "vLargeTextField"})
        return super().formfield_for_dbfield(db_field, request, **kwargs)

    @admin.display(description="Variants")
    def variant_count(self, simulation):
        return simulation.variants.count()

    @admin.display(description="Continuations")
    def continuation_count(self, simulation):
        return simulation.continuations.count()

    @admin.display(description="Preview")
    def preview_link(self, simulation):
        return format_html('<a href="{}">Conversations</a>',
                           reverse("admin:crisis_app_simulation_preview", args=[simulation.pk]))

    def _create_formsets(self, request, obj, change):
        formsets, inlines = super()._create_formsets(request, obj, change)
        continuations = next((f for f in formsets if isinstance(f, ContinuationFormSet)), None)
        for formset in formsets:
            if isinstance(formset, VariantFormSet):
                formset.continuation_formset = continuations
        return formsets, inlines

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        simulation = form.instance
        simulation.__dict__.pop("texts", None)  # saved now: read the texts back from the database
        result = services.sync_questions(simulation)
        messages.info(request, f"Questions synced: {result.created} created, {result.updated} updated, "
                               f"{result.retired} retired, {result.unchanged} unchanged.")

    def get_urls(self):
        return [
            path("<int:pk>/preview/", self.admin_site.admin_view(self.preview_view),
                 name="crisis_app_simulation_preview"),
        ] + super().get_urls()

    def preview_view(self, request, pk):
        simulation = get_object_or_404(Simulation, pk=pk)
        if not self.has_view_or_change_permission(request, simulation):
            raise PermissionDenied
        texts = simulation.texts()
        continuations = [c.name for c in simulation.continuations.all()]
        variants = [(variant, preview.variant_preview(
            variant.name, texts, continuations, variant.replacements, variant.text_overrides, variant.answer_kind,
            simulation.ranked_options)) for variant in simulation.variants.all()]
        context = {**self.admin_site.each_context(request), "opts": self.model._meta, "original": simulation,
                   "simulation": simulation, "variants": variants, "title": f"Conversations of {simulation.title}"}
        return TemplateResponse(request, "admin/crisis_app/simulation/preview.html", context)


@admin.register(Scorer)
class ScorerAdmin(GuardedIdsMixin, ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ["name", "kind", "created_at", "failed_check", "check_failed_at"]
    readonly_fields = ["name", "kind", "config", "created_at", "failed_check", "check_failed_at", "check_problem"]


@admin.register(GroupScore)
class GroupScoreAdmin(GuardedIdsMixin, ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ["question", "model", "condition", "scorer", "n_samples", "mean", "sections_missing", "run"]
    list_filter = ["scorer", "model", "condition"]
    list_select_related = ["question", "model", "condition", "scorer", "run"]
    search_fields = ["question__key"]


@admin.register(SimulationTranslation)
class SimulationTranslationAdmin(GuardedIdsMixin, ReadOnlyAdminMixin, admin.ModelAdmin):
    """Simulations' translations (issue 41), arriving through `import_simulation_translations`;
    an author who reads the language approves them here, beside their source."""

    list_display = ["simulation", "language", "status", "up_to_date", "provenance", "translated_at", "approved_by"]
    list_filter = ["language", "status"]
    fields = readonly_fields = ["simulation", "language", "side_by_side", "status", "up_to_date", "provenance",
                                "translated_by", "translated_at", "approved_by", "approved_at"]
    actions = ["approve_selected"]

    @admin.display(boolean=True, description="Up to date")
    def up_to_date(self, obj):
        return not translation_texts.is_out_of_date(obj)

    @admin.display(description="Source and translation")
    def side_by_side(self, obj):
        rows = format_html_join("", "<tr><th>{}</th><td>{}</td><td>{}</td></tr>",
                                ((name, text, obj.texts.get(name, "—")) for name, text in obj.simulation.texts().items()))
        return format_html("<table><thead><tr><th>Text</th><th>Source</th><th>Translation ({})</th></tr></thead>"
                           "<tbody>{}</tbody></table>", obj.language, rows)

    def has_approve_permission(self, request):
        return request.user.has_perm("crisis_app.change_simulation")  # authors

    @admin.action(description="Approve selected translations (your profile must list their language)",
                  permissions=["approve"])
    def approve_selected(self, request, queryset):
        approved = 0
        for translation in queryset.select_related("simulation"):
            try:
                translation_texts.approve_translation(translation, request.user)
            except translation_texts.TranslationError as exc:
                messages.error(request, str(exc))
                continue
            approved += 1
        if approved:
            messages.success(request, f"Approved {approved} translation(s).")
