"""`score_inconsistency [--run RUN ...] [--benchmark NAME] [--scorer NAME] [--rescore]`: score
every group of finished free-form runs not yet scored by the scorer, with a progress bar and
a summary. `--rescore` first deletes every score stored under the scorer's name (made with
another configuration, or by an instrument that failed a check) once the scorer has loaded
and passed its self-check."""

import time

from django.core.management.base import BaseCommand, CommandError

from crisis_app import scorers, scoring


class Command(BaseCommand):
    help = ("Score the inconsistency of sampled free-form answers: every group (the samples of one run, model, "
            "question and condition) of finished free-form runs that the scorer has not scored yet. Free-text "
            "variants are scored with the chosen BERTScore scorer, ranked variants with kendall. A group of fewer "
            "than 2 answers is skipped; answers without the scored section are scored whole (counted); "
            "unreadable rankings are left out (counted). Queued, running and paused runs are left for later.")

    def add_arguments(self, parser):
        parser.add_argument("--run", type=int, action="append", dest="runs", metavar="RUN",
                            help="Only this run (repeatable); default every free-form run.")
        parser.add_argument("--benchmark", help="Only this free-form benchmark's runs.")
        parser.add_argument("--scorer", default=scorers.automatic(),
                            help=f"Scorer name (default {scorers.automatic()}: CFPD_INCONSISTENCY_SCORER): "
                                 f"{', '.join(scorers.BUILT_IN)}, a custom scorer registered before, or a new "
                                 "name for --scorer-model.")
        parser.add_argument("--scorer-model", metavar="PATH",
                            help="Register a custom BERTScore scorer under --scorer NAME: a folder with the "
                                 "encoder's config.json, tokenizer and weights (with --layer). For "
                                 "bertscore-paper: the folder of microsoft/deberta-xlarge-mnli (--layer 40).")
        parser.add_argument("--layer", type=int, help="The custom encoder's layer whose embeddings are matched.")
        parser.add_argument("--idf", action="store_true", help="Weigh tokens by idf (over each group's answers).")
        parser.add_argument("--rescore", action="store_true",
                            help="Delete every score stored under --scorer (of every run: one name holds one "
                                 "configuration) and its recorded configuration and failed checks, then score. "
                                 "Nothing is deleted unless the scorer loads and passes its self-check.")
        parser.add_argument("--baseline", type=float,
                            help="The custom scorer's rescaling baseline F1; default: computed from unrelated "
                                 "texts with the encoder.")

    def handle(self, *args, runs=None, benchmark=None, scorer, scorer_model=None, layer=None, idf=False,
               baseline=None, rescore=False, **options):
        custom = self._custom(scorer_model, layer, idf, baseline)
        try:
            chosen = scoring.freeform_runs(runs, benchmark)
            self.stderr.write(f"loading scorer {scorer} …")
            loaded = scorers.load(scorer, custom)
            if rescore:
                deleted = scorers.discard_scores(loaded.name)
                self.stderr.write(f"deleted {deleted} score(s) stored under {loaded.name}")
            summary = scoring.score_runs(chosen, loaded, progress=self._progress_bar())
        except (scoring.ScoringError, scorers.ScorerError) as exc:
            raise CommandError(str(exc)) from None
        self._summary(summary, len(chosen))

    def _custom(self, scorer_model, layer, idf, baseline):
        if scorer_model is None:
            given = [flag for flag, value in (("--layer", layer), ("--idf", idf or None), ("--baseline", baseline))
                     if value is not None]
            if given:
                raise CommandError(f"{', '.join(given)} describe a custom encoder: give --scorer-model PATH too")
            return None
        if layer is None:
            raise CommandError("--scorer-model needs --layer N: the layer whose token embeddings are matched")
        return scorers.CustomEncoder(scorer_model, layer, idf, baseline)

    def _progress_bar(self):
        width, started = 30, time.monotonic()
        live = self.stderr.isatty()
        last_tenth = [-1]

        def show(done, total):
            filled = int(width * done / total) if total else width
            line = f"[{'#' * filled}{'.' * (width - filled)}] {done}/{total} groups {time.monotonic() - started:.0f}s"
            if live:
                self.stderr.write("\r" + line, ending="\n" if done == total else "")
                self.stderr.flush()
            elif total and (done * 10 // total != last_tenth[0]):
                last_tenth[0] = done * 10 // total
                self.stderr.write(line)

        return show

    def _summary(self, summary, n_runs):
        if not summary.by_scorer:
            self.stdout.write("no group to score")
        for name, counts in summary.by_scorer.items():
            missing = ("rankings unreadable (left out)" if name == scorers.KENDALL
                       else "answers without the scored section (scored whole)")
            self.stdout.write(f"scorer {name}:")
            for label, value in (("groups scored", counts.scored), ("skipped, already scored", counts.already_scored),
                                 ("skipped, too few samples", counts.too_few_samples), (missing, counts.sections_missing)):
                self.stdout.write(f"  {label:<50} {value:>8}")
        if summary.unfinished_runs:
            self.stdout.write(f"not finished yet, left for later: run {', '.join(map(str, summary.unfinished_runs))}")
        scored = sum(c.scored for c in summary.by_scorer.values())
        self.stdout.write(self.style.SUCCESS(f"scored {scored} groups of {n_runs} runs"))
