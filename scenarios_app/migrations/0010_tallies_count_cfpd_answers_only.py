# CFPD's tallies count CFPD's answers only (issue 39: another family's answers no longer pay for
# them). The triggers' functions are made again with a first join on CFPD's questions with
# options (what every reader asks for: `tally.grouped`); the question tally's rows of other
# questions, which no reader asked for, are dropped. The pass tally held none (it joined
# CFPD's questions already). Data-neutral for every reader; on SQLite nothing to do.

from django.db import migrations


def count_cfpd_only(apps, schema_editor):
    from scenarios_app.analysis import tally

    if not tally.available():
        return
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(f"""DELETE FROM {tally.QUESTION_TABLE} counted WHERE NOT EXISTS (
            SELECT 1 FROM scenarios_app_scenarioquestion cfpd JOIN benchmarks_app_question q ON q.id = cfpd.question_id
            WHERE cfpd.question_id = counted.question_id AND q.choice_count > 0)""")
    tally.install(keep_counts=True)


class Migration(migrations.Migration):

    dependencies = [
        ('scenarios_app', '0009_alter_scenario_options'),
    ]

    operations = [
        migrations.RunPython(count_cfpd_only, migrations.RunPython.noop),
    ]
