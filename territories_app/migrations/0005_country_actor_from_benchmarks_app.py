# A country's actor is benchmarks_app's now (benchmarks_app 0005): the same table and
# column, so the state only.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("benchmarks_app", "0005_actor_moved_from_scenarios_app"),
        ("territories_app", "0004_territory_coordinates"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="country", name="actor",
                    field=models.ForeignKey(blank=True, help_text="The actor (ISO country or added entity) it is.",
                                            null=True, on_delete=django.db.models.deletion.SET_NULL,
                                            related_name="+", to="benchmarks_app.actor")),
            ],
            database_operations=[],
        ),
    ]
