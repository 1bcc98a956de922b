from django.db import migrations

from gateway.local_models import BUNDLED, TEXT_SUFFIX, registration, text_registration


def register(apps, schema_editor):
    """The bundled models now run in the worker's process (LiteLLM provider `cfpd-local`)
    instead of behind llama.cpp servers on fixed ports."""
    LLMModel = apps.get_model("runs_app", "LLMModel")
    for bundled in BUNDLED:
        LLMModel.objects.update_or_create(name=bundled.name, defaults=registration(bundled))
        LLMModel.objects.update_or_create(name=bundled.name + TEXT_SUFFIX, defaults=text_registration(bundled))


class Migration(migrations.Migration):
    dependencies = [("runs_app", "0004_register_bundled_text_models")]

    operations = [migrations.RunPython(register, migrations.RunPython.noop)]
