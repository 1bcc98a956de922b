"""`benchmark_stats [--benchmark NAME]`: question counts; the last line is `total questions: N`."""

from django.core.management.base import BaseCommand, CommandError

from scenarios_app import services
from scenarios_app.counts import format_counts
from scenarios_app.models import Benchmark


class Command(BaseCommand):
    help = ("Count questions per domain x choice count x qualified actor (focus actors, then the rest); for a "
            "territorial-disputes benchmark, its territories and languages (the English control counted).")

    def add_arguments(self, parser):
        parser.add_argument("--benchmark", help="Default: every benchmark.")

    def handle(self, *args, benchmark, **options):
        benchmarks = Benchmark.objects.all()
        if benchmark:
            benchmarks = benchmarks.filter(name=benchmark)
            if not benchmarks:
                raise CommandError(f"no benchmark named {benchmark!r}")
        total = 0
        for found in benchmarks:
            if found.family == Benchmark.Family.BORDERLINES:
                from territories_app.services import stats

                counts = stats(found)
                self.stdout.write(f"benchmark {found.name}: territorial disputes, {counts['questions']} questions")
                self.stdout.write(f"territories: {counts['territories']}")
                self.stdout.write(f"languages: {counts['languages']}")
                self.stdout.write("")
                total += counts["questions"]
                continue
            table = services.stats_table(found)
            scenarios = found.scenarios.filter(is_current=True).count()
            self.stdout.write(f"benchmark {found.name}: {scenarios} scenarios, {table.total} questions")
            self.stdout.write(format_counts(table))
            self.stdout.write("")
            total += table.total
        self.stdout.write(f"total questions: {total}")
