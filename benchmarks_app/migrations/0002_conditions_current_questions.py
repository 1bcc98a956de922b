import django.db.models.deletion  # noqa: F401
from django.db import migrations, models


def default_condition(apps, schema_editor):
    Condition = apps.get_model("benchmarks_app", "Condition")
    Condition.objects.update_or_create(pk=1, defaults=dict(
        name="default", label="As the family writes it", kind="default", family="", position=0,
        description="The family's own prompt and the model's own sampling parameters."))
    if schema_editor.connection.vendor == "postgresql":
        # The row was given its id: the sequence must move past it, or the next condition
        # created (a family's strategies) would be given id 1 again.
        schema_editor.execute("SELECT setval(pg_get_serial_sequence('benchmarks_app_condition', 'id'), "
                              "(SELECT MAX(id) FROM benchmarks_app_condition))")


class Migration(migrations.Migration):

    dependencies = [
        ("benchmarks_app", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="question", name="is_current",
            field=models.BooleanField(default=True, help_text="Asked by new runs; a family clears it when the "
                                                              "question is superseded.")),
        migrations.CreateModel(
            name="Condition",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.SlugField(max_length=64, unique=True)),
                ("label", models.CharField(max_length=120)),
                ("kind", models.CharField(choices=[("default", "As the family writes it"),
                                                   ("strategy", "Prompt strategy"),
                                                   ("temperature", "Sampling temperature")],
                                          default="strategy", max_length=20)),
                ("family", models.CharField(blank=True, choices=[("cfpd", "CFPD scenarios"),
                                                                 ("borderlines", "Territorial disputes (BorderLines)"),
                                                                 ("freeform", "Free-form crisis simulation")],
                                            help_text="The family it is meant for; empty for any.", max_length=20)),
                ("system_prompt", models.TextField(blank=True, max_length=20000, help_text=(
                    "Replaces the family's system prompt when not empty. A family may fill placeholders in it "
                    "(BorderLines: {country}, the country whose language the question is in)."))),
                ("temperature", models.FloatField(blank=True, null=True,
                                                  help_text="Replaces the model's sampling temperature when set.")),
                ("description", models.TextField(blank=True)),
                ("position", models.PositiveSmallIntegerField(default=0)),
            ],
            options={"ordering": ["position", "name"]},
        ),
        migrations.RunPython(default_condition, migrations.RunPython.noop),
    ]
