"""The launch form: which benchmark, which models, which questions, how often. The fields
of the families' own selection keys (CFPD's domains and qualified actors) come from the
families' registrations (`families.launch_fields`)."""

from django import forms
from django.conf import settings
from django.db.models import Count, Q

from benchmarks_app import families
from benchmarks_app.models import Benchmark, Condition

from . import launch_plan, services
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


class ConditionChoiceField(forms.ModelMultipleChoiceField):
    def label_from_instance(self, condition):
        family = f" · {condition.get_family_display()}" if condition.family else ""
        return f"{condition.label} ({condition.name}){family}"


def _number(**attrs):
    # Read as text: the numbers are checked, with the limits of settings, by
    # services.read_launch (the same rules as the API and run_benchmark).
    return forms.NumberInput(attrs={"inputmode": "numeric", **attrs})


class LaunchForm(forms.Form):
    benchmark = BenchmarkChoiceField(queryset=Benchmark.objects.none(), empty_label=None)
    models = ModelChoiceField(
        queryset=LLMModel.objects.none(), required=False, widget=forms.CheckboxSelectMultiple,
        help_text="Models holding only imported answers are not listed: they cannot be called.")
    repeats = forms.CharField(
        initial=5, widget=_number(min=1, max=settings.CFPD_MAX_REPEATS),
        help_text=f"Answers per question from each generate-mode (sampling) model; 5 as in the paper, at most "
                  f"{settings.CFPD_MAX_REPEATS}. Choice-mode models answer once: at temperature 0 their letter "
                  "does not change.")
    conditions = ConditionChoiceField(
        queryset=Condition.objects.none(), to_field_name="name", required=False, widget=forms.CheckboxSelectMultiple,
        help_text="How each question is asked (prompt strategies, temperatures): every unit once per condition "
                  "ticked. None ticked: as the benchmark's family writes it.")
    choice_counts = forms.TypedMultipleChoiceField(
        choices=[(n, f"{n} options") for n in range(2, 11)], coerce=int, required=False,
        widget=forms.CheckboxSelectMultiple, label="Choice counts", help_text="None ticked: all.")
    sample = forms.CharField(
        required=False, label="Sample size", widget=_number(min=1),
        help_text="Ask a seeded random sample of this many questions; empty: all that match.")
    seed = forms.CharField(initial=0, required=False, widget=_number(min=0, max=launch_plan.MAX_SEED),
                           help_text="Seeds the sample and the option permutation (0 to 2,147,483,647).")
    permute_options = forms.BooleanField(
        required=False, label="Permute option order",
        help_text="Shuffle the order of the options per unit (the order asked is stored with each response).")
    balanced_options = forms.BooleanField(
        required=False, label="Balance option order",
        help_text="Rotate the options so that each one is shown at each position (A, B, C …) equally often per "
                  "scenario, over its qualified actors, conditions and repeats (within one when the answers are not "
                  "a multiple of the options); wins over the shuffle. The dashboard's Position bias panel reads it.")
    system_prompt = forms.CharField(
        required=False, label="System prompt override", strip=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=f"Empty: the paper's system prompt (appendix A.4), shown greyed out in the box. At most "
                  f"{settings.CFPD_MAX_PROMPT_CHARS:,} characters.")
    cache = forms.ChoiceField(choices=CACHE_CHOICES, initial="auto", label="Answer cache", widget=forms.RadioSelect)
    budget_usd = forms.CharField(
        required=False, label="Budget (US$)", widget=forms.TextInput(attrs={"inputmode": "decimal",
                                                                            "placeholder": "none"}),
        help_text="Optional: the run pauses once its calls have cost this much; resume it with a higher budget.")
    budget_units = forms.CharField(
        required=False, label="Budget (units)", widget=_number(min=1, placeholder="none"),
        help_text="Optional: the run pauses once this many units are finished.")
    delivery = forms.ChoiceField(
        choices=[("live", "Live: each question its own call, answers as they come"),
                 ("batch", "Batch: the providers' batch interfaces, answers within 24 h at about half the price")],
        initial="live", required=False, label="Delivery", widget=forms.RadioSelect,
        help_text="Batch only for models whose provider has a batch interface (OpenAI's, or an OpenAI-compatible "
                  "server with /v1/batches); the plan shows both costs side by side.")
    note = forms.CharField(required=False, help_text="Optional: what this run is for (200 characters).")
    difference = forms.CharField(
        required=False, label="Difference to detect (points)", widget=_number(min=1, max=100, placeholder="10"),
        help_text="The plan's power figures: the chance to detect this difference between two models' rates.")

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        self.fields["benchmark"].queryset = Benchmark.objects.annotate(
            question_count=Count("questions", filter=Q(questions__is_current=True), distinct=True)
        ).order_by("name")
        self.fields["models"].queryset = LLMModel.objects.filter(is_external=False)
        self.fields["conditions"].queryset = Condition.objects.all()
        if families.default_system_prompt():
            self.fields["system_prompt"].widget.attrs["placeholder"] = families.default_system_prompt()
        family_fields = families.launch_fields()
        self.family_keys = list(family_fields)
        self.fields.update(family_fields)
        self.launch_request = None

    def family_fields(self):
        """The families' own selection fields, bound, in the families' order."""
        return [self[key] for key in self.family_keys]

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        try:
            self.launch_request = services.read_launch({
                "benchmark": data["benchmark"], "models": list(data["models"]), "repeats": data["repeats"],
                "sample": data["sample"], "seed": data["seed"], **{key: data[key] for key in self.family_keys},
                "conditions": list(data["conditions"]), "choice_counts": data["choice_counts"],
                "system_prompt": data["system_prompt"], "permute_options": data["permute_options"],
                "balanced_options": data["balanced_options"],
                "use_cache": CACHE_VALUES[data["cache"]], "budget_usd": data["budget_usd"],
                "budget_units": data["budget_units"], "note": data["note"], "difference": data["difference"],
                "delivery": data.get("delivery") or "live"})
        except services.LaunchInvalid as exc:
            self.add_launch_errors(exc)
        return data

    def add_launch_errors(self, exc: services.LaunchInvalid):
        for name, problems in exc.errors.items():
            for problem in problems:
                message = problem[:1].upper() + problem[1:] + "."
                if name in self.fields:
                    self.add_error(name, message)
                else:
                    self.add_error(None, f"The run was not launched: {problem}.")

    def plan(self):
        """The plan of the launch (nothing written); a RunError becomes a form error and None is returned."""
        try:
            return services.plan_launch(self.launch_request)
        except services.LaunchInvalid as exc:
            self.add_launch_errors(exc)
        except services.RunError as exc:
            self.add_error(None, f"The run was not launched: {exc}.")
        return None

    def launch(self, user):
        """Launch the run; a RunError becomes a form error and None is returned."""
        try:
            return services.start_run(self.launch_request, launched_by=user)
        except services.LaunchInvalid as exc:
            self.add_launch_errors(exc)
        except services.RunError as exc:
            self.add_error(None, f"The run was not launched: {exc}.")
        return None
