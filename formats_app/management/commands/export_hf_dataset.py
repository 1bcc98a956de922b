"""`export_hf_dataset --benchmark B [--run N] --out DIR`: questions or a run's answers as a Hugging Face
dataset folder."""

from django.core.management.base import BaseCommand, CommandError

from benchmarks_app.models import Benchmark
from formats_app.hf_dataset import FolderError
from formats_app.hf_services import write_hf_dataset
from runs_app.models import Run


class Command(BaseCommand):
    help = ("Write a benchmark's current questions (their options and the family's fields), or with --run that "
            "run's tidy answers (output, code, how it was coded, the chosen option, usage, time), as a Hugging "
            "Face dataset folder: data/test-00000-of-00001.parquet and README.md (a dataset card whose YAML names "
            "the config, split and features). `datasets.load_dataset(DIR)` loads it with those features.")

    def add_arguments(self, parser):
        parser.add_argument("--benchmark", required=True)
        parser.add_argument("--run", type=int, help="the answers of this run instead of the questions")
        parser.add_argument("--out", required=True, help="a folder (created if absent)")

    def handle(self, *args, benchmark, run, out, **options):
        found = Benchmark.objects.filter(name=benchmark).first()
        if found is None:
            names = ", ".join(Benchmark.objects.order_by("name").values_list("name", flat=True)) or "none"
            raise CommandError(f"no benchmark named {benchmark!r} (benchmarks: {names})")
        chosen = None
        if run is not None:
            chosen = Run.objects.select_related("benchmark").filter(pk=run).first()
            if chosen is None:
                raise CommandError(f"no run {run}")
        try:
            parquet, readme, rows = write_hf_dataset(found, out, chosen)
        except FolderError as exc:
            raise CommandError(str(exc)) from None
        except OSError as exc:
            raise CommandError(f"{out}: {exc.strerror}") from None
        self.stdout.write(f"wrote {parquet} ({rows:,} rows, {parquet.stat().st_size:,} bytes) and {readme}")
