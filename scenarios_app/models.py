"""CFPD authoring data: the taxonomy, actor sets, scenarios (versioned), and what CFPD knows
of the questions they expand into (benchmarks, questions and actors are benchmarks_app's)."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from benchmarks_app.models import Actor, Benchmark, Question  # noqa: F401  (shared by every family)


class Domain(models.Model):
    slug = models.SlugField(max_length=40, unique=True)
    name = models.CharField(max_length=80, unique=True)
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["position", "name"]

    def __str__(self):
        return self.name


class ActionCategory(models.Model):
    domain = models.ForeignKey(Domain, on_delete=models.PROTECT, related_name="categories")
    slug = models.SlugField(max_length=60, unique=True)
    name = models.CharField(max_length=80)
    rank = models.PositiveSmallIntegerField(
        null=True, blank=True,
        help_text="Intensity order within an ordered domain (0 none, 1 middle, 2 high); empty when unordered.",
    )

    class Meta:
        ordering = ["domain__position", "rank", "name"]
        verbose_name_plural = "action categories"

    def __str__(self):
        return self.name


class CodifiedAction(models.Model):
    """The finer action a comparison is about (Attack, Blockade, Regime intervention…)."""

    domain = models.ForeignKey(Domain, on_delete=models.PROTECT, related_name="codified_actions")
    slug = models.SlugField(max_length=60, unique=True)
    name = models.CharField(max_length=80)

    class Meta:
        ordering = ["domain__position", "name"]

    def __str__(self):
        return self.name


class SubDimension(models.Model):
    domain = models.ForeignKey(Domain, on_delete=models.PROTECT, related_name="sub_dimensions")
    slug = models.SlugField(max_length=60, unique=True)
    name = models.CharField(max_length=120)
    choice_count = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["domain__position", "choice_count", "name"]

    def __str__(self):
        return self.name


class CodifiedComparison(models.Model):
    sub_dimension = models.ForeignKey(SubDimension, on_delete=models.PROTECT, related_name="comparisons")
    slug = models.SlugField(max_length=60, unique=True)
    name = models.CharField(max_length=200)
    codified_action = models.ForeignKey(CodifiedAction, null=True, blank=True, on_delete=models.PROTECT)
    categories = models.ManyToManyField(ActionCategory, through="ComparisonCategory")

    class Meta:
        ordering = ["sub_dimension__domain__position", "sub_dimension__choice_count", "name"]

    def __str__(self):
        return self.name

    @property
    def domain(self):
        return self.sub_dimension.domain


class ComparisonCategory(models.Model):
    comparison = models.ForeignKey(CodifiedComparison, on_delete=models.CASCADE, related_name="slots")
    category = models.ForeignKey(ActionCategory, on_delete=models.PROTECT)
    position = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["position"]
        constraints = [models.UniqueConstraint(fields=["comparison", "position"], name="one_category_per_slot")]


class ActorSet(models.Model):
    name = models.CharField(max_length=80, unique=True)
    description = models.TextField(blank=True)
    source = models.TextField(blank=True, help_text="Where the membership comes from, with year.")
    members = models.ManyToManyField(Actor, through="ActorSetMember", related_name="actor_sets")

    def __str__(self):
        return self.name

    def member_codes(self):
        return list(self.memberships.order_by("rank").values_list("actor__code", flat=True))


class ActorSetMember(models.Model):
    actor_set = models.ForeignKey(ActorSet, on_delete=models.CASCADE, related_name="memberships")
    actor = models.ForeignKey(Actor, on_delete=models.PROTECT)
    rank = models.PositiveSmallIntegerField()
    note = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["rank"]
        constraints = [models.UniqueConstraint(fields=["actor_set", "actor"], name="actor_once_per_set")]


class Scenario(models.Model):
    """One version of a scenario. Versions of the same scenario share `key`; once asked
    (frozen) a version never changes again, and edits go to a new version."""

    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        REVIEWED = "reviewed", "Reviewed"

    class Qualified(models.TextChoices):
        A = "A", "Actor A"
        B = "B", "Actor B"

    benchmark = models.ForeignKey(Benchmark, on_delete=models.PROTECT, related_name="scenarios")
    key = models.SlugField(max_length=100, help_text="Stable identifier shared by all versions.")
    version = models.PositiveIntegerField(default=1)
    is_current = models.BooleanField(default=True)
    previous_version = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="next_version")
    domain = models.ForeignKey(Domain, on_delete=models.PROTECT, related_name="scenarios")
    comparison = models.ForeignKey(CodifiedComparison, on_delete=models.PROTECT, related_name="scenarios")
    template = models.TextField(help_text="The scenario, naming the actors as [Actor A] and [Actor B].")
    qualified_actor = models.CharField(
        max_length=1, choices=Qualified.choices, default=Qualified.A,
        help_text="The actor the scenario advises (named in the closing question).")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                               related_name="authored_scenarios")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT, editable=False)
    notes = models.TextField(blank=True)
    content_hash = models.CharField(max_length=64, editable=False, default="")
    frozen_at = models.DateTimeField(null=True, blank=True, editable=False,
                                     help_text="Set when a run first asks this version's questions.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["benchmark", "domain__position", "key", "-version"]
        # The family's dashboard (its registration's Dashboard.permission; analysts hold it).
        permissions = [("view_cfpd_dashboard", "Can read the CFPD dashboard and its API")]
        constraints = [
            models.UniqueConstraint(fields=["benchmark", "key", "version"], name="one_scenario_version"),
            models.UniqueConstraint(fields=["benchmark", "key"], condition=Q(is_current=True),
                                    name="one_current_version"),
        ]
        indexes = [models.Index(fields=["benchmark", "is_current", "domain"], name="scenario_current_by_domain")]

    def __str__(self):
        return f"{self.key} v{self.version}"

    @property
    def is_frozen(self):
        return self.frozen_at is not None

    @property
    def sub_dimension(self):
        return self.comparison.sub_dimension

    @property
    def questions(self):
        """This version's questions in the shared question table."""
        return Question.objects.filter(cfpd__scenario=self)


class ResponseOption(models.Model):
    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="options")
    position = models.PositiveSmallIntegerField(help_text="1, 2 or 3: the order the author wrote them in.")
    text = models.TextField()
    category = models.ForeignKey(ActionCategory, on_delete=models.PROTECT)

    class Meta:
        ordering = ["position"]
        constraints = [models.UniqueConstraint(fields=["scenario", "position"], name="one_option_per_position")]

    def __str__(self):
        return f"{self.position}: {self.text[:60]}"


class ScenarioDyad(models.Model):
    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="dyads")
    actor_a = models.ForeignKey(Actor, on_delete=models.PROTECT, related_name="+")
    actor_b = models.ForeignKey(Actor, on_delete=models.PROTECT, related_name="+")
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["scenario", "actor_a", "actor_b"], name="dyad_once_per_scenario"),
            models.CheckConstraint(condition=~Q(actor_a=models.F("actor_b")), name="dyad_two_actors"),
        ]

    def __str__(self):
        return f"({self.actor_a.code},{self.actor_b.code})"


class ScenarioReview(models.Model):
    """A reviewer's approval of the scenario text as it stood (section 3.4)."""

    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="reviews")
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    content_hash = models.CharField(max_length=64)
    comment = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at"]
        constraints = [models.UniqueConstraint(fields=["scenario", "reviewer", "content_hash"],
                                               name="one_review_per_reviewer_and_text")]


class ScenarioQuestion(models.Model):
    """What CFPD knows about one of its questions in the shared table: the scenario
    version and dyad it comes from, its variant, domain and qualified actor."""

    question = models.OneToOneField(Question, primary_key=True, on_delete=models.CASCADE, related_name="cfpd")
    scenario = models.ForeignKey(Scenario, on_delete=models.PROTECT, related_name="cfpd_questions")
    variant = models.CharField(max_length=20, default="full",
                               help_text="full, or no-middle for a three-option scenario asked with two options.")
    domain = models.ForeignKey(Domain, on_delete=models.PROTECT, related_name="+")
    actor_a = models.ForeignKey(Actor, on_delete=models.PROTECT, related_name="+")
    actor_b = models.ForeignKey(Actor, on_delete=models.PROTECT, related_name="+")
    qualified_actor = models.ForeignKey(Actor, on_delete=models.PROTECT, related_name="+")

    class Meta:
        indexes = [
            # benchmark_stats and run selection: a scenario's questions by domain.
            models.Index(fields=["domain", "qualified_actor"], name="cfpd_question_by_domain"),
        ]

    def __str__(self):
        return f"{self.question_id}: {self.scenario} {self.variant}"


class AskedVersion(models.Model):
    """A scenario version a run asked: written with the run's units (or its imported answers),
    so that the run's page names the exact version of each scenario, read from here rather
    than from its answers (millions at paper scale)."""

    run = models.ForeignKey("runs_app.Run", on_delete=models.CASCADE, related_name="+")
    scenario = models.ForeignKey(Scenario, on_delete=models.PROTECT, related_name="asked_by")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "scenario"], name="one_asked_version_per_run")]

    def __str__(self):
        return f"run {self.run_id}: {self.scenario}"


class ScenarioTranslation(models.Model):
    """One scenario version's text in another language: its template and option texts
    (CFPD's two-option variant of a three-option scenario is made from the same options).
    It belongs to the version it translates: `source_hash` is that version's content hash
    when the translation was written, and a translation whose source moved on is out of
    date (never asked again until translated anew). Only approved, up-to-date translations
    become questions (`translations.sync_translated_questions`)."""

    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        APPROVED = "approved", "Approved"

    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="translations")
    language = models.CharField(max_length=35, help_text="BCP 47 code, e.g. zh, zh-Hant, ru.")
    template = models.TextField()
    options = models.JSONField(default=list, help_text="Option texts in the source's order (option_a, option_b, …).")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    source_hash = models.CharField(max_length=64, help_text="The source version's content hash it translates.")
    out_of_date = models.BooleanField(default=False, help_text="Its source changed after it was written.")
    translated_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                      related_name="+", help_text="The person who wrote or uploaded it, or asked a model for it.")
    provenance = models.CharField(max_length=200, help_text="Where it came from: 'person', 'import:FILE', "
                                                            "or 'model:NAME draft:ID' (a model's draft).")
    translated_at = models.DateTimeField()
    approved_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                    related_name="+")
    approved_at = models.DateTimeField(null=True, blank=True)
    # A model's draft (issue 41): which model wrote it and with which prompt (the first
    # field's prompt; every field is asked alike), and its back-translation's scores.
    model_name = models.CharField(max_length=200, blank=True, help_text="The registered model that drafted it.")
    prompt = models.TextField(blank=True, help_text="The prompt the model was asked (the template's).")
    back_model_name = models.CharField(max_length=200, blank=True,
                                       help_text="The model that translated it back into the source language.")
    back_translation = models.JSONField(default=dict, blank=True, help_text="Field → its back-translation.")
    scores = models.JSONField(default=dict, blank=True,
                              help_text="Field → {chrf, bertscore_f1, drifted}: the back-translation against the source.")

    class Meta:
        ordering = ["scenario", "language"]
        constraints = [models.UniqueConstraint(fields=["scenario", "language"], name="one_translation_per_language")]

    def __str__(self):
        return f"{self.scenario} [{self.language}]"

    @property
    def usable(self) -> bool:
        return self.status == self.Status.APPROVED and not self.out_of_date


class TranslationDraft(models.Model):
    """An author's request for a model's draft of a scenario version in a language, as a
    job a worker runs (`drafting.run_draft`): asked field by field through the gateway,
    slot-checked (a draft that loses or adds a slot or an option is refused here, with
    the reason, and never saved as a translation), translated back into the source
    language by the back-translation model and scored per field. A draft that passes is
    saved as a draft translation, which waits for an author's approval like an upload."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Waiting for a worker"
        RUNNING = "running", "Running"
        DONE = "done", "Done: saved as a draft translation"
        REFUSED = "refused", "Refused"
        FAILED = "failed", "Failed"

    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="translation_drafts")
    language = models.CharField(max_length=35, help_text="BCP 47 code, e.g. zh.")
    model = models.ForeignKey("runs_app.LLMModel", on_delete=models.PROTECT, related_name="+")
    back_model = models.ForeignKey("runs_app.LLMModel", on_delete=models.PROTECT, related_name="+",
                                   verbose_name="back-translation model")
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                     related_name="+")
    requested_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    step = models.CharField(max_length=200, blank=True)
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    prompts = models.JSONField(default=dict, blank=True, help_text="Field → the prompt the model was asked.")
    fields = models.JSONField(default=dict, blank=True, help_text="Field → the model's draft.")
    back_translation = models.JSONField(default=dict, blank=True)
    scores = models.JSONField(default=dict, blank=True)
    reason = models.TextField(blank=True, help_text="Why it was refused or failed: each slot and field.")
    translation = models.ForeignKey(ScenarioTranslation, null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="drafts")

    class Meta:
        ordering = ["-requested_at", "-id"]

    def __str__(self):
        return f"draft of {self.scenario} [{self.language}] by {self.model_id and self.model.name}"

    @property
    def active(self) -> bool:
        return self.status in (self.Status.QUEUED, self.Status.RUNNING)


class ActorNameTranslation(models.Model):
    """An actor's name as prompts in one language write it (中国 for CN in zh), and the
    grammatical forms a translation asks for as `[Actor A:genitive]` (России for RU in ru;
    the forms each language has: `language_codes.NAME_FORMS`)."""

    actor = models.ForeignKey(Actor, on_delete=models.CASCADE, related_name="translated_names")
    language = models.CharField(max_length=35, help_text="BCP 47 code, e.g. zh.")
    name = models.CharField(max_length=120)
    forms = models.JSONField(default=dict, blank=True,
                             help_text="Form name -> the name in that form, e.g. {\"genitive\": \"России\"}.")
    translated_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                      related_name="+")
    provenance = models.CharField(max_length=200, blank=True)
    translated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["actor", "language"]
        constraints = [models.UniqueConstraint(fields=["actor", "language"], name="one_actor_name_per_language")]

    def __str__(self):
        return f"{self.actor.code} [{self.language}]: {self.name}"


# CFPD's answer tallies (its dashboard's counts), read by its analysis (scenarios_app.analysis).
from .tallies import PassTally, QuestionTally  # noqa: E402,F401
