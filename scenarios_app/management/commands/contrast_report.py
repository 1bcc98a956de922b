"""`contrast_report [--benchmark B] [--model M ...] [--kind actor|model|both|language] [--seed S] --out PATH`:
paired contrasts of the scenario-normalised rates as CSV (issue 29; language contrasts, issue 41)."""

from django.core.management.base import BaseCommand, CommandError

from benchmarks_app.language_codes import SOURCE_LANGUAGE
from benchmarks_app.models import Benchmark
from kit.csv_safety import neutralise
from runs_app.services import unknown_runs_and_models
from scenarios_app.analysis.metrics.contrasts import REPORT_COLUMNS, actor_flips, contrasts, method_note
from scenarios_app.analysis.metrics.language_contrasts import language_family
from scenarios_app.analysis.tidy_query import AnalysisFilter, latest_launches, tidy_with_categories
from scenarios_app.taxonomy import FOCUS_ACTORS

FLIP_FILE_COLUMNS = ["model", "domain", "choice_count", "scenario", "opposing_actor", "left", "right", "left_answer",
                     "right_answer", "left_share", "right_share", "left_answers", "right_answers"]


def _write(out: str, text: str) -> None:
    try:
        with open(out, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
    except OSError as exc:
        raise CommandError(f"{out}: {exc.strerror}") from None


class Command(BaseCommand):
    help = ("Write paired contrasts as CSV, one row per contrast: kind, model, domain, choice_count, category, left, "
            "right, estimate, ci_low, ci_high, p_value, p_adjusted, n_scenarios (points, left minus right; for "
            "model contrasts model is empty and left/right are models; for language contrasts left/right are language "
            "codes). Actor contrasts: within-scenario differences between qualified actors; model contrasts: paired "
            "over shared questions; language contrasts: the same scenario and dyad asked in two languages, each "
            "language against the source language and any two. Seeded: two calls agree.")

    def add_arguments(self, parser):
        parser.add_argument("--benchmark", help="only this benchmark's scenarios")
        parser.add_argument("--model", action="append", dest="models", metavar="M", default=[])
        parser.add_argument("--kind", choices=["actor", "model", "both", "language"], default="both",
                            help="language: each language against the source language (left) and any two")
        parser.add_argument("--actor", action="append", dest="actors", metavar="CODE", default=[],
                            help="qualified actors to contrast (default the focus actors US GB CN RU IN; 'all': every one)")
        parser.add_argument("--adjust", choices=["bh", "holm"], default="bh",
                            help="multiplicity control across all contrasts written (default Benjamini–Hochberg)")
        parser.add_argument("--iterations", type=int, default=2000, help="bootstrap resamples (default 2000)")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--flips", metavar="PATH", help="also write the flip view (modal answer changes) here")
        parser.add_argument("--out", required=True, help="CSV path, or - for standard output")

    def handle(self, *args, benchmark, models, kind, actors, adjust, iterations, seed, flips, out, **options):
        unknown = unknown_runs_and_models([], models)
        if benchmark and not Benchmark.objects.filter(name=benchmark).exists():
            unknown = "; ".join(filter(None, [unknown, f"no benchmark {benchmark}"]))
        if unknown:
            raise CommandError(unknown)
        if iterations < 1:
            raise CommandError("--iterations must be at least 1")
        if kind == "model" and len(models) == 1:
            raise CommandError("model contrasts need two models or more (give --model twice, or none for all)")
        chosen = None if [a.lower() for a in actors] == ["all"] else [a.upper() for a in actors] or list(FOCUS_ACTORS)
        filters, superseded = latest_launches(AnalysisFilter(models=tuple(models)))
        for left_out in superseded:
            self.stderr.write(f"left out run {left_out.run} for {left_out.model}: run {left_out.newer_run} asked the "
                              f"same selection later")
        tidy = tidy_with_categories(filters, by_dyad=True, by_language=kind == "language")
        table = tidy.table
        if benchmark:  # scenario labels are "benchmark/key.vN:variant"; a benchmark's name is a slug
            table = table[table["scenario"].str.startswith(f"{benchmark}/")]
        if kind == "language":
            frame = language_family(table, SOURCE_LANGUAGE, tidy.categories, iterations, seed, adjust,
                                    models=models or None)
        else:
            frame = contrasts(table, kind, chosen, models or None, tidy.categories, iterations, seed, adjust)
        text = frame[REPORT_COLUMNS].map(neutralise).to_csv(index=False, float_format="%.6f")
        if out == "-":
            self.stdout.write(text, ending="")
        else:
            _write(out, text)
        if flips and kind != "language":
            pairs = actor_flips(table, chosen)
            flipped = pairs[pairs["flipped"].astype(bool)][FLIP_FILE_COLUMNS]
            _write(flips, flipped.map(neutralise).to_csv(index=False, float_format="%.6f"))
            self.stderr.write(f"{len(flipped)} flips of {len(pairs)} pairs compared written to {flips}")
        self.stderr.write(f"{len(frame)} contrasts, {int(frame['significant'].sum()) if len(frame) else 0} "
                          f"significant at 0.05 after adjustment; seed {seed}. {method_note(adjust, iterations)}")
