# Actors (states and other entities) are shared by every family: CFPD's dyads and
# BorderLines' countries name the same ISO-coded rows. The model moves here from
# scenarios_app; its table keeps its name and every row (`db_table`), the foreign keys to
# it are re-pointed in the families' state (scenarios_app 0006, territories_app 0005), and
# its content type follows the model, so its permissions, the role groups holding them and
# the console's history of actor edits stay as they are.

from django.db import migrations, models


def move_content_type(apps, schema_editor, source="scenarios_app", target="benchmarks_app"):
    # On a new database there is no content type yet: post_migrate makes benchmarks_app's.
    ContentType = apps.get_model("contenttypes", "ContentType")
    types = ContentType.objects.using(schema_editor.connection.alias)
    if not types.filter(app_label=target, model="actor").exists():
        types.filter(app_label=source, model="actor").update(app_label=target)


def move_content_type_back(apps, schema_editor):
    move_content_type(apps, schema_editor, source="benchmarks_app", target="scenarios_app")


class Migration(migrations.Migration):

    dependencies = [
        ("benchmarks_app", "0004_family_from_the_registry"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("scenarios_app", "0005_answer_tallies_moved_from_analysis_app"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="Actor",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False,
                                                   verbose_name="ID")),
                        ("code", models.CharField(help_text="ISO 3166 alpha-2 for states; 3-12 capitals, digits or _ "
                                                            "for other entities (NATO, EU, ROC).",
                                                  max_length=12, unique=True)),
                        ("name", models.CharField(help_text="Official name.", max_length=120)),
                        ("prompt_name", models.CharField(help_text="The name put into prompts, e.g. South Korea.",
                                                         max_length=120)),
                        ("takes_article", models.BooleanField(
                            default=False,
                            help_text='Prompts say "the United States": tick for names that take "the".')),
                        ("kind", models.CharField(choices=[("state", "State (ISO 3166)"),
                                                           ("organisation", "International organisation"),
                                                           ("disputed", "Disputed entity"),
                                                           ("territory", "Territory or region")],
                                                  default="state", max_length=20)),
                        ("iso_alpha3", models.CharField(blank=True, max_length=3)),
                    ],
                    options={"ordering": ["code"], "db_table": "scenarios_app_actor"},
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(move_content_type, move_content_type_back),
    ]
