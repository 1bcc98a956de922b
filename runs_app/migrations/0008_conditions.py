"""A unit of work is (run, question, model, condition, repeat): every answer so far was
asked as its family writes it, the default condition."""

import django.db.models.deletion
from django.db import migrations, models


def runs_asked_the_default(apps, schema_editor):
    Run = apps.get_model("runs_app", "Run")
    Through = Run.conditions.through
    Through.objects.bulk_create([Through(run_id=pk, condition_id=1) for pk in Run.objects.values_list("pk", flat=True)],
                                batch_size=1000)


class Migration(migrations.Migration):

    dependencies = [
        ("runs_app", "0007_questions_from_benchmarks_app"),
        ("benchmarks_app", "0003_question_without_cfpd_columns"),
    ]

    operations = [
        migrations.AddField(
            model_name="run", name="conditions",
            field=models.ManyToManyField(help_text="How each question is asked: every unit is asked once per condition.",
                                         related_name="runs", to="benchmarks_app.condition")),
        migrations.AddField(
            model_name="response", name="condition",
            field=models.ForeignKey(default=1, on_delete=django.db.models.deletion.PROTECT, related_name="responses",
                                    to="benchmarks_app.condition")),
        migrations.RemoveConstraint(model_name="response", name="one_response_per_unit"),
        migrations.AddConstraint(
            model_name="response",
            constraint=models.UniqueConstraint(fields=("run", "question", "model", "condition", "repeat"),
                                               name="one_response_per_unit")),
        migrations.RunPython(runs_asked_the_default, migrations.RunPython.noop),
    ]
