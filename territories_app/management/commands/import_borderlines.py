"""`import_borderlines DIR [--benchmark NAME] [--accept-flaws] [--dry-run] [--snapshot DATE]`."""

from datetime import date

from django.core.management.base import BaseCommand, CommandError

from territories_app import services


def _date(value: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise CommandError(f"--snapshot {value[:40]!r} is not a date: write YYYY-MM-DD") from None


class Command(BaseCommand):
    help = ("Import a directory in the BorderLines release's layout (disputed_territories.csv, countries_info.json, "
            "templates_q.tsv, translate/, prompts/) into a benchmark. Every flaw is reported with its file and "
            "line or key; with any flaw nothing is imported (exit status 1) unless --accept-flaws, which imports "
            "what is sound and lists what it left out. Atomic; a re-import updates in place.")

    def add_arguments(self, parser):
        parser.add_argument("directory")
        parser.add_argument("--benchmark", default="borderlines", help="Benchmark to fill (created if missing).")
        parser.add_argument("--accept-flaws", action="store_true")
        parser.add_argument("--dry-run", action="store_true", help="Report what would be imported; write nothing.")
        parser.add_argument("--snapshot", type=_date, help="The date the table describes (YYYY-MM-DD).")

    def handle(self, *args, directory, benchmark, accept_flaws, dry_run, snapshot, **options):
        from benchmarks_app.text_files import slug_problem

        problem = slug_problem(benchmark, 64)
        if problem:
            raise CommandError(f"--benchmark: {problem}")
        try:
            report = services.import_release(directory, benchmark, accept_flaws=accept_flaws, dry_run=dry_run,
                                             snapshot=snapshot)
        except services.BorderlinesError as exc:
            raise CommandError(str(exc)) from None
        for flaw in report.flaws:
            self.stdout.write(flaw)
        if report.flaws and not accept_flaws:
            raise CommandError(f"{len(report.flaws)} flaw(s); nothing was imported (fix them, or pass "
                               "--accept-flaws to import what is sound)")
        for item in report.left_out:
            self.stdout.write(f"left out: {item}")
        for gap in report.gaps:
            self.stdout.write(f"missing translation: {gap}")
        if dry_run:
            self.stdout.write(f"dry run: {report.territories} territories, {report.languages} languages would be "
                              f"imported into {benchmark!r}; nothing was written")
            return
        for key, claimant in report.misspelt_keys.items():
            self.stdout.write(f"not imported: country key {key!r}, probably {claimant!r} misspelt (no actor made)")
        for route, names in report.matched_by().items():
            self.stdout.write(f"matched by {route}: " + ", ".join(names))
        if report.actors_added:
            self.stdout.write("actors added (not ISO countries): " + ", ".join(report.actors_added))
        q = report.questions
        self.stdout.write(f"imported {report.territories} territories, {report.languages} languages into "
                          f"{benchmark!r}: questions {q.get('created', 0)} created, {q.get('updated', 0)} updated, "
                          f"{q.get('retired', 0)} retired")
