"""A unit's foreign keys kept by Django, not by database constraints (their deferred
checks, five per unit at commit, were ~40 % of a paper-scale launch: issue 31,
bench/launch_scale.py; see the note on `Response.run`), and three indexes a launch's
pending units no longer enter: previous and provider batch indexed where set only, and
the model's own index dropped for (model, id), which serves the same lookups. On
PostgreSQL explorer_app's migration 0002 made that index before it was declared here:
IF NOT EXISTS, so either order of the two migrations leaves one."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('benchmarks_app', '0006_data_version'),
        ('runs_app', '0017_run_progress'),
    ]

    operations = [
        migrations.AlterField(
            model_name='response',
            name='condition',
            field=models.ForeignKey(db_constraint=False, default=1, on_delete=django.db.models.deletion.PROTECT, related_name='responses', to='benchmarks_app.condition'),
        ),
        migrations.AlterField(
            model_name='response',
            name='model',
            field=models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='responses', to='runs_app.llmmodel'),
        ),
        migrations.AlterField(
            model_name='response',
            name='previous',
            field=models.ForeignKey(blank=True, db_constraint=False, db_index=False, help_text="The unit this one follows in the same conversation (its answer is part of this unit's prompt).", null=True, on_delete=django.db.models.deletion.CASCADE, related_name='follow_ups', to='runs_app.response'),
        ),
        migrations.AlterField(
            model_name='response',
            name='provider_batch',
            field=models.ForeignKey(blank=True, db_constraint=False, db_index=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='responses', to='runs_app.providerbatch'),
        ),
        migrations.AlterField(
            model_name='response',
            name='question',
            field=models.ForeignKey(db_constraint=False, on_delete=django.db.models.deletion.PROTECT, related_name='responses', to='benchmarks_app.question'),
        ),
        migrations.AlterField(
            model_name='response',
            name='run',
            field=models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='responses', to='runs_app.run'),
        ),
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.AddIndex(
                model_name='response',
                index=models.Index(fields=['model', 'id'], name='response_model_id_order'),
            )],
            database_operations=[migrations.RunSQL(
                'CREATE INDEX IF NOT EXISTS response_model_id_order ON runs_app_response (model_id, id)',
                # Backwards the index stays: explorer_app's migration 0002 owns it on PostgreSQL.
                migrations.RunSQL.noop,
            )],
        ),
        migrations.AddIndex(
            model_name='response',
            index=models.Index(condition=models.Q(('previous__isnull', False)), fields=['previous'], name='response_previous'),
        ),
        migrations.AddIndex(
            model_name='response',
            index=models.Index(condition=models.Q(('provider_batch__isnull', False)), fields=['provider_batch'], name='response_provider_batch'),
        ),
    ]
