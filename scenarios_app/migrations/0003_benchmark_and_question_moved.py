"""Benchmark and Question now belong to benchmarks_app (state only; see its 0001)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("scenarios_app", "0002_seed_reference_data"),
        ("benchmarks_app", "0001_initial"),
        ("runs_app", "0007_questions_from_benchmarks_app"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="scenario", name="benchmark",
                    field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name="scenarios",
                                            to="benchmarks_app.benchmark")),
                migrations.RemoveIndex(model_name="question", name="question_by_domain"),
                migrations.DeleteModel(name="Question"),
                migrations.DeleteModel(name="Benchmark"),
            ],
            database_operations=[],
        ),
    ]
