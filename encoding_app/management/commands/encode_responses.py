"""`encode_responses [--run RUN ...]`: re-run the automatic encoder (after its rules change)."""

from django.core.management.base import BaseCommand, CommandError

from encoding_app import services
from encoding_app.reports import coded_responses
from runs_app.models import Run


class Command(BaseCommand):
    help = ("Code answers again with the automatic encoder. A reviewer's or an adjudicator's code is never "
            "overwritten; answers the rules now resolve leave the reviewers' queue, answers they no longer "
            "resolve join it.")

    def add_arguments(self, parser):
        parser.add_argument("--run", type=int, action="append", dest="runs", metavar="RUN",
                            help="Only this run (repeatable); default every run.")

    def handle(self, *args, runs=None, **options):
        responses = coded_responses()
        if runs:
            unknown = sorted(set(runs) - set(Run.objects.filter(pk__in=runs).values_list("pk", flat=True)))
            if unknown:
                raise CommandError(f"no run {', '.join(map(str, unknown))}")
            responses = responses.filter(run_id__in=runs)
        total = responses.count()
        step = max(1, total // 20)

        def progress(done, total):
            if done % step == 0 or done == total:
                self.stderr.write(f"\r  {done}/{total} answers", ending="")

        counts = services.encode_responses(responses, progress=progress if total else None)
        if total:
            self.stderr.write("")
        labels = {"choice": "choice mode", "auto": "automatic rule", "unresolved": "left for reviewers",
                  "missing": "missing (failed or empty)", "kept": "kept (a person's code)",
                  "not-applicable": "not applicable"}
        for key, label in labels.items():
            if counts.get(key):
                self.stdout.write(f"{label:<28} {counts[key]:>8}")
        self.stdout.write(self.style.SUCCESS(f"encoded {total} answers"))
