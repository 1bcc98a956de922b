# Issue 41: the grammatical forms of an actor's translated name (form name -> text).
# An empty dict for every existing row: data-neutral.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('scenarios_app', '0013_lead_asked_versions'),
    ]

    operations = [
        migrations.AddField(
            model_name='actornametranslation',
            name='forms',
            field=models.JSONField(blank=True, default=dict, help_text='Form name -> the name in that form, e.g. {"genitive": "России"}.'),
        ),
    ]
