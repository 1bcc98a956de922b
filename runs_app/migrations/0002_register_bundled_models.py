from django.db import migrations

from gateway.local_models import BUNDLED, registration


def register(apps, schema_editor):
    LLMModel = apps.get_model("runs_app", "LLMModel")
    for bundled in BUNDLED:
        LLMModel.objects.update_or_create(name=bundled.name, defaults=registration(bundled))


class Migration(migrations.Migration):
    dependencies = [("runs_app", "0001_initial")]

    operations = [migrations.RunPython(register, migrations.RunPython.noop)]
