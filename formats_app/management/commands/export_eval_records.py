"""`export_eval_records --run N --out DIR`: a run's results as Every Eval Ever records."""

from django.core.management.base import BaseCommand, CommandError

from formats_app.eval_services import write_eval_records
from runs_app.models import Run


class Command(BaseCommand):
    help = ("Write a run's results in the Every Eval Ever schema (0.3.0) under DIR, filed as that datastore files "
            "them (DIR/data/BENCHMARK/DEVELOPER/MODEL/UUID.json and UUID_samples.jsonl), one aggregate per model: "
            "the headline figures of the results layer that rest on this run (with their intervals and n), each "
            "code's share of the coded answers, and one record per answer. These questions have no right answer: "
            "a record's is_correct is always false; its score is 1 when the answer chose an option.")

    def add_arguments(self, parser):
        parser.add_argument("--run", type=int, required=True)
        parser.add_argument("--out", required=True, help="a folder (created if absent)")

    def handle(self, *args, run, out, **options):
        found = Run.objects.select_related("benchmark").filter(pk=run).first()
        if found is None:
            raise CommandError(f"no run {run}")
        try:
            paths = write_eval_records(found, out)
        except OSError as exc:
            raise CommandError(f"{out}: {exc.strerror}") from None
        for path in paths:
            self.stdout.write(f"wrote {path} ({path.stat().st_size:,} bytes)")
