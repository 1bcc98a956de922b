"""`import_responses PATH`: answers collected outside the tool (CSV question_key, model, repeat, output)."""

from django.core.management.base import BaseCommand, CommandError

from runs_app.services import import_responses
from scenarios_app.transfer import read_text


class Command(BaseCommand):
    help = ("Import answers produced elsewhere, keyed as export_questions writes them. Atomic: any bad row and "
            "nothing is written. A model name not yet registered becomes an external model that is never called.")

    def add_arguments(self, parser):
        parser.add_argument("path")

    def handle(self, *args, path, **options):
        try:
            text = read_text(path)
        except OSError as exc:
            raise CommandError(f"{path}: {exc.strerror}") from None
        result = import_responses(text)
        if result.problems:
            for problem in result.problems:
                self.stdout.write(f"{path}: {problem}")
            raise CommandError(f"{len(result.problems)} problem(s); nothing was imported")
        self.stdout.write(self.style.SUCCESS(
            f"imported {result.created} answers as run {result.run.pk} ({result.run.benchmark.name})"))
