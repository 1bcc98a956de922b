"""`rebuild_answer_tallies`: count every answer into the CFPD dashboard's tallies again
(after a restore, or to drop the rows emptied to n = 0). PostgreSQL only; the migration
that adds the tallies fills them the same way."""

from django.core.management.base import BaseCommand

from scenarios_app.analysis import tally


class Command(BaseCommand):
    help = "Count every answer into the dashboard's tallies again (PostgreSQL; writers wait meanwhile)."

    def handle(self, *args, **options):
        counts = tally.rebuild()
        if not counts:
            self.stdout.write("Nothing to do: the tallies are kept on PostgreSQL only (SQLite counts answers directly).")
            return
        self.stdout.write(f"Tallies rebuilt: {counts['passes']:,} pass rows, {counts['questions']:,} question rows.")
