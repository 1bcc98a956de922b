# The answer tallies (CFPD's dashboard counts) moved here from analysis_app: the models
# join scenarios_app's state, the tables keep their names and every row (`db_table`), the
# content types follow the models (analysis_app's migration 0004 takes them out of its
# state). The triggers that keep the counts are installed by CFPD's code now: on a database
# that has them (made before the move) they are replaced by the same ones and the counts
# are kept; on a new database they are installed here and count what there is.

import django.db.models.deletion
from django.db import migrations, models

MOVED = ["passtally", "questiontally"]


def move_content_types(apps, schema_editor, source="analysis_app", target="scenarios_app"):
    # Permissions and admin log entries point at content types: those of the moved models
    # are relabelled rather than made anew (the tallies have no permissions today).
    ContentType = apps.get_model("contenttypes", "ContentType")
    types = ContentType.objects.using(schema_editor.connection.alias)
    for model in MOVED:
        if not types.filter(app_label=target, model=model).exists():
            types.filter(app_label=source, model=model).update(app_label=target)


def move_content_types_back(apps, schema_editor):
    move_content_types(apps, schema_editor, source="scenarios_app", target="analysis_app")


def install_triggers(apps, schema_editor):
    # Installed by 0008 now, once the tables have scenarios_app's names: the code that makes
    # the triggers (scenarios_app.analysis.tally) names the tables as they are named today.
    pass


class Migration(migrations.Migration):

    dependencies = [
        ('analysis_app', '0003_computed_figures'),
        ('benchmarks_app', '0003_question_without_cfpd_columns'),
        ('contenttypes', '0002_remove_content_type_name'),
        ('runs_app', '0010_response_previous'),
        ('scenarios_app', '0004_scenario_questions'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='PassTally',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('variant', models.CharField(max_length=20)),
                        ('choice_count', models.PositiveSmallIntegerField()),
                        ('repeat', models.PositiveSmallIntegerField()),
                        ('code', models.CharField(blank=True, max_length=1)),
                        ('code_source', models.CharField(blank=True, max_length=12)),
                        ('status', models.CharField(max_length=10)),
                        ('n', models.IntegerField()),
                        ('changed', models.BigIntegerField()),
                        ('condition', models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to='benchmarks_app.condition')),
                        ('domain', models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to='scenarios_app.domain')),
                        ('model', models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to='runs_app.llmmodel')),
                        ('run', models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to='runs_app.run')),
                        ('scenario', models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to='scenarios_app.scenario')),
                    ],
                    options={
                        'db_table': 'analysis_app_passtally',
                        'default_permissions': (),
                        'constraints': [models.UniqueConstraint(fields=('run', 'model', 'condition', 'scenario', 'domain', 'variant', 'choice_count', 'repeat', 'code', 'code_source', 'status'), name='one_pass_tally_per_key')],
                    },
                ),
                migrations.CreateModel(
                    name='QuestionTally',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('code', models.CharField(blank=True, max_length=1)),
                        ('code_source', models.CharField(blank=True, max_length=12)),
                        ('status', models.CharField(max_length=10)),
                        ('n', models.IntegerField()),
                        ('changed', models.BigIntegerField()),
                        ('condition', models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to='benchmarks_app.condition')),
                        ('model', models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to='runs_app.llmmodel')),
                        ('question', models.ForeignKey(db_constraint=False, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to='benchmarks_app.question')),
                        ('run', models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to='runs_app.run')),
                    ],
                    options={
                        'db_table': 'analysis_app_questiontally',
                        'default_permissions': (),
                        'constraints': [models.UniqueConstraint(fields=('run', 'model', 'condition', 'question', 'code', 'code_source', 'status'), name='one_question_tally_per_key')],
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(move_content_types, move_content_types_back),
        # Backwards the triggers stay: they name the tables, which stay too.
        migrations.RunPython(install_triggers, migrations.RunPython.noop),
    ]
