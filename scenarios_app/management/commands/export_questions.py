"""`export_questions PATH [--benchmark NAME]`: every question with its stable key and A.4 prompt."""

from django.core.management.base import BaseCommand, CommandError

from scenarios_app.models import Benchmark
from scenarios_app.transfer import export_questions


class Command(BaseCommand):
    help = ("Write every question (current scenario versions) as CSV, keyed so that answers can be imported back. "
            "The last four columns are for territorial-disputes (BorderLines) questions and empty on CFPD rows: "
            "territory, language, choices (JSON list of the claimants' names as shown, in letter order) and "
            "claimants_en (the same claimants in English, same order); a BorderLines row leaves the CFPD "
            "columns (scenario, domain, actors, categories) empty.")

    def add_arguments(self, parser):
        parser.add_argument("path", help="Output CSV; '-' for standard output.")
        parser.add_argument("--benchmark", help="Only this benchmark (default: all).")

    def handle(self, *args, path, benchmark, **options):
        found = None
        if benchmark:
            found = Benchmark.objects.filter(name=benchmark).first()
            if found is None:
                raise CommandError(f"no benchmark named {benchmark!r}")
        if path == "-":
            count = export_questions(self.stdout, found)
        else:
            with open(path, "w", encoding="utf-8", newline="") as handle:
                count = export_questions(handle, found)
            self.stderr.write(f"wrote {count} questions to {path}")
