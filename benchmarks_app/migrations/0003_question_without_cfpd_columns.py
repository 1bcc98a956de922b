"""The shared question table keeps what every family has; CFPD's columns were copied to
scenarios_app.ScenarioQuestion (its 0004). The tables take this app's names."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("benchmarks_app", "0002_conditions_current_questions"),
        ("scenarios_app", "0004_scenario_questions"),
    ]

    operations = [
        migrations.RemoveIndex(model_name="question", name="question_by_domain"),
        migrations.RemoveField(model_name="question", name="scenario"),
        migrations.RemoveField(model_name="question", name="variant"),
        migrations.RemoveField(model_name="question", name="domain"),
        migrations.RemoveField(model_name="question", name="actor_a"),
        migrations.RemoveField(model_name="question", name="actor_b"),
        migrations.RemoveField(model_name="question", name="qualified_actor"),
        migrations.AlterField(model_name="question", name="options",
                              field=models.JSONField(default=list, help_text='[{"text": …, …}] in canonical order')),
        migrations.AlterField(model_name="question", name="option_order",
                              field=models.JSONField(default=list, help_text=(
                                  "Indexes into options, in the order they are lettered."))),
        migrations.AddIndex(model_name="question",
                            index=models.Index(fields=["benchmark", "is_current", "choice_count"],
                                               name="question_current")),
        migrations.AlterModelTable(name="benchmark", table=None),
        migrations.AlterModelTable(name="question", table=None),
    ]
