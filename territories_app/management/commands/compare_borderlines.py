"""`compare_borderlines OLD NEW`: what changed between two snapshots of a table."""

from django.core.management.base import BaseCommand, CommandError

from benchmarks_app.models import Benchmark
from territories_app import services
from territories_app.family import NAME as FAMILY


class Command(BaseCommand):
    help = "Territories added or removed, controllers and claimants changed between two BorderLines benchmarks."

    def add_arguments(self, parser):
        parser.add_argument("old")
        parser.add_argument("new")

    def handle(self, *args, old, new, **options):
        found = {name: Benchmark.objects.filter(name=name, family=FAMILY).first()
                 for name in (old, new)}
        missing = [name for name, benchmark in found.items() if benchmark is None]
        if missing:
            raise CommandError(f"no BorderLines benchmark named {', '.join(missing)}")
        diff = services.compare(found[old], found[new])
        for name in diff.added:
            self.stdout.write(f"added: {name}")
        for name in diff.removed:
            self.stdout.write(f"removed: {name}")
        for name, before, after in diff.controller_changed:
            self.stdout.write(f"controller changed: {name}: {before} -> {after}")
        for name, before, after in diff.claimants_changed:
            self.stdout.write(f"claimants changed: {name}: {before} -> {after}")
        if not (diff.added or diff.removed or diff.controller_changed or diff.claimants_changed):
            self.stdout.write("no change")
