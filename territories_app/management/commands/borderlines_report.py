"""`borderlines_report [--benchmark NAME] [--run RUN ...] [--model M ...] --out PATH [--per-territory PATH]
[--contrasts PATH [--adjust bh|holm]]`."""

from django.core.management.base import BaseCommand, CommandError

from kit.report_files import write_csv
from runs_app.services import unknown_runs_and_models
from territories_app.contrasts import COLUMNS as CONTRAST_COLUMNS
from territories_app.report import CASE_COLUMNS, REPORT_COLUMNS, BenchmarkChoiceError, build, report_benchmark
from territories_app.report_frames import BorderlinesFilter


class Command(BaseCommand):
    help = ("Write the BorderLines concurrence scores per model and strategy as CSV: " + ", ".join(REPORT_COLUMNS)
            + " (percentages 0-100; mean_countries a count). --with-intervals adds each score's bootstrap 95% "
              "interval over territories and its sd over repeats. Seeded: two calls agree. With no --run each "
              "model and strategy is read from its newest run. --contrasts writes the paired contrasts clustered by "
              "territory (Control vs Non-control within territory, model vs model; points, left minus right, "
              "cluster-bootstrap interval, clustered SE, sign-flip p, BH-adjusted or --adjust holm).")

    def add_arguments(self, parser):
        parser.add_argument("--benchmark", help="Default: the BorderLines benchmark of the --run or --model "
                                                "runs, or the only one there is.")
        parser.add_argument("--run", type=int, action="append", dest="runs", metavar="RUN", default=[])
        parser.add_argument("--model", action="append", dest="models", metavar="M", default=[])
        parser.add_argument("--strategy", action="append", dest="strategies", metavar="CONDITION", default=[])
        parser.add_argument("--out", required=True, help="CSV path")
        parser.add_argument("--per-territory", metavar="PATH",
                            help="also write one row per territory x language x model x strategy (x repeat) "
                                 "with the claimant named")
        parser.add_argument("--with-intervals", action="store_true")
        parser.add_argument("--contrasts", metavar="PATH", help="also write one row per paired contrast: "
                                                                + ", ".join(CONTRAST_COLUMNS))
        parser.add_argument("--adjust", choices=["bh", "holm"], default="bh",
                            help="the contrasts' correction: Benjamini–Hochberg (default) or Holm")
        parser.add_argument("--iterations", type=int, default=1000)
        parser.add_argument("--seed", type=int, default=0)

    def handle(self, *args, benchmark, runs, models, strategies, out, per_territory, with_intervals, iterations,
               seed, contrasts=None, adjust="bh", **options):
        unknown = unknown_runs_and_models(runs, models)
        if unknown:
            raise CommandError(unknown)
        try:
            benchmark = report_benchmark(benchmark, runs, models)
        except BenchmarkChoiceError as error:
            raise CommandError(str(error)) from None
        if iterations < 1:
            raise CommandError("--iterations must be at least 1")
        report = build(BorderlinesFilter(benchmark=benchmark, runs=tuple(runs), models=tuple(models),
                                         strategies=tuple(strategies)), iterations=iterations, seed=seed,
                       adjust=adjust, paired=bool(contrasts))
        columns = list(REPORT_COLUMNS)
        if with_intervals:
            columns += [c for c in report.scores.columns if c.endswith(("_ci_low", "_ci_high", "_sd"))]
        write_csv(report.scores.reindex(columns=columns), out)
        if per_territory:
            write_csv(report.cases.reindex(columns=CASE_COLUMNS), per_territory)
        if contrasts:
            write_csv(report.contrasts.reindex(columns=CONTRAST_COLUMNS), contrasts)
        self.stderr.write(f"{len(report.scores)} model x strategy rows from {report.answers} answers "
                          f"({report.unresolved} unresolved, left out of every score: {report.refusals} refusals, "
                          f"{report.invalid} invalid, the rest with reviewers) over "
                          f"{len(report.territories)} territories; bootstrap {iterations} iterations, seed {seed}")
