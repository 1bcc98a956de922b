"""`export_translations --benchmark B --language L --out F`: what translators translate, as
CSV (key, field, source, text) or XLIFF 2.0 (.xlf/.xliff), the format from F's extension."""

from django.core.management.base import BaseCommand, CommandError

from scenarios_app.models import Benchmark
from scenarios_app.translation_files import TranslationFileError, export_translations, format_of


class Command(BaseCommand):
    help = ("Write a benchmark's current scenario versions and their actors' names for translation into a "
            "language: .csv (columns key, field, source, text; text empty) or .xlf/.xliff (XLIFF 2.0, the slots "
            "as <ph> placeholders).")

    def add_arguments(self, parser):
        parser.add_argument("--benchmark", required=True)
        parser.add_argument("--language", required=True, help="BCP 47 code of the target language, e.g. zh.")
        parser.add_argument("--out", required=True, help="Output file: .csv, .xlf or .xliff.")

    def handle(self, *args, benchmark, language, out, **options):
        found = Benchmark.objects.filter(name=benchmark).first()
        if found is None:
            raise CommandError(f"no benchmark named {benchmark!r}")
        try:
            data = export_translations(found, language, format_of(out))
        except TranslationFileError as error:
            raise CommandError(str(error)) from None
        try:
            with open(out, "wb") as handle:
                handle.write(data)
        except OSError as error:
            raise CommandError(f"{out}: {error.strerror}") from None
        self.stderr.write(f"wrote {out} ({format_of(out)}, {language})")
