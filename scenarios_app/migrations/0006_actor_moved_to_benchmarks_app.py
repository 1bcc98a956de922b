# Actor now belongs to benchmarks_app (see its 0005): CFPD's keys to it are re-pointed and
# the model leaves scenarios_app's state; the table, its rows and the keys' columns and
# constraints stay as they are. After territories_app 0005, whose countries point at
# actors too, so that no state ever names a model that is gone.

import django.db.models.deletion
from django.db import migrations, models


def actor_key(**options):
    return models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, to="benchmarks_app.actor", **options)


class Migration(migrations.Migration):

    dependencies = [
        ("benchmarks_app", "0005_actor_moved_from_scenarios_app"),
        ("scenarios_app", "0005_answer_tallies_moved_from_analysis_app"),
        ("territories_app", "0005_country_actor_from_benchmarks_app"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(model_name="actorsetmember", name="actor", field=actor_key()),
                migrations.AlterField(
                    model_name="actorset", name="members",
                    field=models.ManyToManyField(related_name="actor_sets", through="scenarios_app.ActorSetMember",
                                                 to="benchmarks_app.actor")),
                migrations.AlterField(model_name="scenariodyad", name="actor_a", field=actor_key(related_name="+")),
                migrations.AlterField(model_name="scenariodyad", name="actor_b", field=actor_key(related_name="+")),
                migrations.AlterField(model_name="scenarioquestion", name="actor_a", field=actor_key(related_name="+")),
                migrations.AlterField(model_name="scenarioquestion", name="actor_b", field=actor_key(related_name="+")),
                migrations.AlterField(model_name="scenarioquestion", name="qualified_actor",
                                      field=actor_key(related_name="+")),
                migrations.DeleteModel(name="Actor"),
            ],
            database_operations=[],
        ),
    ]
