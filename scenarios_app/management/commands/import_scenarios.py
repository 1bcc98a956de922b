"""`import_scenarios PATH [--benchmark NAME] [--dry-run]`: Table 3 CSV or JSON, atomic."""

import getpass

from auditlog.context import set_extra_data
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from benchmarks_app.progress import file_progress
from benchmarks_app.text_files import TableError
from scenarios_app.transfer import (
    ImportFileError, default_author, detect_format, import_scenario_file, import_scenarios, read_text,
)
from scenarios_app.validation import check_benchmark_name


class Command(BaseCommand):
    help = ("Import scenarios from the paper's Table 3 CSV or from a JSON export (UTF-8). Nothing is written if any "
            "row is bad; every bad row is reported as 'line N: reason'.")

    def add_arguments(self, parser):
        parser.add_argument("path")
        parser.add_argument("--benchmark", default="default",
                            help="Benchmark to fill (created if missing): a slug of at most 64 letters, digits, - "
                                 "and _.")
        parser.add_argument("--dry-run", action="store_true", help="Check and show every inference; write nothing.")
        parser.add_argument("--format", choices=["csv", "json"], help="Default: from the file name or content.")
        parser.add_argument("--author", help="Username recorded as the author of new scenarios and, in the history, of "
                                             "every change (default: first admin as the scenarios' author; the "
                                             "history then records the OS user who ran the command).")

    def handle(self, *args, path, benchmark, dry_run, format, author, **options):
        for problem in check_benchmark_name(benchmark):
            raise CommandError(f"--benchmark {benchmark!r}: {problem.message}")
        if author:
            user = get_user_model().objects.filter(username=author).first()
            if user is None:
                raise CommandError(f"--author {author!r}: no such user")
        else:
            user = default_author()
        # The history's author (docs/architecture.md, "The record"): the --author user, and always
        # the command and the OS user who ran it.
        record = {"actor": user if author else None,
                  "additional_data": {"command": "import_scenarios", "os_user": _os_user()}}
        with set_extra_data(record):
            self._import(path, benchmark, dry_run, format, user)

    def _import(self, path, benchmark, dry_run, format, user):
        progress = file_progress(self.stderr, "scenarios")
        try:
            if (format or detect_format(path, _opening(path))) == "csv":
                # A CSV of any size: read as a stream, each line of the report written as found.
                report = import_scenario_file(path, benchmark, dry_run=dry_run, author=user, progress=progress,
                                              emit=lambda line, bad: self.stdout.write(f"{path}: {line}" if bad
                                                                                       else line))
            else:
                text = read_text(path)
                report = import_scenarios(text, benchmark, "json", dry_run=dry_run, author=user)
                for line in report.lines():
                    self.stdout.write(f"{path}: {line}" if not report.ok else line)
        except OSError as exc:
            raise CommandError(f"{path}: {exc.strerror}") from None
        except (ImportFileError, TableError) as exc:
            message = str(exc)
            raise CommandError(f"{path}: {message}") from None
        finally:
            progress.close()
        if not report.ok:
            raise CommandError(report.summary())
        self.stdout.write(self.style.SUCCESS(report.summary()))


def _os_user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a container's)
        return "unknown"


def _opening(path: str) -> str:
    """The file's first characters, for detect_format (OSError when it cannot be opened)."""
    with open(path, "rb") as handle:
        return handle.read(4096).decode("utf-8", "replace")
