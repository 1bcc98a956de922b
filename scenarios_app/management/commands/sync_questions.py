"""`sync_questions [--benchmark NAME]`: re-expand scenarios into questions (idempotent)."""

from django.core.management.base import BaseCommand

from scenarios_app import services
from scenarios_app.models import Benchmark


class Command(BaseCommand):
    help = "Make every scenario version's questions match its dyads and text; frozen versions are left alone."

    def add_arguments(self, parser):
        parser.add_argument("--benchmark")

    def handle(self, *args, benchmark, **options):
        benchmarks = Benchmark.objects.all()
        if benchmark:
            benchmarks = benchmarks.filter(name=benchmark)
        for found in benchmarks:
            counts = services.sync_benchmark(found)
            self.stdout.write(f"{found.name}: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
