"""Run.kind, a field of its own: filled from the keys the selection carried until now
(`{"judge_of": pk}` a judge run, `{"imported": ...}` answers imported, `{"synthetic": true}`
load-test answers; every other run was launched). The selection keeps its keys: the
imported release's path and the judged run's id are data, not the kind."""

from django.conf import settings
from django.db import migrations, models


def kind_from_selection(apps, schema_editor):
    Run = apps.get_model("runs_app", "Run")
    JudgeRequest = apps.get_model("encoding_app", "JudgeRequest")
    # A run whose units are judge units is a judge run, whatever its selection says.
    judged = set(JudgeRequest.objects.values_list("judge_response__run_id", flat=True).distinct())
    kinds = {"judge": [], "import": [], "synthetic": []}
    for pk, selection in Run.objects.values_list("pk", "selection").iterator():
        selection = selection if isinstance(selection, dict) else {}
        if selection.get("judge_of") is not None or pk in judged:
            kinds["judge"].append(pk)
        elif selection.get("imported"):
            kinds["import"].append(pk)
        elif selection.get("synthetic"):
            kinds["synthetic"].append(pk)
    for kind, pks in kinds.items():
        for start in range(0, len(pks), 500):
            Run.objects.filter(pk__in=pks[start:start + 500]).update(kind=kind)


def kind_back_to_launch(apps, schema_editor):
    """Nothing to undo: the selection still carries the keys the kind was read from."""


class Migration(migrations.Migration):

    dependencies = [
        ('benchmarks_app', '0003_question_without_cfpd_columns'),
        ('runs_app', '0011_model_name_allows_dots'),
        ('encoding_app', '0002_any_options_rule_status_judges'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='run',
            name='kind',
            field=models.CharField(choices=[('launch', 'Launched: models asked by the engine'), ('import', 'Imported: answers collected elsewhere'), ('judge', "Judge: a model reading another run's unresolved answers"), ('synthetic', 'Synthetic: drawn answers for load tests')], default='launch', max_length=10),
        ),
        migrations.AddIndex(
            model_name='run',
            index=models.Index(condition=models.Q(('kind', 'judge')), fields=['kind'], name='run_judge'),
        ),
        migrations.RunPython(kind_from_selection, kind_back_to_launch),
    ]
