"""CFPD's own columns of a question (scenario, variant, domain, dyad, qualified actor)
move from the shared question table to scenarios_app's ScenarioQuestion, one row per
question; a question of a superseded scenario version is no longer current."""

import django.db.models.deletion
from django.db import migrations, models


def copy_cfpd_columns(apps, schema_editor):
    Question = apps.get_model("benchmarks_app", "Question")
    ScenarioQuestion = apps.get_model("scenarios_app", "ScenarioQuestion")
    rows = Question.objects.filter(scenario__isnull=False).values_list(
        "pk", "scenario_id", "variant", "domain_id", "actor_a_id", "actor_b_id", "qualified_actor_id")
    batch = []
    for pk, scenario, variant, domain, actor_a, actor_b, qualified in rows.iterator(chunk_size=5000):
        batch.append(ScenarioQuestion(question_id=pk, scenario_id=scenario, variant=variant, domain_id=domain,
                                      actor_a_id=actor_a, actor_b_id=actor_b, qualified_actor_id=qualified))
        if len(batch) >= 5000:
            ScenarioQuestion.objects.bulk_create(batch)
            batch = []
    ScenarioQuestion.objects.bulk_create(batch)
    Question.objects.filter(scenario__is_current=False).update(is_current=False)


def copy_back(apps, schema_editor):
    Question = apps.get_model("benchmarks_app", "Question")
    ScenarioQuestion = apps.get_model("scenarios_app", "ScenarioQuestion")
    for row in ScenarioQuestion.objects.all().iterator(chunk_size=5000):
        Question.objects.filter(pk=row.question_id).update(
            scenario_id=row.scenario_id, variant=row.variant, domain_id=row.domain_id, actor_a_id=row.actor_a_id,
            actor_b_id=row.actor_b_id, qualified_actor_id=row.qualified_actor_id)


class Migration(migrations.Migration):

    dependencies = [
        ("scenarios_app", "0003_benchmark_and_question_moved"),
        ("benchmarks_app", "0002_conditions_current_questions"),
    ]

    operations = [
        migrations.CreateModel(
            name="ScenarioQuestion",
            fields=[
                ("question", models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True,
                                                  related_name="cfpd", serialize=False,
                                                  to="benchmarks_app.question")),
                ("variant", models.CharField(default="full", max_length=20, help_text=(
                    "full, or no-middle for a three-option scenario asked with two options."))),
                ("actor_a", models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name="+",
                                              to="scenarios_app.actor")),
                ("actor_b", models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name="+",
                                              to="scenarios_app.actor")),
                ("domain", models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name="+",
                                             to="scenarios_app.domain")),
                ("qualified_actor", models.ForeignKey(on_delete=django.db.models.deletion.PROTECT,
                                                      related_name="+", to="scenarios_app.actor")),
                ("scenario", models.ForeignKey(on_delete=django.db.models.deletion.PROTECT,
                                               related_name="cfpd_questions", to="scenarios_app.scenario")),
            ],
            options={"indexes": [models.Index(fields=["domain", "qualified_actor"],
                                              name="cfpd_question_by_domain")]},
        ),
        migrations.RunPython(copy_cfpd_columns, copy_back),
    ]
