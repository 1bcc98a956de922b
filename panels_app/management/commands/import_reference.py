"""import_reference FILE [--benchmark B] [--stands-for TEXT] [--replace]: a population's
published answers as panels without links (references.import_reference): one row per
respondent and question (panel, respondent, question_key, answer) or one row per question
and option (panel, question_key, option, share, n). Bad rows are listed by line and column
and nothing is written."""

from django.core.management.base import BaseCommand, CommandError

from panels_app import references


class Command(BaseCommand):
    help = "Import a population's published answers (a CSV in either shape) as reference panels."

    def add_arguments(self, parser):
        parser.add_argument("file", help="The CSV file (UTF-8).")
        parser.add_argument("--benchmark", help="Look the question keys up in this benchmark only.")
        parser.add_argument("--stands-for", default=references.REFERENCE_STANDS_FOR,
                            help='Whom the panels stand for (default: "%(default)s").')
        parser.add_argument("--replace", action="store_true", help="Replace references of the same name.")

    def handle(self, *args, file, benchmark, stands_for, replace, **options):
        try:
            with open(file, encoding="utf-8-sig", newline="") as handle:
                text = handle.read()
        except OSError as exc:
            raise CommandError(f"cannot read {file}: {exc.strerror}") from None
        except UnicodeDecodeError:
            raise CommandError(f"{file} is not UTF-8 text") from None
        try:
            done = references.import_reference(text, benchmark=benchmark, stands_for=stands_for, replace=replace)
        except references.ReferenceInvalid as exc:
            shown = exc.problems[:50]
            more = f"\n… and {len(exc.problems) - 50} more" if len(exc.problems) > 50 else ""
            raise CommandError(f"{len(exc.problems)} problem(s), nothing imported:\n" + "\n".join(shown) + more) \
                from None
        for found in done:
            people = "respondents" if found.shape == "respondents" else "people at most (n)"
            self.stdout.write(f"{found.panel}: {found.questions} question(s), {found.respondents} {people}, "
                              f"{found.rows} row(s) ({found.shape})")
