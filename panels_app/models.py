"""Panels of people (issue 40): a panel answers a benchmark's questions through links, one
respondent per link; each respondent's items and answers are rows of this room, never rows of
the run engine's answers (docs/architecture.md, "Panels of people")."""

from __future__ import annotations

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from benchmarks_app.lettering import MAX_OPTIONS


class Panel(models.Model):
    class Kind(models.TextChoices):
        INVITED = "invited", "Invited (answers through links)"
        REFERENCE = "reference", "Published reference (imported)"

    name = models.CharField(max_length=120, unique=True)
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.INVITED, editable=False,
                            help_text="Invited: people answer through links. Reference: a population's published "
                                      "answers, read by import_reference; it has no links.")
    stands_for = models.CharField(max_length=200, help_text='Whom the panel stands for, e.g. "IR scholars, US".')
    benchmark = models.ForeignKey("benchmarks_app.Benchmark", on_delete=models.PROTECT, related_name="panels")
    selection = models.JSONField(
        default=dict, blank=True,
        help_text='The launch\'s selection, e.g. {"domains": ["escalation"], "choice_counts": [2], "sample": 20, '
                  '"seed": 7}; empty: every current question of the benchmark. Questions are picked when saved '
                  "and kept once anyone has started.")
    seed = models.IntegerField(default=0, help_text="Deals the questions out to respondents and orders the options.")
    items_per_respondent = models.PositiveSmallIntegerField(default=10, validators=[MinValueValidator(1),
                                                                                    MaxValueValidator(200)])
    ask_reason = models.BooleanField(default=True, help_text="Offer an optional free-text reason on every item.")
    consent_text = models.TextField(help_text="Shown first; the respondent agrees before anything is asked.")
    closing_text = models.TextField(blank=True, default="Thank you: your answers are saved.")
    completion_url = models.URLField(blank=True, help_text="A recruitment platform's completion URL (e.g. Prolific's).")
    completion_code = models.CharField(max_length=64, blank=True,
                                       help_text="Added to the completion URL as cc=… and shown on the closing page.")
    open_token = models.CharField(max_length=64, unique=True, null=True, blank=True, editable=False)
    open_cap = models.PositiveIntegerField(null=True, blank=True,
                                           help_text="How many respondents the open link admits (empty: no open link).")
    started = models.PositiveIntegerField(default=0, editable=False,
                                          help_text="Respondents dealt a block so far (the next one's number).")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        permissions = [("view_panel_results", "Can read panels' results and their alignment with models")]

    def __str__(self):
        return self.name


class PanelQuestion(models.Model):
    """One of the questions a panel answers, picked by its selection."""

    panel = models.ForeignKey(Panel, on_delete=models.CASCADE, related_name="panel_questions")
    question = models.ForeignKey("benchmarks_app.Question", on_delete=models.PROTECT, related_name="+")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["panel", "question"], name="one_panel_question")]


class AttentionCheck(models.Model):
    panel = models.ForeignKey(Panel, on_delete=models.CASCADE, related_name="attention_checks")
    text = models.TextField(help_text='e.g. "To show you read this, choose the second option."')
    options = models.JSONField(default=list, help_text='The options in the order shown, e.g. ["Yes", "No", "Maybe"].')
    expected = models.PositiveSmallIntegerField(help_text="The expected option's number, from 1.",
                                                validators=[MinValueValidator(1), MaxValueValidator(MAX_OPTIONS)])
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["position", "id"]

    def __str__(self):
        return self.text[:60]


class ProfileQuestion(models.Model):
    class Kind(models.TextChoices):
        TEXT = "text", "Text"
        NUMBER = "number", "Whole number"
        CHOICE = "choice", "One of the choices"

    panel = models.ForeignKey(Panel, on_delete=models.CASCADE, related_name="profile_questions")
    key = models.SlugField(max_length=40, help_text="Its column in exports, e.g. years_in_field.")
    label = models.CharField(max_length=200, help_text="What the respondent reads, e.g. Years in the field.")
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.TEXT)
    choices = models.TextField(blank=True, help_text="For a choice: one per line.")
    required = models.BooleanField(default=True)
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["position", "id"]
        constraints = [models.UniqueConstraint(fields=["panel", "key"], name="one_profile_key_per_panel")]

    def __str__(self):
        return self.label

    def choice_list(self) -> list[str]:
        return [line.strip() for line in self.choices.splitlines() if line.strip()]


class Respondent(models.Model):
    """One link and the person answering through it: made in bulk as a single-use link, or
    when someone arrives through the panel's open link. No account, no address stored."""

    panel = models.ForeignKey(Panel, on_delete=models.CASCADE, related_name="respondents")
    token = models.CharField(max_length=64, unique=True)  # secrets.token_urlsafe(16): 128 random bits
    external_id = models.CharField(max_length=120, blank=True,
                                   help_text="A reference panel's respondent as its file names them; empty for links.")
    via_open_link = models.BooleanField(default=False)
    number = models.PositiveIntegerField(null=True, blank=True, help_text="Its block's number, dealt at consent.")
    profile = models.JSONField(default=dict, blank=True)
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    consented_at = models.DateTimeField(null=True, blank=True)
    profiled_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    failed_checks = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self):
        return f"{self.panel} #{self.pk}"

    @property
    def excluded(self) -> bool:
        """A failed attention check excludes every answer of the respondent."""
        return self.failed_checks > 0


class PanelAnswer(models.Model):
    """One page a respondent is shown (a question or an attention check) and its answer:
    a person's answer, labelled by its panel, never a model's (`runs_app.Response`)."""

    respondent = models.ForeignKey(Respondent, on_delete=models.CASCADE, related_name="answers")
    position = models.PositiveSmallIntegerField(help_text="Its page, from 0.")
    question = models.ForeignKey("benchmarks_app.Question", null=True, blank=True, on_delete=models.PROTECT,
                                 related_name="+")
    attention_check = models.ForeignKey(AttentionCheck, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    option_order = models.JSONField(default=list, help_text="Canonical option indexes in the order lettered A, B, C.")
    messages = models.JSONField(default=list, help_text="The question as rendered for models, with this order.")
    chosen_letter = models.CharField(max_length=1, blank=True)
    code = models.CharField(max_length=1, blank=True, help_text="The canonical option's letter (as Response.code).")
    reason = models.TextField(blank=True)
    shown_at = models.DateTimeField(null=True, blank=True)
    answered_at = models.DateTimeField(null=True, blank=True)
    seconds = models.FloatField(null=True, blank=True, help_text="From the page first shown to its answer.")

    class Meta:
        ordering = ["respondent", "position"]
        constraints = [
            models.UniqueConstraint(fields=["respondent", "position"], name="one_panel_answer_per_page"),
            models.CheckConstraint(condition=models.Q(question__isnull=True) ^ models.Q(attention_check__isnull=True),
                                   name="panel_answer_question_or_check"),
        ]
        indexes = [models.Index(fields=["question", "answered_at"], name="panel_answer_question")]


class ReferenceShare(models.Model):
    """A published reference given as shares: of the `n` people of the panel who answered
    the question, the share who chose the canonical option `code` (import_reference's
    second shape; the first is stored as respondents and their PanelAnswer rows)."""

    panel = models.ForeignKey(Panel, on_delete=models.CASCADE, related_name="reference_shares")
    question = models.ForeignKey("benchmarks_app.Question", on_delete=models.PROTECT, related_name="+")
    code = models.CharField(max_length=1, help_text="The canonical option's letter (as Response.code).")
    share = models.FloatField(validators=[MinValueValidator(0), MaxValueValidator(1)])
    n = models.PositiveIntegerField(help_text="How many of the panel answered the question.")

    class Meta:
        ordering = ["panel", "question", "code"]
        constraints = [models.UniqueConstraint(fields=["panel", "question", "code"], name="one_reference_share")]
