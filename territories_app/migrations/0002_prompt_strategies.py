"""The paper's prompt strategies (appendix E) as conditions of the BorderLines family:
bl-vanilla, bl-un-peacekeeper, bl-nationalist, bl-input-demographics,
bl-output-demographic-reasoning. Authors may add more in the console."""

from django.db import migrations

from territories_app.prompting import STRATEGIES


def seed(apps, schema_editor):
    Condition = apps.get_model("benchmarks_app", "Condition")
    for position, strategy in enumerate(STRATEGIES, start=10):
        Condition.objects.update_or_create(name=f"bl-{strategy['slug']}", defaults=dict(
            label=f"BorderLines: {strategy['name']}", kind="strategy", family="borderlines",
            system_prompt=strategy["system_prompt"] or "", description=strategy.get("description", ""),
            position=position))


def unseed(apps, schema_editor):
    apps.get_model("benchmarks_app", "Condition").objects.filter(
        name__in=[f"bl-{s['slug']}" for s in STRATEGIES], responses__isnull=True).delete()


class Migration(migrations.Migration):

    dependencies = [
        ("territories_app", "0001_initial"),
        ("benchmarks_app", "0003_question_without_cfpd_columns"),
    ]

    operations = [migrations.RunPython(seed, unseed)]
