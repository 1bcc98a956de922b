"""reference_report --benchmark B [--panel P] [--model M] --out F: each model's similarity
to each panel of B (overall, per domain, per choice count) as a CSV with exactly the columns
model, panel, domain, choice_count, similarity, ci_low, ci_high, n_questions, ceiling."""

from django.core.management.base import BaseCommand, CommandError

from kit.csv_safety import SafeWriter
from panels_app import results


class Command(BaseCommand):
    help = "Write each model's similarity to each panel of a benchmark (with intervals and the panel's ceiling) as CSV."

    def add_arguments(self, parser):
        parser.add_argument("--benchmark", required=True)
        parser.add_argument("--panel", help="Only this panel.")
        parser.add_argument("--model", help="Only this model.")
        parser.add_argument("--out", required=True, help="The CSV file to write.")

    def handle(self, *args, benchmark, panel, model, out, **options):
        try:
            found, panel, model = results.read_report_params(benchmark, panel, model)
        except results.ReportInvalid as exc:
            raise CommandError("; ".join(f"--{key}: {message}" for key, message in exc.errors.items())) from None
        rows = results.alignment_rows(found, panel=panel, model=model)
        try:
            handle = open(out, "w", newline="", encoding="utf-8")
        except OSError as exc:
            raise CommandError(f"--out: cannot write {out}: {exc.strerror}") from None
        with handle:
            writer = SafeWriter(handle)
            writer.writerow(results.REPORT_COLUMNS)
            writer.writerows(row.as_csv() for row in rows)
        self.stderr.write(f"{len(rows)} row(s) written to {out}")
