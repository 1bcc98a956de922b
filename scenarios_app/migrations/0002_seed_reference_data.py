from django.db import migrations

from scenarios_app import seeding


def seed(apps, schema_editor):
    seeding.seed_taxonomy(apps)
    seeding.seed_countries(apps)
    seeding.seed_universal_generic(apps)


class Migration(migrations.Migration):
    dependencies = [("scenarios_app", "0001_initial")]

    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]
