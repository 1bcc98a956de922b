"""`export_scenarios PATH [--benchmark NAME]`: Table 3 CSV, or JSON when PATH ends in .json."""

from django.core.management.base import BaseCommand, CommandError

from scenarios_app.models import Benchmark
from scenarios_app.transfer import export_scenarios


class Command(BaseCommand):
    help = "Export the current version of every scenario of a benchmark (CSV, or JSON with every field)."

    def add_arguments(self, parser):
        parser.add_argument("path", help="Output file; '-' for standard output.")
        parser.add_argument("--benchmark", default="default")
        parser.add_argument("--format", choices=["csv", "json"], help="Default: json if PATH ends in .json, else csv.")

    def handle(self, *args, path, benchmark, format, **options):
        found = Benchmark.objects.filter(name=benchmark).first()
        if found is None:
            names = ", ".join(Benchmark.objects.values_list("name", flat=True)) or "none"
            raise CommandError(f"no benchmark named {benchmark!r} (benchmarks: {names})")
        fmt = format or ("json" if path.lower().endswith(".json") else "csv")
        text = export_scenarios(found, fmt)
        if path == "-":
            self.stdout.write(text, ending="")
            return
        with open(path, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        self.stderr.write(f"wrote {found.scenarios.filter(is_current=True).count()} scenarios to {path}")
