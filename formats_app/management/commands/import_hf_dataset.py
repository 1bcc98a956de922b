"""`import_hf_dataset DIR [--benchmark B]`: a Hugging Face dataset folder of answers as an imported run."""

from django.core.management.base import BaseCommand, CommandError

from benchmarks_app.progress import file_progress
from formats_app.hf_services import import_hf_answers


class Command(BaseCommand):
    help = ("Import a Hugging Face dataset folder of answers (the Parquet files under data/, as export_hf_dataset "
            "--run writes them; columns question_key, model, repeat, output and optionally condition) as a run of "
            "the benchmark their questions belong to, coded as any imported answers are. Atomic: any bad row and "
            "nothing is written. Model names become slugs ('org/model' -> 'org-model').")

    def add_arguments(self, parser):
        parser.add_argument("path")
        parser.add_argument("--benchmark", help="the benchmark the rows must belong to")

    def handle(self, *args, path, benchmark, **options):
        progress = file_progress(self.stderr, "answers")
        try:
            result = import_hf_answers(path, benchmark_name=benchmark, progress=progress)
        finally:
            progress.close()
        if result.problems:
            for problem in result.problems:
                self.stdout.write(f"{path}: {problem}")
            raise CommandError(f"{len(result.problems)} problem(s); nothing was imported")
        self.stdout.write(self.style.SUCCESS(
            f"imported {result.created} answers as run {result.run.pk} ({result.run.benchmark.name})"))
