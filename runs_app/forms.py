"""The launch form: which benchmark, which models, which questions, how often."""

from django import forms
from django.db.models import Count, Q

from scenarios_app.models import Actor, Benchmark, Domain
from scenarios_app.prompting import SYSTEM_PROMPT

from . import services
from .models import LLMModel

CACHE_CHOICES = [
    ("auto", "Auto: on at temperature 0, off for repeated sampling"),
    ("on", "On: reuse identical earlier answers"),
    ("off", "Off: always call the model"),
]
CACHE_VALUES = {"auto": None, "on": True, "off": False}


class BenchmarkChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, benchmark):
        count = getattr(benchmark, "question_count", None)
        return benchmark.name if count is None else f"{benchmark.name} ({count} questions)"


class ModelChoiceField(forms.ModelMultipleChoiceField):
    def label_from_instance(self, model):
        where = "bundled, runs in the worker" if model.is_bundled else (model.api_base or model.litellm_model)
        return f"{model.name} · {model.get_answer_mode_display().split(':')[0].lower()} · {where}"


class LaunchForm(forms.Form):
    benchmark = BenchmarkChoiceField(queryset=Benchmark.objects.none(), empty_label=None)
    models = ModelChoiceField(
        queryset=LLMModel.objects.none(), required=False, widget=forms.CheckboxSelectMultiple,
        help_text="Models holding only imported answers are not listed: they cannot be called.")
    repeats = forms.IntegerField(
        min_value=1, max_value=50, initial=5,
        help_text="Answers per question from each generate-mode (sampling) model; 5 as in the paper. "
                  "Choice-mode models answer once: at temperature 0 their letter does not change.")
    domains = forms.ModelMultipleChoiceField(
        queryset=Domain.objects.none(), to_field_name="slug", required=False, widget=forms.CheckboxSelectMultiple,
        help_text="None ticked: every domain.")
    choice_counts = forms.TypedMultipleChoiceField(
        choices=[(2, "2 options"), (3, "3 options")], coerce=int, required=False,
        widget=forms.CheckboxSelectMultiple, label="Choice counts", help_text="None ticked: both.")
    qualified_actors = forms.CharField(
        required=False, label="Qualified actors",
        widget=forms.TextInput(attrs={"placeholder": "US,CN", "autocomplete": "off"}),
        help_text="Comma-separated actor codes; empty: every actor.")
    sample = forms.IntegerField(
        min_value=1, required=False, label="Sample size",
        help_text="Ask a seeded random sample of this many questions; empty: all that match.")
    seed = forms.IntegerField(initial=0, required=False, help_text="Seeds the sample and the option permutation.")
    permute_options = forms.BooleanField(
        required=False, label="Permute option order",
        help_text="Shuffle the order of the options per unit (the order asked is stored with each response).")
    system_prompt = forms.CharField(
        required=False, label="System prompt override",
        widget=forms.Textarea(attrs={"rows": 3, "placeholder": SYSTEM_PROMPT}),
        help_text="Empty: the paper's system prompt (appendix A.4), shown greyed out in the box.")
    cache = forms.ChoiceField(choices=CACHE_CHOICES, initial="auto", label="Answer cache", widget=forms.RadioSelect)
    note = forms.CharField(required=False, max_length=200, help_text="Optional: what this run is for.")

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        self.fields["benchmark"].queryset = Benchmark.objects.annotate(
            question_count=Count("questions", filter=Q(questions__scenario__is_current=True), distinct=True)
        ).order_by("name")
        self.fields["models"].queryset = LLMModel.objects.filter(is_external=False)
        self.fields["domains"].queryset = Domain.objects.all()

    def clean_qualified_actors(self):
        raw = self.cleaned_data["qualified_actors"]
        codes = list(dict.fromkeys(c.strip().upper() for c in raw.replace(";", ",").split(",") if c.strip()))
        known = set(Actor.objects.filter(code__in=codes).values_list("code", flat=True))
        unknown = [c for c in codes if c not in known]
        if unknown:
            raise forms.ValidationError(f"Unknown actor code(s): {', '.join(unknown)}.")
        return codes

    def selection(self) -> services.Selection:
        data = self.cleaned_data
        return services.Selection(
            domains=[d.slug for d in data["domains"]], choice_counts=list(data["choice_counts"]),
            qualified_actors=data["qualified_actors"], sample=data["sample"], seed=data["seed"] or 0)

    def launch(self, user):
        """Launch the run; a RunError becomes a form error and None is returned."""
        data = self.cleaned_data
        try:
            return services.launch_run(
                data["benchmark"], list(data["models"]), self.selection(), repeats=data["repeats"],
                system_prompt=data["system_prompt"], permute_options=data["permute_options"],
                use_cache=CACHE_VALUES[data["cache"]], launched_by=user, note=data["note"])
        except services.RunError as exc:
            self.add_error(None, f"The run was not launched: {exc}.")
            return None
