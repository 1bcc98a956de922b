"""`export_simulation_translations --benchmark B --language L --out F.csv`: a crisis benchmark's
simulation texts for translators, as CSV with the columns key, field, source, text."""

from django.core.management.base import BaseCommand, CommandError

from benchmarks_app.models import Benchmark
from crisis_app import translation_texts
from crisis_app.models import FAMILY


class Command(BaseCommand):
    help = ("Write a crisis benchmark's simulation texts (background, role, answer format, move-1 incident, each "
            "continuation) for translation into a language: CSV with the columns key, field, source, text (text "
            "empty, or the up-to-date translation).")

    def add_arguments(self, parser):
        parser.add_argument("--benchmark", required=True)
        parser.add_argument("--language", required=True, help="BCP 47 code of the target language, e.g. zh.")
        parser.add_argument("--out", required=True, help="Output file (.csv).")

    def handle(self, *args, benchmark, language, out, **options):
        found = Benchmark.objects.filter(name=benchmark, family=FAMILY).first()
        if found is None:
            raise CommandError(f"no crisis benchmark named {benchmark!r}")
        try:
            translation_texts.check_language(language)
        except translation_texts.TranslationError as error:
            raise CommandError(str(error)) from None
        data = translation_texts.export_csv(found.simulations.select_related("benchmark"), language)
        try:
            with open(out, "w", encoding="utf-8", newline="") as handle:
                handle.write(data)
        except OSError as error:
            raise CommandError(f"{out}: {error.strerror}") from None
        self.stderr.write(f"wrote {out} (csv, {language})")
