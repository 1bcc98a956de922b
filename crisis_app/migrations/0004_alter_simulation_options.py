# The family's own permission for its dashboard and API (issue 39: each family's pages need its own;
# sync_roles gives it to analysts after this migrate).

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('crisis_app', '0003_scorer_check'),
    ]

    operations = [
        migrations.AlterModelOptions(
            name='simulation',
            options={'ordering': ['benchmark__name', 'key'], 'permissions': [('view_crisis_dashboard', 'Can read the crisis-inconsistency dashboards and their API')]},
        ),
    ]
