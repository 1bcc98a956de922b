"""The run page's counters (`RunProgress`, kept by triggers: `runs_app.progress_counts`),
each run's planned units per model (`Run.planned`), and the units' run index dropped
(the (run, status) index and the unique constraint lead with run_id). Issue 31: a launch
of 2.66 million units and its run page (bench/launch_scale.py)."""

import django.db.models.deletion
from django.db import migrations, models

from runs_app import progress_counts


def install(apps, schema_editor):
    progress_counts.install(schema_editor)


def uninstall(apps, schema_editor):
    progress_counts.uninstall(schema_editor)


class Migration(migrations.Migration):

    dependencies = [
        ('runs_app', '0016_provider_batches'),
    ]

    operations = [
        migrations.AddField(
            model_name='run',
            name='planned',
            field=models.JSONField(blank=True, help_text='Questions, repeats and units per model, as launched.', null=True),
        ),
        migrations.AlterField(
            model_name='response',
            name='run',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='responses', to='runs_app.run'),
        ),
        migrations.CreateModel(
            name='RunProgress',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('status', models.CharField(max_length=10)),
                ('n', models.BigIntegerField(default=0)),
                ('cached', models.BigIntegerField(default=0)),
                ('prompt_tokens', models.BigIntegerField(default=0)),
                ('completion_tokens', models.BigIntegerField(default=0)),
                ('cost', models.DecimalField(decimal_places=8, default=0, max_digits=20)),
                ('priced', models.BigIntegerField(default=0)),
                ('paid', models.DecimalField(decimal_places=8, default=0, max_digits=20)),
                ('latency_sum', models.BigIntegerField(default=0)),
                ('latency_n', models.BigIntegerField(default=0)),
                ('model', models.ForeignKey(db_constraint=False, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to='runs_app.llmmodel')),
                ('run', models.ForeignKey(db_constraint=False, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to='runs_app.run')),
            ],
        ),
        migrations.AddIndex(
            model_name='response',
            index=models.Index(condition=models.Q(('error_kind', ''), _negated=True),
                               fields=['run', 'model', 'error_kind', 'status'], name='response_run_errors'),
        ),
        migrations.AddIndex(
            model_name='response',
            index=models.Index(condition=models.Q(('cache_hit', False), ('latency_ms__isnull', False)),
                               fields=['model', 'id'], name='response_model_latency'),
        ),
        migrations.RunPython(install, uninstall, elidable=False),
    ]
