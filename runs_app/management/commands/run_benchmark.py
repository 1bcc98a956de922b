"""`run_benchmark --benchmark NAME --models A,B [...]`: launch (or resume) a run, show
progress, and end with a summary table."""

import signal
import sys
import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db.models import ProtectedError

from benchmarks_app import families
from runs_app import processes, services
from gateway.local_models import BY_NAME, LocalModelError, check_ready, prepare
from runs_app.models import Response, Run


def _split(values):
    return [item.strip() for value in values or [] for item in value.split(",") if item.strip()]


OPTIONS = {"choice_counts": "--choices", "permute_options": "--permute", "balanced_options": "--balanced",
           "use_cache": "--no-cache"}
# Shorter spellings of `--select KEY=…` for the installed families' keys they name (kept from
# before `--select`, when the command knew CFPD's keys by name); a key no family reads is not offered.
ALIASES = {"--domain": "domains", "--actors": "qualified_actors", "--languages": "languages"}


def _option(name: str, o: dict) -> str:
    """The option the user typed for a launch field: a family key by its alias when that
    was used (`--actors`), else as `--select KEY`."""
    if name == "units":
        return "units"
    if name in families.selection_keys():
        alias = next((flag for flag, key in ALIASES.items() if key == name and o.get(flag.lstrip("-"))), None)
        return alias or f"--select {name}"
    return OPTIONS.get(name, "--" + name.replace("_", "-"))


def _options_text(exc, o: dict) -> str:
    """LaunchInvalid's problems named by the command's options: `--repeats: must be ...`."""
    return "; ".join(f"{_option(name, o)}: {problem}" for name, problems in exc.errors.items() for problem in problems)


def family_selection(o) -> dict[str, list[str]]:
    """The families' selection keys from `--select KEY=V1,V2` (repeatable) and the aliases;
    a key no installed family reads, or an entry without `=`, is a CommandError naming the keys."""
    known = families.selection_keys()
    chosen: dict[str, list[str]] = {}
    for flag, key in ALIASES.items():
        values = _split(o.get(flag.lstrip("-")))
        if values:
            chosen.setdefault(key, []).extend(values)
    if o.get("each_actor_language"):
        chosen.setdefault("each_actor_language", []).append("yes")
    for entry in o.get("select") or []:
        key, equals, values = entry.partition("=")
        key = key.strip()
        if not equals or key not in known:
            offered = ", ".join(sorted(known)) or "none (no installed family has selection keys)"
            problem = "expected KEY=VALUES" if not equals else f"no installed family selects by {key!r}"
            raise CommandError(f"--select {entry!r}: {problem}; the keys: {offered}")
        chosen.setdefault(key, []).extend(_split([values]))
    return chosen


def _alias(model) -> str:
    """The runtime's id of a bundled model (`cfpd-local/<alias>`)."""
    bundled = BY_NAME.get(model.name)
    return bundled.alias if bundled else model.litellm_model.split("/", 1)[-1]


def check_bundled_weights(models) -> None:
    """A CommandError naming the model and what to install when a bundled model's weights
    can be neither loaded nor converted here, before any run is written (issue 38: it was a
    LocalModelError traceback after the launch)."""
    for model in models:
        if model.is_bundled:
            try:
                check_ready(_alias(model), settings.CFPD_MODELS_DIR)
            except LocalModelError as exc:
                raise CommandError(f"{model.name} cannot be asked here: {exc} (scripts/setup installs every "
                                   "bundled model's weights)") from None


def _plan_line(plan) -> str:
    cost = f"US$ {plan.cost:.4f}" if plan.cost is not None else f"unknown (US$ {plan.cost_known:.4f} known)"
    if not plan.batch_possible:
        batch = "no batch interface for every model"
    elif plan.batch_cost is not None:
        batch = f"US$ {plan.batch_cost:.4f} within 24 h"
    else:
        batch = f"cost unknown (US$ {plan.batch_cost_known:.4f} known) within 24 h"
    return (f"plan: {plan.units} units, {plan.prompt_tokens} prompt tokens (estimated), {plan.completion_tokens} "
            f"completion tokens (at most), cost {cost}, about {plan.seconds:.0f}s at the models' limits; "
            f"by batch: {batch}")


class Command(BaseCommand):
    help = "Ask a benchmark's questions of models through the workers, with a progress bar and a summary."

    def add_arguments(self, parser):
        parser.add_argument("--benchmark", default="default")
        parser.add_argument("--models", help="Comma-separated model names (see the Models page).")
        parser.add_argument("--repeats", type=int, default=services.SAMPLING_REPEATS,
                            help="Answers per question from each generate-mode model (default 5, as in the paper); "
                                 "choice-mode models answer once.")
        keys = ", ".join(sorted(families.selection_keys())) or "none installed"
        parser.add_argument("--select", action="append", metavar="KEY=VALUES",
                            help=f"Ask only questions whose family key has one of these values, e.g. "
                                 f"domains=escalation,intervention; repeatable. Keys of the installed families: {keys}.")
        parser.add_argument("--domain", action="append", help="Short for --select domains=…")
        parser.add_argument("--choices", action="append", help="Choice counts: 2, 3.")
        parser.add_argument("--actors", action="append", help="Short for --select qualified_actors=… (codes: US,CN,…)")
        parser.add_argument("--languages", action="append",
                            help="Short for --select languages=… (BCP 47 codes: en,zh; a family that has translations "
                                 "asks the source language alone when none is given).")
        parser.add_argument("--each-actor-language", action="store_true",
                            help="Short for --select each_actor_language=yes: ask each dyad also in actor A's and "
                                 "actor B's own languages (the actors' data), where an approved translation exists; "
                                 "what is left out is printed with why.")
        parser.add_argument("--conditions", action="append",
                            help="Condition names (prompt strategies, temperatures): every unit once per condition; "
                                 "default: as the benchmark's family writes it.")
        parser.add_argument("--sample", type=int, help="Ask a seeded random sample of this many questions.")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--permute", action="store_true", help="Shuffle option order per unit (stored).")
        parser.add_argument("--balanced", action="store_true",
                            help="Balanced option order: rotations dealt over each scenario's units, so that each "
                                 "option is shown at each position equally often (within one); wins over --permute.")
        parser.add_argument("--system-prompt", default="", help="Replace the paper's A.4 system prompt.")
        parser.add_argument("--no-cache", action="store_true", help="Never reuse cached answers.")
        parser.add_argument("--resume", type=int, metavar="RUN", help="Ask only what run RUN is missing.")
        parser.add_argument("--no-wait", action="store_true", help="Launch and return without waiting.")
        parser.add_argument("--worker", choices=["auto", "yes", "no"], default="auto",
                            help="Start a worker for this command: auto = only on the embedded default (no REDIS_URL).")
        parser.add_argument("--concurrency", type=int, default=4, help="Threads of a worker started here.")
        parser.add_argument("--note", default="", help="A label shown on the run pages.")
        parser.add_argument("--budget-usd", help="Pause the run once its calls have cost this many US$.")
        parser.add_argument("--budget-units", help="Pause the run once this many units are finished.")
        parser.add_argument("--difference", metavar="POINTS",
                            help="The difference between two models the plan's power figures are for (default 10).")
        parser.add_argument("--batch", action="store_true",
                            help="Batch delivery: through the providers' batch interfaces (answers within 24 h, "
                                 "about half the price), polled by the workers.")
        parser.add_argument("--dry-run", action="store_true",
                            help="Print the plan (units, estimated tokens, cost and time per model); ask nothing.")
        same = parser.add_mutually_exclusive_group()
        same.add_argument("--reuse", action="store_true",
                          help="If a run with the same benchmark, models, selection, repeats and note exists, use it "
                               "(resumed if unfinished) instead of asking again.")
        same.add_argument("--replace", action="store_true",
                          help="Delete earlier runs with the same benchmark, models, selection, repeats and note, "
                               "then ask anew.")

    def handle(self, *args, **o):
        # SIGTERM ends the command like Ctrl-C: the worker it started is stopped.
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
        if o["dry_run"]:
            if o["resume"]:
                raise CommandError("--dry-run plans a new launch; it cannot be used with --resume")
            self._plan(o)
            return
        budget = {name: o[name] for name in ("budget_usd", "budget_units") if o[name] is not None}
        run = self._resume(o["resume"], budget, wait=not o["no_wait"]) if o["resume"] else self._launch(o)
        if run.status == Run.Status.DONE and not run.responses.exclude(
                status__in=[Response.Status.DONE, Response.Status.FAILED]).exists():
            self._summary(run)  # reused: nothing left to ask
            return
        helpers = []
        try:
            if o["no_wait"]:
                self.stdout.write(f"run {run.pk} launched: {services.progress(run).total} units")
                return
            for bundled in run.llm_models.filter(is_bundled=True):
                # Converted here, with its progress shown, rather than silently in the worker.
                try:
                    prepare(_alias(bundled), settings.CFPD_MODELS_DIR, progress=self.stderr.write)
                except LocalModelError as exc:
                    raise CommandError(f"run {run.pk} is launched, but {bundled.name} cannot be asked here: {exc}; "
                                       f"once that is fixed, continue with --resume {run.pk}") from None
            if o["worker"] == "yes" or (o["worker"] == "auto" and not settings.REDIS_URL):
                helpers.append(processes.start_worker(o["concurrency"], settings.VAR_DIR / "worker.log"))
            self._follow(run)
        finally:
            for helper in helpers:
                processes.stop(helper)
        self._summary(run)

    def _read(self, o):
        """The launch read by services.read_launch, like the form's and the API's."""
        try:
            return services.read_launch({
                "benchmark": o["benchmark"], "models": _split([o["models"]] if o["models"] else []),
                "repeats": o["repeats"], "sample": o["sample"], "seed": o["seed"], **family_selection(o),
                "choice_counts": _split(o["choices"]),
                "conditions": _split(o["conditions"]), "system_prompt": o["system_prompt"], "permute_options": o["permute"],
                "balanced_options": o["balanced"],
                "use_cache": False if o["no_cache"] else None, "note": o["note"],
                "budget_usd": o["budget_usd"], "budget_units": o["budget_units"], "difference": o["difference"],
                "delivery": "batch" if o.get("batch") else "live"})
        except services.LaunchInvalid as exc:
            raise CommandError(_options_text(exc, o)) from None

    def _plan(self, o):
        request = self._read(o)
        try:
            plan = services.plan_launch(request)
        except services.LaunchInvalid as exc:
            raise CommandError(_options_text(exc, o)) from None
        except services.RunError as exc:
            raise CommandError(str(exc)) from None
        header = ["model", "mode", "questions", "repeats", "units", "prompt tokens", "completion tokens", "cost $",
                  "time", "limited by", "batch cost $", "batch time"]
        rows = [[m.name, m.mode, m.questions, m.repeats, m.units, m.prompt_tokens, m.completion_tokens,
                 f"{m.cost:.4f}" if m.cost is not None else "unknown", f"{m.seconds:.0f}s",
                 f"{m.limited_by} ({m.latency_source} latency {m.latency_seconds:.2f}s)",
                 f"{m.batch_cost:.4f} ({m.batch_price_source})" if m.batch_cost is not None
                 else ("no batch interface" if m.batch_refusal else "unknown"),
                 "—" if m.batch_refusal else "within 24 h"] for m in plan.models]
        self._table(header, rows)
        self.stdout.write(_plan_line(plan) + "; nothing was asked")
        for check in plan.checks:  # what each model's connection test says of its answer mode
            label = {"refuse": "cannot launch", "warn": "warning", "note": "note"}.get(check["level"], check["level"])
            self.stdout.write(f"{label}: {check['text']}")
        self.stdout.write(f"estimates: {plan.token_method}")
        for line in plan.notes:  # what the selection left out and why (each actor's language)
            self.stdout.write(f"left out: {line}")
        power = plan.power or {}
        if power.get("forms"):  # the family's precision and power figures (Family.power)
            points = round(100 * power["difference"])
            self._table(["domain", "options", "scenarios", "answers/scenario", "interval ± points",
                         f"power ({points} points)", f"scenarios for ±{points}", "scenarios for 80% power"],
                        [[f["domain"], f["choice_count"], f["scenarios"], f"{f['answers_per_scenario']:.1f}",
                          f"{100 * f['half_width']:.1f}", f"{100 * f['power']:.0f}%", f["scenarios_for_half_width"],
                          f["scenarios_for_power"]] for f in power["forms"]])
            self.stdout.write(f"intra-scenario correlation {power['icc']:.2f} ({power['icc_source']}); {power['method']}")

    def _launch(self, o):
        request = self._read(o)
        benchmark, models, selection = request.benchmark, request.models, request.selection
        if not o["no_wait"]:  # this command converts and asks them (with --no-wait, the workers do)
            check_bundled_weights(models)
        if o["reuse"] or o["replace"]:
            earlier = self._same_runs(benchmark, models, selection, o)
            if earlier and o["reuse"]:
                run = earlier[0]
                self.stderr.write(f"reusing run {run.pk} ({run.status}, {run.created_at:%Y-%m-%d %H:%M}): "
                                  f"the same models, selection and note; --replace asks anew")
                if run.status != Run.Status.DONE:
                    return self._resume(run.pk, wait=not o["no_wait"])
                return run
            for old in earlier:
                try:
                    old.delete()
                    self.stderr.write(f"replacing run {old.pk}: deleted it and its answers")
                except ProtectedError:
                    self.stderr.write(f"run {old.pk} is kept: other records refer to it")
        try:
            plan = services.plan_launch(request)
            self.stderr.write(_plan_line(plan))  # what is about to be asked
            run = services.start_run(request)
            for line in plan.notes:  # what the selection left out and why (each actor's language)
                self.stdout.write(f"left out: {line}")
        except services.LaunchInvalid as exc:
            raise CommandError(_options_text(exc, o)) from None
        except services.RunError as exc:
            raise CommandError(str(exc)) from None
        self.stderr.write(f"run {run.pk}: {services.progress(run).total} units queued")
        return run

    def _same_runs(self, benchmark, models, selection, o):
        wanted = sorted(m.pk for m in models)
        candidates = Run.objects.filter(benchmark=benchmark, note=o["note"], selection=selection.as_dict(),
                                        repeats=o["repeats"], balanced_options=bool(o.get("balanced")),
                                        ).prefetch_related("llm_models")
        return [run for run in candidates if sorted(m.pk for m in run.llm_models.all()) == wanted]

    def _resume(self, run_id, budget=None, wait=True):
        run = Run.objects.filter(pk=run_id).first()
        if run is None:
            raise CommandError(f"no run {run_id}")
        if wait:
            check_bundled_weights(run.llm_models.all())
        try:
            count = services.resume_run(run, **(budget or {}))
        except services.LaunchInvalid as exc:
            raise CommandError(_options_text(exc, {})) from None
        except services.RunError as exc:
            raise CommandError(str(exc)) from None
        self.stderr.write(f"run {run.pk}: resumed, {count} units queued again")
        run.refresh_from_db()
        return run

    def _follow(self, run):
        """A progress bar on a terminal; a line per tenth of the work in a log."""
        width, started, last_tenth = 30, time.monotonic(), -1
        live = sys.stderr.isatty()
        while True:
            state = services.progress(run)
            filled = int(width * state.percent / 100)
            line = (f"[{'#' * filled}{'.' * (width - filled)}] {state.finished}/{state.total} "
                    f"({state.percent:.0f}%) done {state.done} failed {state.failed} cached {state.cached} "
                    f"{time.monotonic() - started:.0f}s")
            if live:
                sys.stderr.write("\r" + line)
                sys.stderr.flush()
            elif int(state.percent // 10) != last_tenth:
                last_tenth = int(state.percent // 10)
                sys.stderr.write(line + "\n")
            run.refresh_from_db(fields=["status"])
            if run.status in (Run.Status.DONE, Run.Status.CANCELLED, Run.Status.PAUSED) and state.running == 0:
                if live:
                    sys.stderr.write("\n")
                return
            time.sleep(0.5)

    def _table(self, header, rows):
        table = [header] + [[str(c) for c in row] for row in rows]
        widths = [max(len(r[i]) for r in table) for i in range(len(header))]
        for row in table:
            self.stdout.write("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))))

    def _summary(self, run):
        run.refresh_from_db()
        header = ["model", "units", "done", "failed", "cached", "tokens in", "tokens out", "cost $", "mean ms"]
        rows = []
        for model in run.llm_models.order_by("name"):
            p = services.progress(run, model)
            rows.append([model.name, p.total, p.done, p.failed, p.cached, p.prompt_tokens, p.completion_tokens,
                         f"{p.cost:.4f}" if p.cost is not None else "-",
                         f"{p.mean_latency_ms:.0f}" if p.mean_latency_ms is not None else "-"])
        self._table(header, rows)
        elapsed = (run.finished_at - run.created_at).total_seconds() if run.finished_at else None
        self.stdout.write(f"run {run.pk} {run.status}" + (f" in {elapsed:.1f}s" if elapsed else ""))
        if run.status == Run.Status.PAUSED:
            budget = services.budget_state(run)
            self.stdout.write(f"run {run.pk} paused: it spent US$ {budget['spent_usd']:.4f} and "
                              f"{budget['spent_units']} units of its budget; continue with --resume {run.pk} "
                              "and a higher --budget-usd / --budget-units")
