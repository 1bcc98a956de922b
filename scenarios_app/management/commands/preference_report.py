"""`preference_report [--run RUN ...] [--model M ...] --out PATH`: normalised rates as CSV."""

from django.core.management.base import BaseCommand, CommandError

from kit.csv_safety import neutralise
from runs_app.services import unknown_runs_and_models
from scenarios_app.analysis.metrics import preference_table
from scenarios_app.analysis.tidy_query import AnalysisFilter, latest_launches, tidy_with_categories


class Command(BaseCommand):
    help = ("Write the scenario-normalised rates with bootstrap CIs as CSV: model, domain, choice_count, category, "
            "rate, ci_low, ci_high, n_scenarios, refusal_rate, invalid_rate (and iterations). Seeded: two calls agree.")

    def add_arguments(self, parser):
        parser.add_argument("--run", type=int, action="append", dest="runs", metavar="RUN", default=[])
        parser.add_argument("--model", action="append", dest="models", metavar="M", default=[])
        parser.add_argument("--out", required=True, help="CSV path, or - for standard output")
        parser.add_argument("--iterations", type=int, default=2000)
        parser.add_argument("--seed", type=int, default=0)

    def handle(self, *args, runs, models, out, iterations, seed, **options):
        unknown = unknown_runs_and_models(runs, models)
        if unknown:
            raise CommandError(unknown)
        if iterations < 1:
            raise CommandError("--iterations must be at least 1")
        # As on the dashboard: with no --run, an earlier launch of the same selection is no
        # repeat and is left out (named below); --run picks runs explicitly.
        filters, superseded = latest_launches(AnalysisFilter(runs=tuple(runs), models=tuple(models)))
        for left_out in superseded:
            self.stderr.write(f"left out run {left_out.run} for {left_out.model}: run {left_out.newer_run} asked the "
                              f"same selection later (pass --run to include both)")
        tidy = tidy_with_categories(filters, by_actor=False)
        table = preference_table(tidy.table, iterations, seed, tidy.categories)
        cover = tidy.coverage
        text = table.map(neutralise).to_csv(index=False, float_format="%.6f")  # formula-like cells quoted
        if out == "-":
            self.stdout.write(text, ending="")
        else:
            try:
                with open(out, "w", encoding="utf-8", newline="") as handle:
                    handle.write(text)
            except OSError as exc:
                raise CommandError(f"{out}: {exc.strerror}") from None
        self.stderr.write(f"{len(table)} rows from {cover['coded']} coded answers "
                          f"({cover['invalid']} invalid, {cover['unresolved']} with reviewers, {cover['missing']} missing "
                          f"left out); "
                          f"bootstrap {iterations} iterations, seed {seed}")
