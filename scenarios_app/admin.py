"""The authoring console: scenarios with inline options and dyads, review, versions,
import, and read-only views of the taxonomy and the questions."""

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Q
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.template.loader import render_to_string
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import ngettext

from kit.admin_tools import GuardedIdsMixin, ReadOnlyAdminMixin
from kit.history_admin import HistoryAdminMixin

from . import services, translation_admin, translations
from .forms import CategoryChoiceField, DyadFormSet, ImportScenariosForm, OptionFormSet, ScenarioAdminForm
from .models import (
    ActionCategory, Actor, ActorSet, ActorSetMember, Benchmark, CodifiedAction, CodifiedComparison,
    ComparisonCategory, Domain, ResponseOption, Scenario, ScenarioDyad, ScenarioQuestion, ScenarioReview,
    SubDimension, ScenarioTranslation,
)
from .prompting import chat_messages, render_transcript
from .transfer import ImportFileError, decode_upload, detect_format, import_scenarios

PREVIEW_DYADS = 3


class FrozenInlineMixin:
    def has_add_permission(self, request, obj=None):
        return super().has_add_permission(request, obj) and not (obj and obj.is_frozen)

    def has_change_permission(self, request, obj=None):
        return super().has_change_permission(request, obj) and not (obj and obj.is_frozen)

    def has_delete_permission(self, request, obj=None):
        return super().has_delete_permission(request, obj) and not (obj and obj.is_frozen)


class OptionInline(FrozenInlineMixin, admin.TabularInline):
    model = ResponseOption
    formset = OptionFormSet
    min_num = 2
    max_num = 3
    extra = 1
    fields = ["position", "text", "category", "intensity"]
    readonly_fields = ["intensity"]

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "category":
            kwargs["form_class"] = CategoryChoiceField
            kwargs["error_messages"] = {"required": "Choose the action category this option codes."}
            kwargs["queryset"] = ActionCategory.objects.select_related("domain")
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        field = super().formfield_for_dbfield(db_field, request, **kwargs)
        if db_field.name == "text":
            field.widget.attrs.update(rows=2, cols=70)
        return field

    @admin.display(description="Order")
    def intensity(self, option):
        rank = option.category.rank if option.pk else None
        return {0: "none", 1: "middle", 2: "high"}.get(rank, "—")


class DyadInline(FrozenInlineMixin, admin.TabularInline):
    model = ScenarioDyad
    formset = DyadFormSet
    extra = 0
    fields = ["actor_a", "actor_b"]
    autocomplete_fields = ["actor_a", "actor_b"]
    verbose_name = "dyad (Actor A, Actor B)"
    verbose_name_plural = "dyads (Actor A, Actor B)"  # Django's default adds an "s" after the bracket


class ReviewInline(admin.TabularInline):
    model = ScenarioReview
    extra = 0
    fields = ["reviewer", "created_at", "current", "comment"]
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    @admin.display(description="Of this text", boolean=True)
    def current(self, review):
        return review.content_hash == review.scenario.content_hash


class ActorFilter(admin.SimpleListFilter):
    title = "actor"
    parameter_name = "actor"

    def lookups(self, request, model_admin):
        used = Actor.objects.filter(Q(pk__in=ScenarioDyad.objects.values("actor_a"))
                                    | Q(pk__in=ScenarioDyad.objects.values("actor_b")))
        return [(actor.code, str(actor)) for actor in used.order_by("prompt_name")]

    def queryset(self, request, queryset):
        code = self.value()
        if not code:
            return queryset
        return (queryset.filter(dyads__actor_a__code=code) | queryset.filter(dyads__actor_b__code=code)).distinct()


@admin.register(Scenario)
class ScenarioAdmin(HistoryAdminMixin, admin.ModelAdmin):
    form = ScenarioAdminForm
    inlines = [OptionInline, DyadInline, ReviewInline]
    list_display = ["key", "version", "domain", "comparison", "choices", "qualified_actor", "status",
                    "dyad_count", "question_count", "frozen"]
    list_filter = ["benchmark", "domain", "comparison__sub_dimension", "status", "is_current", ActorFilter]
    search_fields = ["key", "template", "options__text", "notes"]
    list_select_related = ["domain", "comparison", "comparison__sub_dimension"]
    actions = ["approve_selected", "export_selected"]
    readonly_fields = ["version_info", "review_info", "prompt_preview"]
    fieldsets = [
        (None, {"fields": ["benchmark", "key", "domain", "comparison", "qualified_actor", "template", "notes"]}),
        ("Dyads", {"fields": ["dyad_notation"]}),
        ("Status", {"fields": ["version_info", "review_info"]}),
        ("Preview", {"fields": ["prompt_preview"]}),
    ]
    change_list_template = "admin/scenarios_app/scenario/change_list.html"
    change_form_template = "admin/scenarios_app/scenario/change_form.html"

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(
            _dyads=Count("dyads", distinct=True), _questions=Count("cfpd_questions", distinct=True))

    def get_changeform_initial_data(self, request):
        initial = super().get_changeform_initial_data(request)
        initial.setdefault("benchmark", Benchmark.objects.filter(name="default").values_list("pk", flat=True).first())
        return initial

    def get_fieldsets(self, request, obj=None):
        if obj is None:
            return [fs for fs in self.fieldsets if fs[0] not in ("Status", "Preview")]
        if obj.is_frozen:
            return [fs for fs in self.fieldsets if fs[0] != "Dyads"]
        return self.fieldsets

    def get_readonly_fields(self, request, obj=None):
        if obj is not None and obj.is_frozen:
            return ["benchmark", "key", "domain", "comparison", "qualified_actor", "template", "notes",
                    *self.readonly_fields]
        return self.readonly_fields

    @admin.display(description="Choices")
    def choices(self, scenario):
        return scenario.comparison.sub_dimension.choice_count

    @admin.display(description="Dyads", ordering="_dyads")
    def dyad_count(self, scenario):
        return scenario._dyads

    @admin.display(description="Questions", ordering="_questions")
    def question_count(self, scenario):
        return scenario._questions

    @admin.display(boolean=True)
    def frozen(self, scenario):
        return scenario.is_frozen

    @admin.display(description="Version")
    def version_info(self, scenario):
        lines = [f"Version {scenario.version}" + (" (current)" if scenario.is_current else " (superseded)")]
        if scenario.is_frozen:
            lines.append(f"Frozen on {scenario.frozen_at:%Y-%m-%d %H:%M}: runs have asked it, so it cannot change. "
                         "Use “Create new version” to edit a copy.")
        return format_html_join("", "<div>{}</div>", ((line,) for line in lines))

    @admin.display(description="Review")
    def review_info(self, scenario):
        approvals = services.approvals_of_current_text(scenario)
        return format_html("{} · {} of {} approvals by reviewers other than the author{}",
                           scenario.get_status_display(), len(approvals), services.REVIEWS_NEEDED,
                           (": " + ", ".join(approvals)) if approvals else "")

    @admin.display(description=f"Prompts for the first {PREVIEW_DYADS} dyads")
    def prompt_preview(self, scenario):
        if scenario.pk is None:
            return "—"
        questions = services.expected_questions(scenario)
        dyads = []
        for q in questions:
            if (q.actor_a, q.actor_b) not in dyads:
                dyads.append((q.actor_a, q.actor_b))
        shown = [q for q in questions if (q.actor_a, q.actor_b) in dyads[:PREVIEW_DYADS]]
        if not shown:
            return "Add dyads to see the prompts models will be asked."
        return render_to_string("admin/scenarios_app/scenario/preview.html", {
            "items": [(q, render_transcript(chat_messages(q.text, list(q.options), list(q.option_order))))
                      for q in shown],
            "total": len(questions),
        })

    def save_model(self, request, obj, form, change):
        if not change and obj.author_id is None:
            obj.author = request.user
        super().save_model(request, obj, form, change)

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        scenario = form.instance
        added, skipped = services.add_dyads(scenario, form.cleaned_data.get("dyad_notation") or [])
        if added:
            messages.info(request, f"Added {added} dyads from the notation.")
        if skipped:
            messages.warning(request, "Already listed, not added again: " + ", ".join(f"({a},{b})" for a, b in skipped))
        services.after_content_change(scenario)

    @admin.action(description="Approve selected scenarios (as a reviewer who did not write them)",
                  permissions=["change"])
    def approve_selected(self, request, queryset):
        recorded, already = 0, []
        for scenario in queryset:
            try:
                _, created = services.approve(scenario, request.user)
            except services.AuthoringError as exc:
                messages.error(request, str(exc))
                continue
            if created:
                recorded += 1
            else:
                already.append(str(scenario))
        if recorded:
            messages.success(request, ngettext("Recorded your approval of %(n)d scenario.",
                                               "Recorded your approval of %(n)d scenarios.", recorded)
                             % {"n": recorded})
        if already:
            names = ", ".join(already[:5]) + (f" and {len(already) - 5} more" if len(already) > 5 else "")
            messages.info(request, ngettext("You had already approved %(names)s as it stands; nothing changed.",
                                            "You had already approved these %(n)d scenarios as they stand "
                                            "(%(names)s); nothing changed.", len(already))
                          % {"n": len(already), "names": names})

    @admin.action(description="Export selected scenarios as CSV", permissions=["view"])
    def export_selected(self, request, queryset):
        from django.http import HttpResponse

        from .table_format import write_table

        specs = [services.spec_of(s) for s in queryset.order_by("key")]
        response = HttpResponse(write_table(specs, services.taxonomy_from_db()), content_type="text/csv")
        response["Content-Disposition"] = 'attachment; filename="scenarios.csv"'
        return response

    def get_urls(self):
        return [
            path("import/", self.admin_site.admin_view(self.import_view), name="scenarios_app_scenario_import"),
            path("<int:pk>/new-version/", self.admin_site.admin_view(self.new_version_view),
                 name="scenarios_app_scenario_new_version"),
        ] + super().get_urls()

    def import_view(self, request):
        if not self.has_add_permission(request):
            raise PermissionDenied
        report = None
        form = ImportScenariosForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            upload = form.cleaned_data["file"]
            try:
                text = decode_upload(upload.read())
                report = import_scenarios(text, form.cleaned_data["benchmark"], detect_format(upload.name, text),
                                          dry_run=form.cleaned_data["dry_run"], author=request.user)
            except ImportFileError as exc:
                # A file that cannot be read at all: one message naming the file and the reason.
                messages.error(request, f"{upload.name}: {exc}. Nothing was imported.")
            else:
                if not report.ok:
                    messages.error(request, report.summary())
        elif request.method == "POST":  # an empty upload, no file, a benchmark that is not a slug
            for name, errors in form.errors.items():
                messages.error(request, f"{name}: {' '.join(errors)} Nothing was imported.")
        context = {**self.admin_site.each_context(request), "opts": self.model._meta, "form": form,
                   "report": report, "title": "Import scenarios"}
        return TemplateResponse(request, "admin/scenarios_app/scenario/import.html", context)

    def new_version_view(self, request, pk):
        scenario = get_object_or_404(Scenario, pk=pk)
        if request.method != "POST" or not self.has_change_permission(request, scenario):
            raise PermissionDenied
        try:
            successor = services.new_version(scenario, author=request.user)
        except services.AuthoringError as exc:
            messages.error(request, str(exc))
            return redirect(reverse("admin:scenarios_app_scenario_change", args=[pk]))
        messages.success(request, f"Created version {successor.version} of {successor.key}; edit it here.")
        return redirect(reverse("admin:scenarios_app_scenario_change", args=[successor.pk]))


class ActorSetMemberInline(admin.TabularInline):
    model = ActorSetMember
    autocomplete_fields = ["actor"]
    extra = 0


@admin.register(ActorSet)
class ActorSetAdmin(admin.ModelAdmin):
    list_display = ["name", "member_count"]
    inlines = [ActorSetMemberInline]

    @admin.display(description="Members")
    def member_count(self, actor_set):
        return actor_set.memberships.count()


class ComparisonCategoryInline(admin.TabularInline):
    model = ComparisonCategory
    extra = 0


@admin.register(CodifiedComparison)
class CodifiedComparisonAdmin(admin.ModelAdmin):
    list_display = ["name", "sub_dimension", "codified_action"]
    list_filter = ["sub_dimension__domain", "sub_dimension"]
    inlines = [ComparisonCategoryInline]


@admin.register(ActionCategory)
class ActionCategoryAdmin(admin.ModelAdmin):
    list_display = ["name", "domain", "rank"]
    list_filter = ["domain"]


admin.site.register(Domain, list_display=["name", "slug", "position"])
admin.site.register(SubDimension, list_display=["name", "domain", "choice_count"])
admin.site.register(CodifiedAction, list_display=["name", "domain"])


@admin.register(ScenarioQuestion)
class ScenarioQuestionAdmin(GuardedIdsMixin, ReadOnlyAdminMixin, admin.ModelAdmin):
    """CFPD's questions: the shared question row and what CFPD knows of it."""

    list_display = ["key", "domain", "choice_count", "variant", "qualified_actor"]
    list_filter = ["question__benchmark", "domain", "question__choice_count", "variant"]
    search_fields = ["question__key"]
    list_select_related = ["question", "domain", "qualified_actor"]
    fields = ["key", "benchmark", "scenario", "variant", "domain", "actor_a", "actor_b", "qualified_actor",
              "choice_count", "prompt"]
    readonly_fields = fields

    @admin.display(description="Key", ordering="question__key")
    def key(self, row):
        return row.question.key

    @admin.display(description="Benchmark")
    def benchmark(self, row):
        return row.question.benchmark

    @admin.display(description="Choices", ordering="question__choice_count")
    def choice_count(self, row):
        return row.question.choice_count

    @admin.display(description="Prompt (appendix A.4)")
    def prompt(self, row):
        question = row.question
        text = render_transcript(chat_messages(question.text, question.option_texts(), question.option_order))
        return format_html('<pre class="prompt">{}</pre>', text)


# --- translations (issue 41) ------------------------------------------------------------

@admin.register(ScenarioTranslation)
class ScenarioTranslationAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """Translations arrive through `import_translations` (checked slot by slot); here an
    author who reads the language approves them, beside their source."""

    list_display = ["scenario", "language", "status", "out_of_date", "drift", "provenance", "translated_at",
                    "approved_by"]
    list_filter = ["language", "status", "out_of_date"]
    search_fields = ["scenario__key", "template"]
    fields = readonly_fields = ["scenario", "language", "side_by_side", "status", "out_of_date", "source_hash",
                                "provenance", "model_name", "back_model_name", "prompt_shown", "translated_by",
                                "translated_at", "approved_by", "approved_at"]
    actions = ["approve_selected"]

    class Media:
        css = {"all": ["css/translations.css"]}

    def get_urls(self):
        return [path("draft/", self.admin_site.admin_view(lambda request: translation_admin.draft_view(self, request)),
                     name="scenarios_app_scenariotranslation_draft")] + super().get_urls()

    def changelist_view(self, request, extra_context=None):
        extra_context = {**(extra_context or {}), "may_draft": translation_admin.may_draft(request.user)}
        return super().changelist_view(request, extra_context)

    @admin.display(description="Source and translation, side by side")
    def side_by_side(self, obj):
        return translation_admin.side_by_side(obj.scenario, obj.language, translations.translated_fields(obj),
                                              obj.back_translation, obj.scores)

    @admin.display(description="Drifted items")
    def drift(self, obj):
        if not obj.scores:
            return "—"
        drifted = [field for field, score in obj.scores.items() if score.get("drifted")]
        return f"⚠ {', '.join(drifted)}" if drifted else "none"

    @admin.display(description="Prompt (template)")
    def prompt_shown(self, obj):
        return format_html('<pre class="prompt">{}</pre>', obj.prompt) if obj.prompt else "—"

    def has_approve_permission(self, request):
        return request.user.has_perm("scenarios_app.change_scenario")  # authors

    @admin.action(description="Approve selected translations (your profile must list their language)",
                  permissions=["approve"])
    def approve_selected(self, request, queryset):
        approved = 0
        for translation in queryset.select_related("scenario"):
            try:
                translations.approve_translation(translation, request.user)
            except translations.TranslationError as exc:
                messages.error(request, str(exc))
                continue
            approved += 1
        if approved:
            messages.success(request, ngettext("Approved %(n)d translation.", "Approved %(n)d translations.",
                                               approved) % {"n": approved})


