"""`import_simulation_translations F.csv --language L`: translators' CSV (key, field, source,
text) read into draft translations of crisis simulations, all or nothing."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from crisis_app import translation_texts


class Command(BaseCommand):
    help = ("Read a CSV of simulation translations (columns key, field, source, text) into draft translations, "
            "which wait for an author who reads the language to approve them. Any bad row and nothing is written.")

    def add_arguments(self, parser):
        parser.add_argument("file")
        parser.add_argument("--language", required=True, help="BCP 47 code of the translation, e.g. zh.")

    def handle(self, *args, file, language, **options):
        try:
            text = Path(file).read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as error:
            raise CommandError(f"{file}: {error}") from None
        report = translation_texts.import_csv(text, language, provenance=f"import:{Path(file).name}")
        if not report.ok:
            raise CommandError("nothing imported:\n" + "\n".join(report.errors))
        self.stdout.write(f"imported {report.simulations} simulation translation(s) into {language} as drafts")
