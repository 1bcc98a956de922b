"""Free-form crisis simulations: what authors write (a simulation, its variants and its
move-2 continuations), the questions they become in the shared question table, and the
inconsistency scores of sampled answers.

A variant is one way of telling the simulation: its replacement map names the nations
(explicitly or anonymised), its text overrides rewrite parts of it (an ablation), and its
level says what kind of change it is (0 the base telling, 1 meaning-preserving, 2
meaningful). Each variant asks one move-1 question and one move-2 question per
continuation; move 2 follows the model's own move-1 answer in the same conversation.
"""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models

from benchmarks_app.models import Benchmark, Condition, Question

# The family's name in the registry (benchmarks_app.families) and in Benchmark.family:
# here, below every other module of the app (family.py names its Family with it).
FAMILY = "freeform"

TEXT_FIELDS = ("background", "role", "answer_format", "move1_incident")


class Simulation(models.Model):
    benchmark = models.ForeignKey(Benchmark, on_delete=models.PROTECT, related_name="simulations",
                                  limit_choices_to={"family": FAMILY})
    key = models.SlugField(max_length=64)
    title = models.CharField(max_length=200)
    background = models.TextField(help_text="The scenario, with placeholders such as {PLAYER} that each variant fills.")
    role = models.TextField(help_text="The decision-maker the model plays (the system message), e.g. the "
                                      "national security advisor to the President of {PLAYER}.")
    answer_format = models.TextField(help_text="The required answer format, e.g. RECOMMENDATIONS: … REASONING: …")
    move1_incident = models.TextField(help_text="Move 1: the incident the model advises on.")
    scored_section = models.CharField(max_length=60, default="RECOMMENDATIONS",
                                      help_text="The section of an answer that is scored (after this label).")
    section_end = models.CharField(max_length=60, default="REASONING",
                                   help_text="The label that ends the scored section.")
    ranked_options = models.JSONField(
        default=list, blank=True,
        help_text='Options a "ranked" variant asks the model to rank instead of writing free text: ["…", "…"].')
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["benchmark__name", "key"]
        # The family's dashboard (its registration's Dashboard.permission; analysts hold it).
        permissions = [("view_crisis_dashboard", "Can read the crisis-inconsistency dashboards and their API")]
        constraints = [models.UniqueConstraint(fields=["benchmark", "key"], name="one_simulation_key_per_benchmark")]

    def __str__(self):
        return f"{self.benchmark.name}/{self.key}"

    def texts(self) -> dict[str, str]:
        texts = {name: getattr(self, name) for name in TEXT_FIELDS}
        texts.update({f"continuation:{c.name}": c.text for c in self.continuations.all()})
        return texts


class Continuation(models.Model):
    """What happens after the model's move-1 answer (e.g. status quo, revisionist escalation)."""

    simulation = models.ForeignKey(Simulation, on_delete=models.CASCADE, related_name="continuations")
    name = models.SlugField(max_length=64, help_text="As the release names its folder, e.g. status_quo.")
    label = models.CharField(max_length=120, blank=True)
    text = models.TextField(help_text="Move 2: what happened next, with the same placeholders.")
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["simulation", "position", "name"]
        constraints = [models.UniqueConstraint(fields=["simulation", "name"], name="one_continuation_name")]

    def __str__(self):
        return self.name


class Variant(models.Model):
    class Level(models.IntegerChoices):
        BASE = 0, "Base telling"
        MEANING_PRESERVING = 1, "Level 1: meaning-preserving rewrite"
        MEANINGFUL = 2, "Level 2: meaningful change"

    class AnswerKind(models.TextChoices):
        FREE = "free", "Free text"
        RANKED = "ranked", "Ranked options"

    simulation = models.ForeignKey(Simulation, on_delete=models.CASCADE, related_name="variants")
    name = models.SlugField(max_length=64)
    label = models.CharField(max_length=120, blank=True)
    level = models.PositiveSmallIntegerField(choices=Level.choices, default=Level.BASE)
    ablation = models.CharField(max_length=60, blank=True,
                                help_text="What the rewrite changes: paraphrase, synonyms, restructured sentences, "
                                          "setting, role, which nation is the ally …")
    explicit = models.BooleanField(default=True, help_text="Real nation names (checked) or anonymised ones.")
    replacements = models.JSONField(default=dict, help_text='{"{PLAYER}": "Finland", …}: applied to every text.')
    text_overrides = models.JSONField(
        default=dict, blank=True,
        help_text='Texts this variant rewrites: {"background": "…", "move1_incident": "…", '
                  '"continuation:status_quo": "…"}.')
    answer_kind = models.CharField(max_length=10, choices=AnswerKind.choices, default=AnswerKind.FREE)
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["simulation", "position", "name"]
        constraints = [models.UniqueConstraint(fields=["simulation", "name"], name="one_variant_name")]

    def __str__(self):
        return f"{self.simulation.key}:{self.name}"

    def clean(self):
        from . import authoring

        errors = authoring.variant_errors(self.simulation.texts(), self.replacements or {}, self.text_overrides or {},
                                          self.answer_kind, self.simulation.ranked_options or [])
        if errors:
            raise ValidationError(errors)


class CrisisQuestion(models.Model):
    """The family's own columns of a question: which variant, which move, which continuation."""

    question = models.OneToOneField(Question, on_delete=models.CASCADE, related_name="crisis")
    variant = models.ForeignKey(Variant, on_delete=models.PROTECT, related_name="questions")
    move = models.PositiveSmallIntegerField()
    continuation = models.ForeignKey(Continuation, null=True, blank=True, on_delete=models.PROTECT,
                                     related_name="questions")
    system_text = models.TextField(blank=True, help_text="The variant's role as asked (the system message).")

    class Meta:
        indexes = [models.Index(fields=["variant", "move"], name="crisis_question_variant_move")]

    def __str__(self):
        return self.question.key


class Scorer(models.Model):
    """What produced an inconsistency score: stored with every score."""

    class Kind(models.TextChoices):
        BERTSCORE = "bertscore", "BERTScore"
        IMPORTED = "imported", "Imported pairwise values"
        KENDALL = "kendall", "Kendall-τ distance (ranked options)"

    name = models.SlugField(max_length=64, unique=True)
    kind = models.CharField(max_length=20, choices=Kind.choices)
    class Check(models.TextChoices):
        SELF_CHECK = "self-check", "self-check"
        VALIDATION = "validation", "validation"
        CONFIGURATION = "configuration", "configuration check"

    config = models.JSONField(default=dict, help_text="Encoder, layer, idf, baseline and versions.")
    created_at = models.DateTimeField(auto_now_add=True)
    # Set when the instrument behind this name failed a check (crisis_app.instrument_state): its
    # stored scores are shown marked, not as results, until they are scored again (--rescore).
    check_failed_at = models.DateTimeField(null=True, blank=True)
    failed_check = models.CharField(max_length=20, choices=Check.choices, blank=True)
    check_problem = models.TextField(blank=True, help_text="What the failed check found.")

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name


class GroupScore(models.Model):
    """The inconsistency of one group: the samples of one (run, model, question, condition);
    the question fixes the variant, the move and the continuation."""

    run = models.ForeignKey("runs_app.Run", on_delete=models.CASCADE, related_name="inconsistency_scores")
    model = models.ForeignKey("runs_app.LLMModel", on_delete=models.CASCADE, related_name="+")
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="+")
    condition = models.ForeignKey(Condition, on_delete=models.PROTECT, related_name="+")
    scorer = models.ForeignKey(Scorer, on_delete=models.PROTECT, related_name="scores")
    n_samples = models.PositiveIntegerField()
    n_pairs = models.PositiveIntegerField()
    mean = models.FloatField()
    pair_values = models.JSONField(default=list, help_text="Each pair's inconsistency, pairs i < j row-major.")
    response_ids = models.JSONField(default=list, help_text="The samples, in the order the pairs index them.")
    sections_missing = models.PositiveIntegerField(default=0,
                                                   help_text="Samples scored whole: the scored section was absent.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "model", "question", "condition", "scorer"],
                                               name="one_score_per_group_and_scorer")]


class SimulationTranslation(models.Model):
    """A simulation's texts in another language (issue 41): every text a question is made of
    (`Simulation.texts()`: background, role, answer format, move-1 incident, each
    continuation), its `{PLAYER}`-style placeholders kept. It belongs to the texts it
    translates: `source_hash` is their hash when it was written, and it is out of date once
    the simulation's texts differ (`translation_texts.is_out_of_date`). Approved by an author
    who reads the language; not yet asked (the family's rendering in other languages is a
    later part of issue 41)."""

    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        APPROVED = "approved", "Approved"

    simulation = models.ForeignKey(Simulation, on_delete=models.CASCADE, related_name="translations")
    language = models.CharField(max_length=35, help_text="BCP 47 code, e.g. zh, zh-Hant, ru.")
    texts = models.JSONField(default=dict, help_text="Field (background, role, …, continuation:NAME) → its translation.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    source_hash = models.CharField(max_length=64, help_text="The hash of the simulation's texts it translates.")
    provenance = models.CharField(max_length=200, help_text="Where it came from: 'person' or 'import:FILE'.")
    translated_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                      related_name="+")
    translated_at = models.DateTimeField()
    approved_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    approved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["simulation", "language"]
        constraints = [models.UniqueConstraint(fields=["simulation", "language"],
                                               name="one_simulation_translation_per_language")]

    def __str__(self):
        return f"{self.simulation} [{self.language}]"
