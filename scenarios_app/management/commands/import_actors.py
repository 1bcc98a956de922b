"""`import_actors PATH`: add or update non-state and disputed actors from CSV."""

from django.core.management.base import BaseCommand, CommandError

from scenarios_app.actors import ActorFileError, import_actors
from scenarios_app.transfer import ImportFileError, read_text


class Command(BaseCommand):
    help = ("Add actors (organisations, disputed entities, territories) from CSV: code,name,prompt_name,takes_article,"
            "kind. Atomic: any bad line and nothing is written; every bad line is reported.")

    def add_arguments(self, parser):
        parser.add_argument("path")

    def handle(self, *args, path, **options):
        try:
            created, updated = import_actors(read_text(path))
        except OSError as exc:
            raise CommandError(f"{path}: {exc.strerror}") from None
        except ImportFileError as exc:
            raise CommandError(f"{path}: {exc}") from None
        except ActorFileError as exc:
            for problem in exc.problems:
                self.stdout.write(f"{path}: {problem}")
            raise CommandError(f"{path}: {len(exc.problems)} problem(s); nothing was imported: {exc}") from None
        self.stdout.write(f"actors: {created} created, {updated} updated")
