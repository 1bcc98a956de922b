"""CFPD's answer tallies: answers counted ahead of the CFPD dashboard, kept in step with
`runs_app_response` by PostgreSQL triggers (`analysis/tally.py`): at the paper's scale a GROUP BY
over 2.66 million answers takes seconds, a read of the tally milliseconds. They are plain
counts: nothing but the triggers and `rebuild_answer_tallies` writes them, and the
dashboard reads them only on PostgreSQL. Registered as scenarios_app's models by
`scenarios_app.models`; a module of their own beside it (not inside `analysis`, which
reads them), so that the models import nothing of the analysis built on them.

Keys point at their rows without database constraints (deleting a run must not wait on
the tally, and the triggers remove its counts themselves).

Made in analysis_app, moved here without touching a row (scenarios_app migration 0005),
their tables took this app's names later (0008, issue 39), the triggers' functions made
again to name them."""

from django.db import models

# No index per key either: the unique constraint's index leads with run and model, and
# every trigger write would pay for each further index.
KEY = {"on_delete": models.DO_NOTHING, "db_constraint": False, "db_index": False, "related_name": "+"}


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
