"""Benchmarks, their questions, the conditions runs ask them under and the actors every
family names, in the console. Questions are read-only here: each family writes its own."""

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Count
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from kit.admin_tools import ReadOnlyAdminMixin
from kit.history_admin import HistoryAdminMixin

from . import families, services
from .models import Actor, Benchmark, Condition, Question


class FamilyFilter(admin.SimpleListFilter):
    """The installed families by label (the column holds a family's name)."""

    title = "family"
    parameter_name = "family"

    def lookups(self, request, model_admin):
        return families.choices()

    def queryset(self, request, queryset):
        return queryset.filter(family=self.value()) if self.value() else queryset


class FamilyChoice:
    """A family picked from the installed ones (the model field validates it again)."""

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        if db_field.name == "family":
            blank = [("", "any")] if db_field.blank else []
            return forms.ChoiceField(choices=lambda: blank + families.choices(), required=not db_field.blank,
                                     initial=db_field.get_default(), label="Family", help_text=db_field.help_text,
                                     validators=db_field.validators)
        return super().formfield_for_dbfield(db_field, request, **kwargs)

    @admin.display(description="Family", ordering="family")
    def family_label(self, obj):
        return obj.get_family_display()


@admin.register(Benchmark)
class BenchmarkAdmin(FamilyChoice, admin.ModelAdmin):
    list_display = ["name", "title", "family_label", "question_count"]
    list_filter = [FamilyFilter]
    readonly_fields = ["question_counts"]
    fields = ["name", "title", "family", "description", "question_counts"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(_questions=Count("questions", distinct=True))

    @admin.display(description="Questions", ordering="_questions")
    def question_count(self, benchmark):
        return benchmark._questions

    @admin.display(description="Questions in detail")
    def question_counts(self, benchmark):
        if benchmark.pk is None:
            return "—"
        try:
            summary = families.family(benchmark.family).summary
        except families.UnknownFamily as exc:
            return str(exc)
        return mark_safe(summary(benchmark)) if summary else "—"  # the family's template escapes


@admin.register(Question)
class QuestionAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ["key", "benchmark", "language", "choice_count", "is_current"]
    list_filter = ["benchmark", "language", "choice_count", "is_current"]
    search_fields = ["key"]
    list_select_related = ["benchmark"]
    fields = ["key", "benchmark", "kind", "language", "choice_count", "is_current", "prompt"]
    readonly_fields = fields

    @admin.display(description="Prompt as the family writes it")
    def prompt(self, question):
        from .services import default_condition, render_messages

        try:
            messages = render_messages(question, question.option_order or None, default_condition())
        except families.UnknownFamily as exc:
            return str(exc)
        text = "\n\n".join(f"{m['role'].upper()}:\n{m['content']}" for m in messages)
        return format_html('<pre class="prompt">{}</pre>', text)


@admin.register(Condition)
class ConditionAdmin(HistoryAdminMixin, FamilyChoice, admin.ModelAdmin):
    list_display = ["name", "label", "kind", "family_label", "temperature", "position"]
    list_filter = ["kind", FamilyFilter]
    search_fields = ["name", "label"]
    fields = ["name", "label", "kind", "family", "system_prompt", "temperature", "description", "position"]

    def get_urls(self):
        return [path("perspective/", self.admin_site.admin_view(self.perspective_view),
                     name="benchmarks_app_condition_perspective")] + super().get_urls()

    def changelist_view(self, request, extra_context=None):
        extra_context = {**(extra_context or {}), "may_add_perspective": self.has_add_permission(request)}
        return super().changelist_view(request, extra_context)

    def perspective_view(self, request):
        """"Add a prompted perspective": the condition "answer as someone from <country>"
        (services.perspective_condition, as `add_perspective` makes it), then its page."""
        if not self.has_add_permission(request):
            raise PermissionDenied
        form = PerspectiveForm(request.POST if request.method == "POST" else None)
        if request.method == "POST" and form.is_valid():
            try:
                condition = services.perspective_condition(form.cleaned_data["country"], form.cleaned_data["family"])
            except (services.PerspectiveInvalid, families.UnknownFamily) as exc:
                form.add_error(None, str(exc))
            else:
                messages.success(request, f"Condition {condition.name} ({condition.label}): pick it at the launch, "
                                          "or run_benchmark --conditions " + condition.name)
                return redirect(reverse("admin:benchmarks_app_condition_change", args=[condition.pk]))
        context = {**self.admin_site.each_context(request), "opts": self.model._meta, "form": form,
                   "title": "Add a prompted perspective"}
        return TemplateResponse(request, "admin/benchmarks_app/condition/perspective.html", context)


class PerspectiveForm(forms.Form):
    country = forms.CharField(max_length=80, help_text="An actor's code (DE) or a country's name (Germany).")
    family = forms.ChoiceField(required=False, choices=lambda: [("", "the default family")] + families.choices(),
                               help_text="The family whose system prompt follows the sentence.")


class ActorForm(forms.ModelForm):
    """The actor's own languages typed as comma-separated BCP 47 codes (zh, ru), each checked."""

    languages = forms.CharField(
        required=False, help_text="Comma-separated BCP 47 codes of the actor's own languages, main one first "
                                  "(zh for CN): a launch asking each actor in its own language asks its dyads in them.")

    class Meta:
        model = Actor
        fields = "__all__"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk and not self.is_bound:
            self.initial["languages"] = ", ".join(self.instance.languages or [])

    def clean_languages(self):
        from .services import actor_languages_problem

        codes = list(dict.fromkeys(c.strip() for c in (self.cleaned_data.get("languages") or "").split(",")
                                   if c.strip()))
        problem = actor_languages_problem(codes)
        if problem:
            raise forms.ValidationError(problem)
        return codes


# Searched by the families' pickers (CFPD's actor sets pick their members by autocomplete).
@admin.register(Actor)
class ActorAdmin(admin.ModelAdmin):
    form = ActorForm
    list_display = ["code", "prompt_name", "takes_article", "kind", "name", "languages"]
    list_filter = ["kind", "takes_article"]
    search_fields = ["code", "prompt_name", "name"]
