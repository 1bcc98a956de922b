"""Codes given to answers, the reviewers' tasks that produce them, and the coding policy.

Every code is a row that is never edited away: a new code supersedes the current one
(`is_current` moves), an undone code keeps its row with `undone_at`. The response's
current code is also copied onto the response (`Response.code`, `Response.code_source`)
so that analysis can aggregate millions of answers without a join per answer.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q

from benchmarks_app.lettering import LETTERS


class Source(models.TextChoices):
    CHOICE = "choice", "Choice mode (model's own probabilities)"
    AUTO = "auto", "Automatic rule"
    REVIEWER = "reviewer", "Reviewer"
    ADJUDICATION = "adjudication", "Adjudication"
    JUDGE = "judge", "Promoted judge model"


# A code is the chosen option's canonical position, A to J (2 to 10 options), R, or X
# (invalid: no option chosen, and no refusal; see encoding_app.letters).
CODE_CHOICES = [(letter, letter) for letter in LETTERS] + [("R", "R (refusal)"), ("X", "X (invalid: no option, no refusal)")]


class CodingPolicy(models.Model):
    """How much double coding and auditing the team does. One row (pk 1), edited in admin."""

    double_coding_share = models.FloatField(
        default=0.2, help_text="Share of reviewer-coded answers sent blind to a second reviewer (0–1).")
    audit_share = models.FloatField(
        default=0.1, help_text="Share of automatically coded answers sent blind to a reviewer, to audit the rules (0–1).")
    lease_minutes = models.PositiveIntegerField(
        default=10, help_text="How long a reviewer holds an item before it returns to the queue.")
    seed = models.IntegerField(default=0, help_text="Changes which answers the shares pick; the pick is reproducible.")
    min_rule_accuracy = models.FloatField(
        default=0.97, help_text="A rule whose audited accuracy has a Wilson 95% lower bound below this stops "
                                "coding (its answers go to reviewers) until an admin re-enables it.")
    min_audited_items = models.PositiveIntegerField(
        default=30, help_text="Audited answers a rule needs before it can be suspended.")
    min_judge_items = models.PositiveIntegerField(
        default=100, help_text="Answers both a judge model and a person coded before the judge can be promoted.")

    class Meta:
        verbose_name = "coding policy"
        verbose_name_plural = "coding policy"

    def __str__(self):
        return (f"double coding {self.double_coding_share:.0%}, audit {self.audit_share:.0%}, "
                f"lease {self.lease_minutes} min")

    @classmethod
    def current(cls):
        policy, _ = cls.objects.get_or_create(pk=1)
        return policy


class ReviewTask(models.Model):
    """One piece of work for a person: code an answer (first or blind second coding,
    or a blind audit of an automatic code), or adjudicate a disagreement."""

    class Purpose(models.TextChoices):
        PRIMARY = "primary", "Code (automatic encoder could not)"
        SECOND = "second", "Second coding (blind)"
        AUDIT = "audit", "Audit of an automatic code (blind)"
        ADJUDICATION = "adjudication", "Adjudication"

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        DONE = "done", "Done"
        WITHDRAWN = "withdrawn", "Withdrawn"  # no longer needed: re-encoding resolved it, or its cause was undone

    # Keys to an answer are kept by Django, not the database (db_constraint=False): on PostgreSQL the
    # answers are partitioned by run (runs_app 0026), and no foreign key can point at (id) alone there.
    response = models.ForeignKey("runs_app.Response", on_delete=models.CASCADE, related_name="review_tasks",
                                 db_constraint=False)
    purpose = models.CharField(max_length=12, choices=Purpose.choices)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    leased_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                  related_name="+")
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    done_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                related_name="+")
    done_at = models.DateTimeField(null=True, blank=True)
    reason = models.CharField(max_length=40, blank=True,
                              help_text="Why the automatic encoder left it to a person (its rule, e.g. conflicting-letters).")
    explanation = models.TextField(blank=True, help_text="The encoder's reason as a sentence for the reviewer.")
    caused_by = models.ForeignKey("Code", null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
                                  help_text="The code that asked for this task (a first code picked for second "
                                            "coding, a disagreeing code); undoing that code withdraws the task.")
    created_at = models.DateTimeField(auto_now_add=True)
    # Users who skipped it: it is not offered to them again.
    skipped_by = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="+")

    class Meta:
        constraints = [
            # One open task of each purpose per answer: re-encoding or a retried request cannot queue it twice.
            models.UniqueConstraint(fields=["response", "purpose"], condition=Q(status="open"),
                                    name="one_open_task_per_purpose"),
        ]
        indexes = [
            # The queue: open tasks of a purpose, oldest first.
            models.Index(fields=["purpose", "status", "id"], name="reviewtask_queue"),
        ]
        permissions = [
            ("code_responses", "Can code model answers in the reviewers' queue"),
            ("adjudicate_codes", "Can adjudicate disagreements between codes"),
        ]

    def __str__(self):
        return f"{self.get_purpose_display()} of response {self.response_id}"

    @property
    def blind(self):
        return self.purpose in (self.Purpose.SECOND, self.Purpose.AUDIT)


class Code(models.Model):
    """One code given to one answer: canonical `A` … `J` (the options in the order the
    author wrote them, whatever order they were shown in), `R` for a refusal, or `X` for an
    invalid answer (no option chosen, no refusal)."""

    response = models.ForeignKey("runs_app.Response", on_delete=models.CASCADE, related_name="codes",
                                 db_constraint=False)  # as ReviewTask.response
    code = models.CharField(max_length=1, choices=CODE_CHOICES)
    presented_letter = models.CharField(max_length=1, blank=True,
                                        help_text="The letter as shown to the model (differs when options were permuted).")
    source = models.CharField(max_length=12, choices=Source.choices)
    rule = models.CharField(max_length=40, blank=True, help_text="The automatic rule that fired.")
    confidence = models.FloatField(null=True, blank=True)
    task = models.ForeignKey(ReviewTask, null=True, blank=True, on_delete=models.SET_NULL, related_name="codes")
    coder = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                              related_name="+")
    note = models.TextField(blank=True)
    is_current = models.BooleanField(default=False)
    supersedes = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
                                   help_text="The code that was current before this one (undo restores it).")
    undone_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["response"], condition=Q(is_current=True), name="one_current_code"),
        ]
        indexes = [models.Index(fields=["coder", "created_at"], name="code_by_coder")]

    def __str__(self):
        return f"{self.code} ({self.source}) for response {self.response_id}"


class RuleStatus(models.Model):
    """A rule's audited accuracy (automatic codes against people's on the audit sample)
    and whether it may code. Refreshed after every audit; an admin re-enables a
    suspended rule, and its audit window then starts again (`counted_from`)."""

    rule = models.CharField(max_length=40, unique=True)
    audited = models.PositiveIntegerField(default=0, help_text="Audited answers since `counted_from`.")
    correct = models.PositiveIntegerField(default=0)
    lower = models.FloatField(null=True, blank=True, help_text="Wilson 95% interval of the accuracy.")
    upper = models.FloatField(null=True, blank=True)
    suspended = models.BooleanField(default=False)
    suspended_at = models.DateTimeField(null=True, blank=True)
    counted_from = models.DateTimeField(null=True, blank=True,
                                        help_text="Audits of codes given before this (set on re-enabling) "
                                                  "no longer count towards suspension.")
    reenabled_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                     related_name="+")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["rule"]
        verbose_name_plural = "rule statuses"

    def __str__(self):
        return f"{self.rule} ({'suspended' if self.suspended else 'coding'})"

    @property
    def accuracy(self):
        return self.correct / self.audited if self.audited else None


class Judge(models.Model):
    """A model asked to read answers the encoder left unresolved. Its readings are
    suggestions to reviewers until an admin promotes it (after enough audited answers);
    a promoted judge's readings are codes (source `judge`)."""

    model = models.OneToOneField("runs_app.LLMModel", on_delete=models.PROTECT, related_name="judge")
    promoted = models.BooleanField(default=False)
    promoted_at = models.DateTimeField(null=True, blank=True)
    promoted_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="+")
    demoted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["model__name"]

    def __str__(self):
        return f"judge {self.model.name}{' (promoted)' if self.promoted else ''}"

    @property
    def rule(self) -> str:
        """The rule name its codes carry, so the audit counts its errors like a rule's."""
        return f"judge:{self.model.name}"[:40]


class JudgeRequest(models.Model):
    """One judge unit (a response of a judge run, with its own prompt) and the answer it
    reads. A response that is a judge unit is never a CFPD answer: analysis and coding
    leave it out."""

    # Kept by Django, not the database (as ReviewTask.response: the answers are partitioned by run).
    judge_response = models.OneToOneField("runs_app.Response", on_delete=models.CASCADE, related_name="judge_request",
                                          db_constraint=False)
    target_response = models.ForeignKey("runs_app.Response", on_delete=models.CASCADE, related_name="judge_requests",
                                        db_constraint=False)
    judge = models.ForeignKey(Judge, on_delete=models.PROTECT, related_name="requests")
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                     related_name="+")
    # The judge's reading, by the same encoder as the models' answers: a presented
    # letter, R, or empty when it could not tell (or has not answered yet).
    reading = models.CharField(max_length=1, blank=True)
    code = models.CharField(max_length=1, blank=True, help_text="The reading in canonical letters.")
    reading_rule = models.CharField(max_length=40, blank=True)
    read_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["target_response", "read_at"], name="judgerequest_target")]

    def __str__(self):
        return f"{self.judge} on response {self.target_response_id}"
