"""`add_perspective --country DE [--family cfpd]`: the condition "answer as someone from
<country>" (benchmarks_app.services.perspective_condition), to launch with --conditions."""

from django.core.management.base import BaseCommand, CommandError

from benchmarks_app import families, services


class Command(BaseCommand):
    help = ('Add the condition "answer as someone from <country>" (prompted perspective) for any benchmark; '
            "launch it with run_benchmark --conditions NAME.")

    def add_arguments(self, parser):
        parser.add_argument("--country", required=True, help="An actor's code (DE) or a country's name.")
        parser.add_argument("--family", default="", help="The family whose system prompt follows the sentence "
                                                         "(default: the default family's).")

    def handle(self, *args, **options):
        try:
            condition = services.perspective_condition(options["country"], options["family"])
        except (services.PerspectiveInvalid, families.UnknownFamily) as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"condition {condition.name}: {condition.label} "
                          f"(run_benchmark --conditions {condition.name})")
