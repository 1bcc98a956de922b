"""`export_inspect_task --benchmark B --out DIR [--condition C]`: a benchmark as an Inspect AI task."""

from django.core.management.base import BaseCommand, CommandError

from benchmarks_app.models import Benchmark
from formats_app.inspect_services import ExportError, write_inspect_task


class Command(BaseCommand):
    help = ("Write a benchmark's current questions as an Inspect AI task in DIR: dataset.jsonl (one record per "
            "question: the chat messages this tool sends, the question, its options, the question key and "
            "condition as metadata) and a task module using Inspect's own generate() (prompt=ours, the default) "
            "or multiple_choice() (-T prompt=inspect). Run it with `inspect eval DIR/cfpd_B.py --model …` and "
            "bring the log back with import_inspect_log.")

    def add_arguments(self, parser):
        parser.add_argument("--benchmark", required=True)
        parser.add_argument("--out", required=True, help="a folder (created if absent)")
        parser.add_argument("--condition", default="default", help="the condition the prompts are rendered under")

    def handle(self, *args, benchmark, out, condition, **options):
        found = Benchmark.objects.filter(name=benchmark).first()
        if found is None:
            names = ", ".join(Benchmark.objects.order_by("name").values_list("name", flat=True)) or "none"
            raise CommandError(f"no benchmark named {benchmark!r} (benchmarks: {names})")
        try:
            export = write_inspect_task(found, out, condition)
        except ExportError as exc:
            raise CommandError(str(exc)) from None
        except OSError as exc:
            raise CommandError(f"{out}: {exc.strerror}") from None
        self.stdout.write(f"wrote {export.dataset} ({export.questions} questions, "
                          f"{export.dataset.stat().st_size:,} bytes) and {export.module}")
        if export.follow_ups_left_out:
            self.stdout.write(f"left out {export.follow_ups_left_out} follow-up question(s): each needs an earlier "
                              "answer in its prompt")
        self.stdout.write(f"run it: inspect eval {export.module} --model PROVIDER/MODEL [--epochs N]")
