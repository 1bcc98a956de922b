"""`partition_answers [--undo] [--force]`: the answers partitioned by run on PostgreSQL
(`runs_app.partitions.convert`, one transaction), or with `--undo` one plain table again.
Opt-in, for deployments whose runs reach millions of answers and that delete finished
runs (docs/deployment.md): every query that names no run is planned over every partition."""

import time

from django.core.management.base import BaseCommand, CommandError
from django.db import connection, transaction

from runs_app import partitions
from runs_app.models import Run

LIVE = [Run.Status.QUEUED, Run.Status.RUNNING, Run.Status.PAUSED]


class Command(BaseCommand):
    help = "Partition the answers by run (PostgreSQL), or with --undo make them one table again."

    def add_arguments(self, parser):
        parser.add_argument("--undo", action="store_true", help="Back to one plain table.")
        parser.add_argument("--force", action="store_true",
                            help="Go on with runs live: their workers wait on the locked table throughout.")

    def handle(self, *args, undo, force, **options):
        if connection.vendor != "postgresql":
            raise CommandError("partition_answers is for PostgreSQL only: SQLite keeps one table.")
        live = list(Run.objects.filter(status__in=LIVE).order_by("pk").values_list("pk", flat=True))
        if live and not force:
            raise CommandError(f"runs are live ({', '.join(map(str, live[:10]))}{' …' if len(live) > 10 else ''}): "
                               "every answer is rewritten with the table locked; cancel or finish them, "
                               "or pass --force to make their workers wait.")
        wanted = not undo
        started = time.monotonic()
        with transaction.atomic(), connection.cursor() as cursor:
            if partitions.is_partitioned(cursor) == wanted:
                self.stdout.write("The answers are already " + ("partitioned by run" if wanted else "one plain table")
                                  + ": nothing done.")
                return
            before = len(partitions.partitions(cursor))
            partitions.convert(cursor, partitioned=wanted)
            after = len(partitions.partitions(cursor))
            cursor.execute(f"SELECT count(*) FROM {partitions.TABLE}")
            (rows,) = cursor.fetchone()
        seconds = time.monotonic() - started
        if wanted:
            self.stdout.write(f"The answers are partitioned by run: {rows:,} rows copied into {after:,} partition(s) "
                              f"in {seconds:.1f} s.")
        else:
            self.stdout.write(f"The answers are one plain table again: {rows:,} rows copied, {before:,} partitions "
                              f"dropped, in {seconds:.1f} s.")
