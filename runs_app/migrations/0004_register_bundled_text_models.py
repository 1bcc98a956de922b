from django.db import migrations

from gateway.local_models import BUNDLED, TEXT_SUFFIX, text_registration


def register(apps, schema_editor):
    LLMModel = apps.get_model("runs_app", "LLMModel")
    for bundled in BUNDLED:
        LLMModel.objects.update_or_create(name=bundled.name + TEXT_SUFFIX, defaults=text_registration(bundled))


class Migration(migrations.Migration):
    dependencies = [("runs_app", "0003_response_code")]

    operations = [migrations.RunPython(register, migrations.RunPython.noop)]
