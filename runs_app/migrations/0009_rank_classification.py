from django.db import migrations, models

from gateway.local_models import BUNDLED, RANK_SUFFIX, rank_registration


def register(apps, schema_editor):
    LLMModel = apps.get_model("runs_app", "LLMModel")
    for bundled in BUNDLED:
        LLMModel.objects.update_or_create(name=bundled.name + RANK_SUFFIX, defaults=rank_registration(bundled))


class Migration(migrations.Migration):

    dependencies = [
        ("runs_app", "0008_conditions"),
    ]

    operations = [
        migrations.AlterField(
            model_name="llmmodel", name="answer_mode",
            field=models.CharField(choices=[
                ("choice", "Choice: the option letter from the model's own probabilities"),
                ("generate", "Generate: free text, coded afterwards"),
                ("rank", "Rank: the log-probability of each option's text as the continuation of the question")],
                default="generate", max_length=10)),
        migrations.AddField(
            model_name="response", name="option_mean_logprobs",
            field=models.JSONField(blank=True, null=True, help_text=(
                "Rank classification: {letter: log-probability per token of the option}"))),
        migrations.RunPython(register, migrations.RunPython.noop),
    ]
