"""`inconsistency_report [--run RUN ...] [--benchmark NAME] [--scorer NAME ...] --out PATH [--per-run PATH]
[--contrasts PATH [--adjust bh|holm]]`."""

from django.core.management.base import BaseCommand, CommandError

from kit.report_files import write_csv
from crisis_app import instrument_state, queries
from crisis_app.contrasts import COLUMNS as CONTRAST_COLUMNS
from crisis_app.contrasts import contrasts as paired_contrasts
from crisis_app.report import PER_RUN_COLUMNS, SUMMARY_COLUMNS, build, for_csv


class Command(BaseCommand):
    help = ("Write the free-form inconsistency per condition as CSV: " + ", ".join(SUMMARY_COLUMNS) + ". mean is "
            "the mean over runs of each run's mean over pairs, sd the sd of the run means (empty for one run), "
            "ci_low/ci_high a seeded percentile bootstrap 95% interval over runs; n_samples and n_pairs are totals "
            "over runs; explicit is True or False. Every scorer present gets its own rows unless --scorer picks "
            "some. --per-run writes one row per scored group (the same columns plus run). With no stored score in "
            "the selection nothing is written and the command exits with status 1. --contrasts writes the paired "
            "contrasts between temperatures and between models by question (inconsistency units, left minus right, "
            "cluster-bootstrap interval, clustered SE, sign-flip p, BH-adjusted or --adjust holm).")

    def add_arguments(self, parser):
        parser.add_argument("--benchmark", help="a free-form benchmark (default: every one)")
        parser.add_argument("--run", type=int, action="append", dest="runs", metavar="RUN", default=[])
        parser.add_argument("--scorer", action="append", dest="scorers", metavar="NAME", default=[])
        parser.add_argument("--model", action="append", dest="models", metavar="NAME", default=[])
        parser.add_argument("--out", required=True, help="CSV path")
        parser.add_argument("--per-run", metavar="PATH", help="also write one row per group and run")
        parser.add_argument("--iterations", type=int, default=10_000, help="bootstrap resamples (default 10000)")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--contrasts", metavar="PATH", help="also write one row per paired contrast: "
                                                                + ", ".join(CONTRAST_COLUMNS))
        parser.add_argument("--adjust", choices=["bh", "holm"], default="bh",
                            help="the contrasts' correction: Benjamini–Hochberg (default) or Holm")

    def handle(self, *args, benchmark, runs, scorers, models, out, per_run, iterations, seed, contrasts=None,
               adjust="bh", **options):
        filters = queries.CrisisFilter(benchmark=benchmark, runs=tuple(runs), scorers=tuple(scorers),
                                       models=tuple(models))
        problems = queries.unknown_names(filters)
        if problems:
            raise CommandError("; ".join(f"--{field} {problem}" for field, problem in problems.items()))
        if iterations < 1:
            raise CommandError("--iterations must be at least 1")
        rows = queries.group_rows(filters)
        if not rows:
            raise CommandError("no inconsistency scores in this selection: score finished runs first with "
                               "python manage.py score_inconsistency (nothing written)")
        report = build(rows, n_bootstrap=iterations, seed=seed)
        # A scorer that failed a check: its rows carry the column not_a_result, and stderr says so.
        failed = instrument_state.notices({row["scorer"] for row in rows})
        write_csv(instrument_state.marked(for_csv(report.summary.reindex(columns=SUMMARY_COLUMNS)), failed), out)
        if per_run:
            write_csv(instrument_state.marked(for_csv(report.per_run.reindex(columns=PER_RUN_COLUMNS)), failed),
                      per_run)
        for notice in failed.values():
            self.stderr.write(self.style.ERROR(f"not results: {notice}"))
        if contrasts:
            write_csv(instrument_state.marked(paired_contrasts(report.per_run, iterations=iterations, seed=seed,
                                                               method=adjust).reindex(columns=CONTRAST_COLUMNS),
                                              failed), contrasts)
        self.stderr.write(f"{len(report.summary)} rows from {len(report.per_run)} groups in "
                          f"{report.per_run['run'].nunique()} runs; bootstrap {iterations} resamples over runs, "
                          f"seed {seed}")
