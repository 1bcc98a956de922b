"""The tallies' insert trigger skips a launch's grid of units (runs_app.signals.unit_grid_written:
`tally.count_unit_grid` counts it from the grid instead). The trigger functions are
replaced; the counts are kept."""

from django.db import migrations


def install_triggers(apps, schema_editor):
    # Installed by 0008 now, once the tables have scenarios_app's names: the code that makes
    # the triggers (scenarios_app.analysis.tally) names the tables as they are named today.
    pass


class Migration(migrations.Migration):

    dependencies = [
        ('scenarios_app', '0006_actor_moved_to_benchmarks_app'),
    ]

    operations = [
        migrations.RunPython(install_triggers, migrations.RunPython.noop),
    ]
