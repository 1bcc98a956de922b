"""`import_translations F [--language L] [--approved-by USER]`: translations back from a CSV
or XLIFF 2.0 file; all or nothing, each bad row named with its key, field and slot."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from scenarios_app.translation_files import TranslationFileError, format_of, import_translations


class Command(BaseCommand):
    help = ("Read translations from F (.csv with columns key, field, source, text; or .xlf/.xliff, XLIFF 2.0). "
            "They wait for an approval unless --approved-by names an author whose profile lists the language. "
            "Any bad row and nothing is written.")

    def add_arguments(self, parser):
        parser.add_argument("path")
        parser.add_argument("--language", help="BCP 47 code; required for CSV (XLIFF names its trgLang).")
        parser.add_argument("--approved-by", metavar="USER", help="Record this author's approval.")

    def handle(self, *args, path, language, approved_by, **options):
        approver = None
        if approved_by:
            approver = get_user_model().objects.filter(username=approved_by).first()
            if approver is None:
                raise CommandError(f"--approved-by: no user named {approved_by!r}")
        try:
            fmt = format_of(path)
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError as error:
            raise CommandError(f"{path}: {error.strerror}") from None
        except TranslationFileError as error:
            raise CommandError(str(error)) from None
        try:
            report = import_translations(data, fmt, language=language, approved_by=approver,
                                         provenance=f"import:{path.rsplit('/', 1)[-1]}"[:200])
        except TranslationFileError as error:
            raise CommandError(f"{path}: {error}") from None
        if not report.ok:
            for line in report.errors:
                self.stderr.write(line)
            raise CommandError(f"{path}: {len(report.errors)} problem(s); nothing was imported")
        self.stdout.write(f"{report.language}: {report.scenarios} scenario translation(s), {report.actors} actor "
                          f"name(s), {report.approved} approved")
