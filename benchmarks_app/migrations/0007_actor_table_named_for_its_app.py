# The actors' table takes this app's name (issue 39: tables named for the rooms that own
# them): scenarios_app_actor becomes benchmarks_app_actor, every row and every key pointing
# at it kept (a rename; PostgreSQL and SQLite keep the foreign keys on the new name). After
# scenarios_app 0006: until then scenarios_app's state holds the model too, under the old
# name, and the migrations before it make keys to it by that name.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('benchmarks_app', '0006_data_version'),
        ('scenarios_app', '0006_actor_moved_to_benchmarks_app'),
    ]

    operations = [
        migrations.AlterModelTable(
            name='actor',
            table=None,
        ),
    ]
