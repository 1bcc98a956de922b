# CFPD's answer tallies take this app's names (issue 39: tables named for the rooms that own
# them): analysis_app_passtally and analysis_app_questiontally become scenarios_app_passtally
# and scenarios_app_questiontally, and their change sequence scenarios_app_tally_change, every
# row kept. On PostgreSQL the triggers' functions name the tables and the sequence, so they are
# made again (the counts are kept), in the migration's transaction: no answer is written
# between the rename and the new functions. Migrations 0005 and 0007 installed them before.

from django.db import migrations


def rename_sequence_and_remake_triggers(apps, schema_editor):
    from scenarios_app.analysis import tally

    if not tally.available():
        return
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(f"ALTER SEQUENCE IF EXISTS analysis_app_tally_change RENAME TO {tally.SEQUENCE}")
    tally.install(keep_counts=True)


def back(apps, schema_editor):
    from scenarios_app.analysis import tally

    if tally.available():
        with schema_editor.connection.cursor() as cursor:
            cursor.execute(f"ALTER SEQUENCE IF EXISTS {tally.SEQUENCE} RENAME TO analysis_app_tally_change")


class Migration(migrations.Migration):

    dependencies = [
        ('scenarios_app', '0007_tally_launch_grid'),
    ]

    operations = [
        migrations.AlterModelTable(
            name='passtally',
            table=None,
        ),
        migrations.AlterModelTable(
            name='questiontally',
            table=None,
        ),
        migrations.RunPython(rename_sequence_and_remake_triggers, back),
    ]
