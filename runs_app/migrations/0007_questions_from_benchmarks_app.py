"""Runs and responses point at benchmarks_app's Benchmark and Question (the same tables:
state only)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("runs_app", "0006_run_budget"),
        ("benchmarks_app", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="run", name="benchmark",
                    field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name="runs",
                                            to="benchmarks_app.benchmark")),
                migrations.AlterField(
                    model_name="response", name="question",
                    field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name="responses",
                                            to="benchmarks_app.question")),
            ],
            database_operations=[],
        ),
    ]
