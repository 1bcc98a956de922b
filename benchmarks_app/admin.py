"""Benchmarks, their questions, the conditions runs ask them under and the actors every
family names, in the console. Questions are read-only here: each family writes its own."""

from django import forms
from django.contrib import admin
from django.db.models import Count
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from kit.admin_tools import ReadOnlyAdminMixin
from kit.history_admin import HistoryAdminMixin

from . import families
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
