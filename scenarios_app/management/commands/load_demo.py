"""`load_demo`: the demo's actors and its sample benchmark `demo` (idempotent)."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from scenarios_app.actors import import_actors
from scenarios_app.models import Benchmark
from scenarios_app.transfer import default_author, import_scenarios, read_text

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
DESCRIPTION = ("Sample scenarios written for CFPD Workbench in the style of the CFPD benchmark (all four domains, "
               "every codified comparison of appendix A.1). Not the paper's private dataset.")


class Command(BaseCommand):
    help = "Load the sample benchmark `demo` (44 scenarios written for this tool; not the paper's dataset)."

    def handle(self, *args, **options):
        created, updated = import_actors(read_text(str(FIXTURES / "demo_actors.csv")))
        report = import_scenarios(read_text(str(FIXTURES / "demo_scenarios.csv")), "demo", author=default_author())
        if not report.ok:
            raise CommandError("\n".join(report.lines() + [report.summary()]))
        Benchmark.objects.filter(name="demo").update(title="Demo benchmark (sample content)", description=DESCRIPTION)
        self.stdout.write(f"actors: {created} created, {updated} updated; {report.summary()}")
