"""`export_codes PATH [--history] [--run RUN ...]`: every answer's code as CSV."""

from django.core.management.base import BaseCommand, CommandError

from cfpd_site.csv_safety import SafeWriter
from encoding_app.export import COLUMNS, HISTORY_COLUMNS, current_rows, history_rows
from encoding_app.reports import coded_responses


def write_safe_csv(handle, history: bool, responses) -> int:
    """encoding_app.export.write_csv with every text cell neutralised: reviewers' notes and
    model names are free text, and analysts open this file in a spreadsheet."""
    writer = SafeWriter(handle)
    writer.writerow(HISTORY_COLUMNS if history else COLUMNS)
    n = 0
    for row in (history_rows(responses) if history else current_rows(responses)):
        writer.writerow(row)
        n += 1
    return n


class Command(BaseCommand):
    help = ("Write every answer's current code as CSV (question_key, model, repeat, code, source, rule, run), "
            "with 'unresolved' and 'missing' where there is none. --history writes every code ever given, "
            "undone ones included. PATH - writes to standard output.")

    def add_arguments(self, parser):
        parser.add_argument("path")
        parser.add_argument("--history", action="store_true")
        parser.add_argument("--run", type=int, action="append", dest="runs", metavar="RUN")

    def handle(self, *args, path, history=False, runs=None, **options):
        responses = coded_responses()
        if runs:
            responses = responses.filter(run_id__in=runs)
        if path == "-":
            n = write_safe_csv(self.stdout, history, responses)
            return
        try:
            with open(path, "w", newline="", encoding="utf-8") as handle:
                n = write_safe_csv(handle, history, responses)
        except OSError as exc:
            raise CommandError(f"{path}: {exc.strerror}") from None
        self.stderr.write(self.style.SUCCESS(f"wrote {n} rows to {path}"))
