"""`delete_run RUN [RUN ...]`: a done or cancelled run deleted with everything of it
(`services.delete_run`: statements of 100,000 units, not Django's collector row by row)."""

from django.core.management.base import BaseCommand, CommandError

from runs_app.models import Run
from runs_app.services import RunError, delete_run


class Command(BaseCommand):
    help = "Delete done or cancelled runs with their answers, codes, review tasks and counts."

    def add_arguments(self, parser):
        parser.add_argument("runs", nargs="+", type=int, help="Run ids.")

    def handle(self, *args, runs, **options):
        missing = sorted(set(runs) - set(Run.objects.filter(pk__in=runs).values_list("pk", flat=True)))
        if missing:
            raise CommandError(f"no run {', '.join(map(str, missing))}")
        for run in Run.objects.filter(pk__in=runs).order_by("pk"):
            def progress(done, total, phase, run=run):
                self.stdout.write(f"run {run.pk}: {done:,}/{total:,} units deleted")

            try:
                result = delete_run(run, progress=progress)
            except RunError as exc:
                raise CommandError(str(exc)) from exc
            rows = ", ".join(f"{label} {n:,}" for label, n in sorted(result.rows.items()))
            self.stdout.write(f"run {run.pk} deleted in {result.seconds:.1f} s: {rows}")
