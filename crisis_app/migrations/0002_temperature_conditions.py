"""Sampling temperatures 0.0 … 1.2 as conditions of the free-form family (t0-0 … t1-2):
a run samples every variant at each temperature it names, and each answer records its
temperature through its condition. Authors may add more in the console."""

from django.db import migrations

from crisis_app.temperatures import TEMPERATURES, condition_name


def seed(apps, schema_editor):
    Condition = apps.get_model("benchmarks_app", "Condition")
    for position, temperature in enumerate(TEMPERATURES, start=30):
        Condition.objects.update_or_create(name=condition_name(temperature), defaults=dict(
            label=f"Temperature {temperature:.1f}", kind="temperature", family="freeform",
            temperature=temperature, position=position,
            description="Samples the model at this temperature (generate mode)."))


def unseed(apps, schema_editor):
    apps.get_model("benchmarks_app", "Condition").objects.filter(
        name__in=[condition_name(t) for t in TEMPERATURES], responses__isnull=True).delete()


class Migration(migrations.Migration):

    dependencies = [
        ("crisis_app", "0001_initial"),
        ("benchmarks_app", "0003_question_without_cfpd_columns"),
    ]

    operations = [migrations.RunPython(seed, unseed)]
