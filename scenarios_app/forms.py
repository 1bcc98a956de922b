"""Admin forms for authoring: each validates with the same rules as the importer
(`validation.check_scenario`) and names the field and the fix."""

from django import forms
from django.core.exceptions import ValidationError

from . import services
from .models import Scenario
from .notation import NotationError, parse_actor_set
from .table_format import derived_key
from .validation import OptionSpec, ScenarioSpec, check_comparison, check_dyads, check_options, check_template


class CategoryChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, category):
        return f"{category.domain.name} · {category.name}"


class ScenarioAdminForm(forms.ModelForm):
    key = forms.SlugField(
        required=False, max_length=100,
        help_text="Stable identifier shared by all versions; left empty, one is made from the comparison and text.")
    dyad_notation = forms.CharField(
        label="Add dyads", required=False, widget=forms.Textarea(attrs={"rows": 2, "cols": 80}),
        help_text="Ordered pairs in the paper's notation, e.g. (CN,RU), (RU,CN), (DE,FR); or all ordered pairs of a "
                  "named set, optionally filtered: {Universal Generic} or {Universal Generic | A: US,GB,CN,RU,IN}.")

    class Meta:
        model = Scenario
        fields = ["benchmark", "key", "domain", "comparison", "template", "qualified_actor", "notes"]
        widgets = {"template": forms.Textarea(attrs={"rows": 8, "cols": 100})}

    def clean_dyad_notation(self):
        text = self.cleaned_data.get("dyad_notation", "")
        if not text.strip():
            return []
        try:
            parsed = parse_actor_set(text)
        except NotationError as exc:
            raise ValidationError(str(exc)) from None
        pairs, problems = services.resolve_actor_set(parsed)
        spec = ScenarioSpec(key="", domain=None, comparison=None, template="", options=[], qualified_actor="A",
                            dyads=pairs)
        problems += check_dyads(spec, services.known_actor_codes())
        if problems:
            raise ValidationError([p.message for p in problems])
        return pairs

    def clean(self):
        cleaned = super().clean()
        domain, comparison = cleaned.get("domain"), cleaned.get("comparison")
        if domain and comparison:
            spec = ScenarioSpec(key="", domain=domain.slug, comparison=comparison.slug, template="", options=[],
                                qualified_actor="A")
            for problem in check_comparison(spec, services.taxonomy_from_db()):
                self.add_error(problem.field, problem.message)
        if not cleaned.get("key") and comparison and cleaned.get("template"):
            cleaned["key"] = derived_key(comparison.slug, cleaned["template"])
        return cleaned


class OptionFormSet(forms.BaseInlineFormSet):
    """Checks the options together with the scenario's text and comparison. Admin
    validates the scenario form first, so `self.instance` already holds its new values."""

    def clean(self):
        super().clean()
        if any(form.errors for form in self.forms):
            return
        kept = [form.cleaned_data for form in self.forms
                if form.cleaned_data and not form.cleaned_data.get("DELETE")]
        kept.sort(key=lambda data: data.get("position") or 0)
        scenario = self.instance
        if not (scenario.domain_id and scenario.comparison_id and scenario.template):
            return
        spec = ScenarioSpec(
            key=scenario.key, domain=scenario.domain.slug, comparison=scenario.comparison.slug,
            template=scenario.template, qualified_actor=scenario.qualified_actor,
            options=[OptionSpec(data.get("text", ""), data["category"].slug if data.get("category") else None)
                     for data in kept],
        )
        taxonomy = services.taxonomy_from_db()
        problems = check_template(spec) + check_options(spec, taxonomy)
        if problems:
            raise ValidationError([str(problem) for problem in problems])
        positions = [data.get("position") for data in kept]
        if len(set(positions)) != len(positions):
            raise ValidationError("options: two options have the same position; number them 1, 2, 3")


class DyadFormSet(forms.BaseInlineFormSet):
    def clean(self):
        super().clean()
        seen = set()
        for n, form in enumerate(self.forms, start=1):
            data = getattr(form, "cleaned_data", None)
            if not data or data.get("DELETE") or not data.get("actor_a") or not data.get("actor_b"):
                continue
            a, b = data["actor_a"].code, data["actor_b"].code
            if a == b:
                raise ValidationError(f"dyads row {n}: ({a},{b}) pairs an actor with itself; use two different actors")
            if (a, b) in seen:
                raise ValidationError(f"dyads row {n}: ({a},{b}) is listed twice; remove the repeat")
            seen.add((a, b))


class ImportScenariosForm(forms.Form):
    file = forms.FileField(help_text="Table 3 CSV (Domain, Sub Action Comparison, Scenario, Response Option 1-3, "
                                     "Actor Set; optional Key, Option N Category, Qualified Actor) or a JSON export.")
    benchmark = forms.SlugField(initial="default", help_text="Benchmark to fill; created if it does not exist.")
    dry_run = forms.BooleanField(required=False, initial=True,
                                 help_text="Check the file and show every inference without writing anything.")

