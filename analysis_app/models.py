"""The analysis app owns no answers. `Dashboard` carries the permission that opens the
dashboards (given to the analysts role). The two tallies are answers counted ahead of
the dashboard, kept in step with `runs_app_response` by PostgreSQL triggers (`tally.py`):
at the paper's scale a GROUP BY over 2.66 million answers takes seconds, a read of the
tally milliseconds. They are plain counts: nothing but the triggers and
`rebuild_answer_tallies` writes them, and the dashboard reads them only on PostgreSQL.

Keys point at their rows without database constraints (deleting a run must not wait on
the tally, and the triggers remove its counts themselves)."""

from django.db import models

# No index per key either: the unique constraint's index leads with run and model, and
# every trigger write would pay for each further index.
KEY = {"on_delete": models.DO_NOTHING, "db_constraint": False, "db_index": False, "related_name": "+"}


class Dashboard(models.Model):
    class Meta:
        managed = False
        default_permissions = ()
        permissions = [("view_dashboard", "Can read the analysis dashboards and reports")]


class PassTally(models.Model):
    """Answers per (run, model, condition, scenario form, repeat, code, status): the
    dashboard's main table (rates, repeats, entropy, refusals, differences). Only answers
    to CFPD questions with options are counted, as `AnalysisFilter.responses` reads them."""

    run = models.ForeignKey("runs_app.Run", **KEY)
    model = models.ForeignKey("runs_app.LLMModel", **KEY)
    condition = models.ForeignKey("benchmarks_app.Condition", **KEY)
    scenario = models.ForeignKey("scenarios_app.Scenario", **KEY)
    domain = models.ForeignKey("scenarios_app.Domain", **KEY)
    variant = models.CharField(max_length=20)
    choice_count = models.PositiveSmallIntegerField()
    repeat = models.PositiveSmallIntegerField()
    code = models.CharField(max_length=1, blank=True)
    code_source = models.CharField(max_length=12, blank=True)
    status = models.CharField(max_length=10)
    n = models.IntegerField()
    # Sequence value of the last change: their sum moves with every committed change,
    # whichever transaction commits first (`tally.version`).
    changed = models.BigIntegerField()

    class Meta:
        default_permissions = ()
        constraints = [models.UniqueConstraint(
            fields=["run", "model", "condition", "scenario", "domain", "variant", "choice_count", "repeat", "code",
                    "code_source", "status"], name="one_pass_tally_per_key")]


class QuestionTally(models.Model):
    """Answers per (run, model, condition, question, code, status), repeats pooled: the
    per-country panels and the dyad heatmap, which need the question's actors."""

    run = models.ForeignKey("runs_app.Run", **KEY)
    model = models.ForeignKey("runs_app.LLMModel", **KEY)
    condition = models.ForeignKey("benchmarks_app.Condition", **KEY)
    # The per-country panels look up the questions of five actors (an index probe each).
    question = models.ForeignKey("benchmarks_app.Question", **{**KEY, "db_index": True})
    code = models.CharField(max_length=1, blank=True)
    code_source = models.CharField(max_length=12, blank=True)
    status = models.CharField(max_length=10)
    n = models.IntegerField()
    changed = models.BigIntegerField()

    class Meta:
        default_permissions = ()
        constraints = [models.UniqueConstraint(
            fields=["run", "model", "condition", "question", "code", "code_source", "status"],
            name="one_question_tally_per_key")]


class ComputedFigure(models.Model):
    """A figure too slow to compute inside a request (an encoder to load, seconds of
    bootstrap), computed by the worker (`analysis_app.tasks.compute_figure`) and kept here
    for every process (the embedded default's cache is per process). `key` names
    everything the result depends on; the page shows `result` with `computed_at`, or a
    placeholder while the row is pending or running (`analysis_app.computed`)."""

    class Status(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    key = models.CharField(max_length=128, unique=True)
    kind = models.CharField(max_length=40)
    params = models.JSONField(default=dict)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    requested_at = models.DateTimeField()
    started_at = models.DateTimeField(null=True, blank=True)
    computed_at = models.DateTimeField(null=True, blank=True)
    seconds = models.FloatField(null=True, blank=True)

    class Meta:
        default_permissions = ()

    def __str__(self):
        return f"{self.kind} {self.key[:12]} ({self.status})"
