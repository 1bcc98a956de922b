# The family's own permission for its dashboard and API (issue 39: each family's pages need its own;
# sync_roles gives it to analysts after this migrate).

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('scenarios_app', '0008_tally_tables_named_for_their_app'),
    ]

    operations = [
        migrations.AlterModelOptions(
            name='scenario',
            options={'ordering': ['benchmark', 'domain__position', 'key', '-version'], 'permissions': [('view_cfpd_dashboard', 'Can read the CFPD dashboard and its API')]},
        ),
    ]
