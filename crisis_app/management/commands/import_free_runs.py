"""`import_free_runs DIR [--chats DIR] [--benchmark NAME] [--dry-run] [--strict]`.

stdout: one line per flaw, per run imported, per file left out and per note, then one
summary line (`imported N runs, …; left out: N files (reason: count, …)`); the progress
bar goes to stderr, on a terminal only."""

import sys

from django.core.management.base import BaseCommand, CommandError

from crisis_app import importing
from crisis_app.free_release import LAYOUT


def _telling(explicit: bool) -> str:
    return "explicit" if explicit else "anonymised"


class Command(BaseCommand):
    help = (f"Import the free-form crisis release ({LAYOUT}; run<k>_berts.npz and run<k>_ranks.npz beside a run hold "
            "the release's pairwise values; main/chat.csv and the chats tree what the models were asked) as finished "
            "runs of a free-form benchmark. A flaw is listed with its file, row and column and keeps out its run only "
            "(--strict: any flaw and nothing is imported, exit status 1). Every file is imported or listed as left "
            "out with its reason. A run<k>_fixed replaces its run<k>; runs imported before are skipped.")

    def add_arguments(self, parser):
        parser.add_argument("directory", help="the release's logging/outputs/v4 (or a tree in its layout)")
        parser.add_argument("--chats", help="the conversations' tree (default: logging/chats/<name> beside "
                                            "logging/outputs/<name>, if it is there)")
        parser.add_argument("--benchmark", default=importing.DEFAULT_BENCHMARK,
                            help=f"Free-form benchmark to import into (default {importing.DEFAULT_BENCHMARK}; "
                                 "created, with its simulation, if missing).")
        parser.add_argument("--dry-run", action="store_true", help="Check and report what would be imported; "
                                                                   "write nothing.")
        parser.add_argument("--strict", action="store_true", help="Refuse the whole tree on any flaw.")

    def handle(self, *args, directory, chats, benchmark, dry_run, strict, **options):
        from benchmarks_app.text_files import slug_problem

        problem = slug_problem(benchmark, 64)
        if problem:
            raise CommandError(f"--benchmark: {problem}")
        report = importing.import_free_runs(directory, benchmark, dry_run=dry_run, strict=strict, chats=chats,
                                            progress=self._progress())
        for flaw in report.flaws:
            self.stdout.write(flaw)
        if report.refused:
            raise CommandError(f"{len(report.flaws)} flaw(s); nothing was imported")
        verb = "would import" if dry_run else "imported"
        for run in report.runs:
            where = f"run {run.run_id}: " if run.run_id else ""
            kind = "" if run.kind == "free" else f"{run.kind}{' reversed' if run.reversed else ''}, "
            self.stdout.write(f"{verb} {where}{run.relative}: {run.model}, {run.continuation}, {kind}"
                              f"{_telling(run.explicit)}, {run.condition}, {run.samples} samples: "
                              f"{run.responses} responses, {run.scores} imported scores")
        for line in report.already_imported:
            self.stdout.write(line)
        for item in report.left_out:
            self.stdout.write(str(item))
        for note in report.notes:
            self.stdout.write(note)
        would = "would create" if dry_run else "created"
        if report.benchmark_created:
            self.stdout.write(f"{would} benchmark {benchmark!r} with simulation {importing.SIMULATION_KEY!r}")
        if report.models_created:
            self.stdout.write(f"{would} external model(s): " + ", ".join(report.models_created))
        if report.conditions_created:
            self.stdout.write(f"{would} condition(s): " + ", ".join(report.conditions_created))
        counts = report.left_out_counts()
        reasons = ", ".join(f"{reason}: {count}" for reason, count in sorted(counts.items(), key=lambda c: (-c[1], c[0])))
        self.stdout.write(f"{verb} {len(report.runs)} runs, {report.responses} responses, {report.scores} imported "
                          f"scores into {benchmark!r}; {report.conversations} conversations read; "
                          f"already imported {len(report.already_imported)}; "
                          f"left out: {sum(counts.values())} files" + (f" ({reasons})" if reasons else "")
                          + f"; {len(report.flaws)} flaw(s); {report.files} files in all"
                          + ("; dry run: nothing was written" if dry_run else ""))

    def _progress(self):
        stream = getattr(self.stderr, "_out", sys.stderr)
        if not (hasattr(stream, "isatty") and stream.isatty()):
            return None
        from tqdm import tqdm

        bar = {}

        def advance(done, total):
            if "bar" not in bar:
                bar["bar"] = tqdm(total=total, unit="run", file=stream, desc="importing")
            bar["bar"].update(done - bar["bar"].n)
            if done == total:
                bar["bar"].close()

        return advance
