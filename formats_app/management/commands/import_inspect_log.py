"""`import_inspect_log PATH [--benchmark B]`: an Inspect AI eval log's answers as an imported run."""

from django.core.management.base import BaseCommand, CommandError

from benchmarks_app.progress import file_progress
from formats_app.inspect_services import import_inspect_log


class Command(BaseCommand):
    help = ("Import the answers of an Inspect AI eval log (.eval or .json) as a run of the benchmark their questions "
            "belong to: a sample's metadata.question_key, else its id, is the question's key (as export_questions "
            "and export_inspect_task write them), its epoch the repeat + 1, metadata.condition its condition "
            "(default otherwise). The answers are coded as any imported answers are (the encoder, then the "
            "reviewers' queue). Atomic: any problem and nothing is written. Samples that ended in an error carry "
            "no answer and are skipped, each named. --benchmark refuses samples of any other benchmark.")

    def add_arguments(self, parser):
        parser.add_argument("path")
        parser.add_argument("--benchmark", help="the benchmark the samples must belong to")

    def handle(self, *args, path, benchmark, **options):
        progress = file_progress(self.stderr, "answers")
        try:
            result = import_inspect_log(path, benchmark_name=benchmark, progress=progress)
        except OSError as exc:
            raise CommandError(f"{path}: {exc.strerror}") from None
        finally:
            progress.close()
        for skipped in result.skipped:
            self.stdout.write(f"{path}: skipped {skipped}")
        if result.problems:
            for problem in result.problems:
                self.stdout.write(f"{path}: {problem}")
            raise CommandError(f"{len(result.problems)} problem(s); nothing was imported")
        skipped = f"; {len(result.skipped)} sample(s) skipped" if result.skipped else ""
        self.stdout.write(self.style.SUCCESS(
            f"imported {result.created} answers of {result.model} as run {result.run.pk} "
            f"({result.run.benchmark.name}){skipped}"))
