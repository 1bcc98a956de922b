"""`import_actors PATH`: add or update non-state and disputed actors from CSV."""

from django.core.management.base import BaseCommand, CommandError

from scenarios_app.actors import ActorFileError, import_actors
from scenarios_app.transfer import read_text


class Command(BaseCommand):
    help = "Add actors (organisations, disputed entities, territories) from CSV: code,name,prompt_name,takes_article,kind."

    def add_arguments(self, parser):
        parser.add_argument("path")

    def handle(self, *args, path, **options):
        try:
            created, updated = import_actors(read_text(path))
        except (OSError, ActorFileError) as exc:
            raise CommandError(f"{path}: {exc}") from None
        self.stdout.write(f"actors: {created} created, {updated} updated")
