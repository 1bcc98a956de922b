"""`benchmark_stats [--benchmark NAME]`: each benchmark's questions as its family counts
them (`Family.stats`); the last line is `total questions: N`."""

from django.core.management.base import BaseCommand, CommandError

from benchmarks_app import families
from benchmarks_app.models import Benchmark


class Command(BaseCommand):
    help = ("Count each benchmark's current questions as its family breaks them down (CFPD: per domain x choice "
            "count x qualified actor, focus actors first; territorial disputes: territories and languages, the "
            "English control counted; free-form crisis: simulations, variants, continuations and questions per "
            "move), then the total.")

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
            counted = families.stats(found)
            self.stdout.write(f"benchmark {found.name}: {counted.headline}")
            for line in counted.lines:
                self.stdout.write(line)
            self.stdout.write("")
            total += counted.questions
        self.stdout.write(f"total questions: {total}")
