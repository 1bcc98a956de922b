"""`export_borderlines DIR --benchmark NAME`: the release layout back."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from benchmarks_app.models import Benchmark
from territories_app import services
from territories_app.family import NAME as FAMILY


class Command(BaseCommand):
    help = "Write a BorderLines benchmark back in the release's layout (an import of it gives the same tables)."

    def add_arguments(self, parser):
        parser.add_argument("directory")
        parser.add_argument("--benchmark", default="borderlines")

    def handle(self, *args, directory, benchmark, **options):
        found = Benchmark.objects.filter(name=benchmark, family=FAMILY).first()
        if found is None:
            raise CommandError(f"no BorderLines benchmark named {benchmark!r}")
        target = Path(directory)
        if target.exists() and any(target.iterdir()):
            raise CommandError(f"{directory} is not empty: name a new or empty directory")
        try:
            release = services.export_release(found, target)
        except OSError as exc:
            raise CommandError(f"{directory}: {exc.strerror}") from None
        self.stdout.write(f"wrote {len(release.territories)} territories, {len(release.templates)} languages "
                          f"to {directory}")
