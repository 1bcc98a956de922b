# The family's own permission for its dashboard and API (issue 39: each family's pages need its own;
# sync_roles gives it to analysts after this migrate).

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('territories_app', '0005_country_actor_from_benchmarks_app'),
    ]

    operations = [
        migrations.AlterModelOptions(
            name='territory',
            options={'ordering': ['benchmark', 'position', 'name'], 'permissions': [('view_territories_dashboard', 'Can read the territorial-disputes dashboard and its API')], 'verbose_name_plural': 'territories'},
        ),
    ]
