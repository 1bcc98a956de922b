"""`import_free_runs DIR [--benchmark NAME] [--dry-run]`."""

from django.core.management.base import BaseCommand, CommandError

from crisis_app import importing
from crisis_app.free_release import LAYOUT


def _telling(explicit: bool) -> str:
    return "explicit" if explicit else "anonymised"


class Command(BaseCommand):
    help = (f"Import free-form crisis runs in the public release's layout ({LAYOUT}; an optional "
            "run<k>[_fixed]_berts.npz beside a CSV holds the release's pairwise inconsistencies) as finished runs "
            "of a free-form benchmark. Every flaw is listed with its file, row and column; with any flaw nothing "
            "is imported (exit status 1). A run<k>_fixed replaces its run<k>; runs imported before are skipped.")

    def add_arguments(self, parser):
        parser.add_argument("directory")
        parser.add_argument("--benchmark", default=importing.DEFAULT_BENCHMARK,
                            help="Free-form benchmark to import into (created, with its simulation, if missing).")
        parser.add_argument("--dry-run", action="store_true", help="Check and report what would be imported; "
                                                                   "write nothing.")

    def handle(self, *args, directory, benchmark, dry_run, **options):
        from scenarios_app.validation import slug_problem

        problem = slug_problem(benchmark, 64)
        if problem:
            raise CommandError(f"--benchmark: {problem}")
        report = importing.import_free_runs(directory, benchmark, dry_run=dry_run)
        for flaw in report.flaws:
            self.stdout.write(flaw)
        if report.flaws:
            raise CommandError(f"{len(report.flaws)} flaw(s); nothing was imported")
        for line in report.skipped:
            self.stdout.write(line)
        verb = "would import" if dry_run else "imported"
        for run in report.runs:
            where = f"run {run.run_id}: " if run.run_id else ""
            self.stdout.write(f"{verb} {where}{run.relative}: {run.model}, {run.continuation}, "
                              f"{_telling(run.explicit)}, {run.condition}, {run.samples} samples: "
                              f"{run.responses} responses, {run.scores} imported scores")
        if report.benchmark_created:
            self.stdout.write(f"{'would create' if dry_run else 'created'} benchmark {benchmark!r} with simulation "
                              f"{importing.SIMULATION_KEY!r} (its prompts are not in the release)")
        if report.models_created:
            self.stdout.write(f"{'would create' if dry_run else 'created'} external model(s): "
                              + ", ".join(report.models_created))
        if report.conditions_created:
            self.stdout.write(f"{'would create' if dry_run else 'created'} condition(s): "
                              + ", ".join(report.conditions_created))
        self.stdout.write(f"{verb} {len(report.runs)} runs, {report.responses} responses, {report.scores} imported "
                          f"scores into {benchmark!r}; skipped {len(report.skipped)} "
                          f"({len(report.replaced)} replaced by a fixed run, {len(report.already_imported)} "
                          "already imported)"
                          + ("; dry run: nothing was written" if dry_run else ""))
