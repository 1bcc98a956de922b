# The families are no longer listed here: a benchmark's (and a condition's) family names a
# registered family (benchmarks_app.families), checked where they are created or edited.
# No column changes: the stored names ("cfpd", "borderlines", "freeform") are kept as they are.

import benchmarks_app.families
import benchmarks_app.models
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('benchmarks_app', '0003_question_without_cfpd_columns'),
    ]

    operations = [
        migrations.AlterField(
            model_name='benchmark',
            name='family',
            field=models.CharField(default=benchmarks_app.families.default_name, help_text='The benchmark family its questions belong to (an installed family app).', max_length=20, validators=[benchmarks_app.models.registered_family]),
        ),
        migrations.AlterField(
            model_name='condition',
            name='family',
            field=models.CharField(blank=True, help_text='The family it is meant for; empty for any.', max_length=20, validators=[benchmarks_app.models.registered_family]),
        ),
    ]
