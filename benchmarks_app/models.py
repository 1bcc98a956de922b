"""What every benchmark family shares: benchmarks, the questions models are asked, the
conditions (named variations of how a question is asked) a run asks them under, and the
actors (states and other entities) the families' questions name.

The run engine, coding and analysis know these and nothing of a family: each
family app keeps its own authoring data beside them, creates its questions here, and
registers how its questions are rendered (`families.register`). A benchmark's `family`
names a registered family; the registry, not this module, knows which exist."""

from django.core.exceptions import ValidationError
from django.db import models

from . import families


def registered_family(name: str) -> None:
    """A family named where benchmarks and conditions are created or edited must be installed."""
    if name not in families.registered():
        known = ", ".join(families.registered()) or "none"
        raise ValidationError(f"no benchmark family {name!r} is installed (installed: {known})", code="family")


class Benchmark(models.Model):
    name = models.SlugField(max_length=64, unique=True, help_text="Short name used on the command line, e.g. demo.")
    title = models.CharField(max_length=200, blank=True)
    family = models.CharField(max_length=20, default=families.default_name, validators=[registered_family],
                              help_text="The benchmark family its questions belong to (an installed family app).")
    description = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name

    def get_family_display(self) -> str:
        return families.label(self.family)


class Question(models.Model):
    """A question as models are asked it: its text, its options in canonical order (the
    author's), and the order they are lettered in. What a family knows about a question
    beyond that (CFPD's scenario and dyad, a territory and its claimants) lives in the
    family's own table, one row per question."""

    class Kind(models.TextChoices):
        CHOICE = "choice", "Multiple choice"
        FREE = "free", "Free text"

    benchmark = models.ForeignKey(Benchmark, on_delete=models.PROTECT, related_name="questions")
    key = models.CharField(max_length=200, unique=True)
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.CHOICE)
    language = models.CharField(max_length=16, default="en")
    text = models.TextField()
    options = models.JSONField(default=list, help_text='[{"text": …, …}] in canonical order')
    option_order = models.JSONField(default=list, help_text="Indexes into options, in the order they are lettered.")
    choice_count = models.PositiveSmallIntegerField(default=0)
    is_current = models.BooleanField(
        default=True, help_text="Asked by new runs; a family clears it when the question is superseded.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["key"]
        indexes = [
            # Run selection and counts: a benchmark's current questions by choice count.
            models.Index(fields=["benchmark", "is_current", "choice_count"], name="question_current"),
        ]

    def __str__(self):
        return self.key

    def option_texts(self):
        return [option["text"] for option in self.options]


DEFAULT_CONDITION_ID = 1  # created by the migration; "as the family writes it"


class Condition(models.Model):
    """A named variation of how a question is asked — a prompt strategy, a temperature —
    stored on each answer and part of the unit of work (run, question, model, condition,
    repeat). The engine, coding and analysis treat every condition alike; a family's
    renderer decides how a system prompt applies to its questions."""

    class Kind(models.TextChoices):
        DEFAULT = "default", "As the family writes it"
        STRATEGY = "strategy", "Prompt strategy"
        TEMPERATURE = "temperature", "Sampling temperature"

    name = models.SlugField(max_length=64, unique=True)
    label = models.CharField(max_length=120)
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.STRATEGY)
    family = models.CharField(max_length=20, blank=True, validators=[registered_family],
                              help_text="The family it is meant for; empty for any.")
    system_prompt = models.TextField(
        blank=True, max_length=20_000,
        help_text="Replaces the family's system prompt when not empty. A family may fill placeholders "
                  "in it (BorderLines: {country}, the country whose language the question is in).")
    temperature = models.FloatField(null=True, blank=True,
                                    help_text="Replaces the model's sampling temperature when set.")
    description = models.TextField(blank=True)
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["position", "name"]

    def __str__(self):
        return self.name

    def get_family_display(self) -> str:
        return families.label(self.family) if self.family else ""


class Actor(models.Model):
    """A state (ISO 3166) or another entity the families' questions name: CFPD's dyads and
    qualified actors, BorderLines' countries and claimants. One row per code, shared by
    every family (a country CFPD asks about is the same row as the claimant BorderLines
    names).

    The model moved here from scenarios_app without touching a row (migration 0005); its
    table took this app's name later (0007, issue 39)."""

    class Kind(models.TextChoices):
        STATE = "state", "State (ISO 3166)"
        ORGANISATION = "organisation", "International organisation"
        DISPUTED = "disputed", "Disputed entity"
        TERRITORY = "territory", "Territory or region"

    code = models.CharField(
        max_length=12, unique=True,
        help_text="ISO 3166 alpha-2 for states; 3-12 capitals, digits or _ for other entities (NATO, EU, ROC).",
    )
    name = models.CharField(max_length=120, help_text="Official name.")
    prompt_name = models.CharField(max_length=120, help_text="The name put into prompts, e.g. South Korea.")
    takes_article = models.BooleanField(
        default=False, help_text='Prompts say "the United States": tick for names that take "the".')
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.STATE)
    iso_alpha3 = models.CharField(max_length=3, blank=True)
    languages = models.JSONField(
        default=list, blank=True,
        help_text='The BCP 47 codes of the actor\'s own languages, first the main one (["zh"] for CN): '
                  "a launch asking each actor in its own language asks a dyad in each of them.")

    class Meta:
        ordering = ["code"]

    def __str__(self):
        return f"{self.prompt_name} ({self.code})"


class DataVersion(models.Model):
    """One row whose number moves, after the change commits, whenever answers or their codes
    change (`benchmarks_app.data_version.bump`): what a stored figure was computed from is
    named by it, so a figure is computed again exactly when something it reads changed."""

    number = models.BigIntegerField(default=0)

    class Meta:
        verbose_name = "data version"
