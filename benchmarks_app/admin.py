"""Benchmarks, their questions and the conditions runs ask them under, in the console.
Questions are read-only here: each family writes its own."""

from django.contrib import admin
from django.db.models import Count
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from cfpd_site.admin_tools import ReadOnlyAdminMixin

from . import families
from .models import Benchmark, Condition, Question


@admin.register(Benchmark)
class BenchmarkAdmin(admin.ModelAdmin):
    list_display = ["name", "title", "family", "question_count"]
    list_filter = ["family"]
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
class ConditionAdmin(admin.ModelAdmin):
    list_display = ["name", "label", "kind", "family", "temperature", "position"]
    list_filter = ["kind", "family"]
    search_fields = ["name", "label"]
    fields = ["name", "label", "kind", "family", "system_prompt", "temperature", "description", "position"]
