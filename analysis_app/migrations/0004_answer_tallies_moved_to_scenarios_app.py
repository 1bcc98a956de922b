# The answer tallies are CFPD's: their models moved to scenarios_app (its migration 0005),
# their tables and rows stay where they are. Here they leave analysis_app's state only.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('analysis_app', '0003_computed_figures'),
        ('scenarios_app', '0005_answer_tallies_moved_from_analysis_app'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name='PassTally'),
                migrations.DeleteModel(name='QuestionTally'),
            ],
            database_operations=[],
        ),
    ]
