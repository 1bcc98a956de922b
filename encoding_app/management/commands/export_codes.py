"""`export_codes PATH [--history] [--run RUN ...]`: every answer's code as CSV."""

from collections import Counter

from django.core.management.base import BaseCommand, CommandError

from encoding_app.export import outcome_line, write_csv
from encoding_app.reports import coded_responses


class Command(BaseCommand):
    help = ("Write every answer's current code as CSV (question_key, model, repeat, code, source, rule, run, "
            "outcome): code A-J, R (refusal) or X (invalid: no option chosen, no refusal), with 'unresolved' and "
            "'missing' where there is none; outcome is answer, refusal, invalid, unresolved or missing. --history "
            "writes every code ever given, undone ones included. PATH - writes to standard output.")

    def add_arguments(self, parser):
        parser.add_argument("path")
        parser.add_argument("--history", action="store_true")
        parser.add_argument("--run", type=int, action="append", dest="runs", metavar="RUN")

    def handle(self, *args, path, history=False, runs=None, **options):
        responses = coded_responses()
        if runs:
            responses = responses.filter(run_id__in=runs)
        if path == "-":
            n = write_csv(self.stdout, history, responses)
            return
        outcomes = Counter()
        try:
            with open(path, "w", newline="", encoding="utf-8") as handle:
                n = write_csv(handle, history, responses, outcomes)
        except OSError as exc:
            raise CommandError(f"{path}: {exc.strerror}") from None
        self.stderr.write(self.style.SUCCESS(f"wrote {n} rows to {path} ({outcome_line(outcomes)})"))
