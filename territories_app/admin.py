"""The authoring console for territorial disputes: territories with their claimants in
order, languages with their templates, countries and term translations; a territory's
page previews its whole query set. Saving a territory re-syncs its questions; saving a
language or a term translation, the benchmark's."""

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.template.loader import render_to_string

from kit.admin_tools import GuardedIdsMixin
from kit.history_admin import HistoryAdminMixin

from . import services
from .models import BorderlinesTable, Claimant, Country, Language, TermTranslation, Territory, TerritoryQuestion


class ClaimantFormSet(forms.BaseInlineFormSet):
    def clean(self):
        super().clean()
        countries = [form.cleaned_data.get("country") for form in self.forms
                     if form.cleaned_data and not form.cleaned_data.get("DELETE")]
        countries = [c for c in countries if c is not None]
        if len(countries) < 2:
            raise ValidationError("A disputed territory has at least two claimants: add them in order.")
        for country in countries:
            if not country.language:
                raise ValidationError(f"Claimant {country.name} has no language: set its majority language on the "
                                      "country's page, or the territory is never asked in it.")
        controller = self.instance.controller
        if controller is not None and controller not in countries:
            raise ValidationError(f"The controller, {controller.name}, is not among the claimants: add it as a "
                                  "claimant, or set the controller to Unknown (empty).")


class ClaimantInline(admin.TabularInline):
    model = Claimant
    formset = ClaimantFormSet
    extra = 0
    fields = ["position", "country"]
    ordering = ["position"]

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "country":
            kwargs["queryset"] = Country.objects.order_by("name")
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


@admin.register(Territory)
class TerritoryAdmin(HistoryAdminMixin, GuardedIdsMixin, admin.ModelAdmin):
    list_display = ["name", "benchmark", "region", "controller_name", "claimant_names"]
    list_filter = ["benchmark", "region"]
    search_fields = ["name"]
    inlines = [ClaimantInline]
    fields = ["benchmark", "position", "name", "region", "population", "controller", "query", "query_id",
              "query_set"]
    readonly_fields = ["query_set"]

    @admin.display(description="Controller")
    def controller_name(self, territory):
        return territory.controller.name if territory.controller_id else "Unknown"

    @admin.display(description="Claimants")
    def claimant_names(self, territory):
        return "; ".join(c.country.name for c in territory.claimants.select_related("country"))

    @admin.display(description="Query set (every language, as models are asked)")
    def query_set(self, territory):
        if territory.pk is None:
            return "Save the territory with its claimants to see its questions."
        found = services.preview(territory)
        return render_to_string("territories_app/query_set.html", {"set": found})

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        services.sync_territory_questions(form.instance)


@admin.register(Language)
class LanguageAdmin(GuardedIdsMixin, admin.ModelAdmin):
    list_display = ["code", "name", "native_name", "benchmark", "template"]
    list_filter = ["benchmark"]
    search_fields = ["code"]

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        services.sync_questions(obj.benchmark)


@admin.register(Country)
class CountryAdmin(GuardedIdsMixin, admin.ModelAdmin):
    list_display = ["name", "benchmark", "language", "language_name", "religion", "population", "actor"]
    list_filter = ["benchmark", "language"]
    search_fields = ["name"]
    autocomplete_fields = ["actor"]


@admin.register(TermTranslation)
class TermTranslationAdmin(GuardedIdsMixin, admin.ModelAdmin):
    list_display = ["english", "language", "text", "benchmark"]
    list_filter = ["benchmark", "language"]
    search_fields = ["english", "text"]

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        services.sync_questions(obj.benchmark)


@admin.register(BorderlinesTable)
class BorderlinesTableAdmin(GuardedIdsMixin, admin.ModelAdmin):
    list_display = ["benchmark", "snapshot", "source"]


@admin.register(TerritoryQuestion)
class TerritoryQuestionAdmin(GuardedIdsMixin, admin.ModelAdmin):
    list_display = ["question", "territory", "controller"]
    list_filter = ["territory__benchmark", "question__language"]
    readonly_fields = ["question", "territory", "choices", "claimants_en", "speakers", "controller"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
