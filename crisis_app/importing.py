"""Importing free-form crisis runs produced elsewhere (the public release's layout, read by
`free_release`): one finished run per CSV, its answers as responses (move 2 following the
same sample's move 1) and the release's pairwise inconsistencies as imported scores.
Atomic: any flaw and nothing is written. Importing a tree again imports only what is new."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from benchmarks_app import families
from benchmarks_app.models import Benchmark, Condition, Question
from runs_app.models import LLMModel, Response, Run
from runs_app.signals import responses_imported

from . import free_release
from .models import Continuation, GroupScore, Scorer, Simulation, Variant
from .services import sync_questions
from .temperatures import condition_name

DEFAULT_BENCHMARK = "free-release"
SIMULATION_KEY = "release"
NOT_IN_RELEASE = "The prompts are not in the release: these runs were imported from it, answers only."
VARIANTS = {True: ("explicit", "Explicit nations"), False: ("anonymised", "Anonymised nations")}
SCORER_NAME = "imported"
SCORER_CONFIG = {"source": "pairwise inconsistencies from the release's run<k>_berts.npz files"}


@dataclass
class ImportedRun:
    relative: str
    model: str
    continuation: str
    explicit: bool
    samples: int
    condition: str
    responses: int
    scores: int
    run_id: int | None = None  # None in a dry run


@dataclass
class FreeRunImport:
    benchmark: str
    dry_run: bool
    flaws: list[str] = field(default_factory=list)
    runs: list[ImportedRun] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)  # run<k> where run<k>_fixed stands
    already_imported: list[str] = field(default_factory=list)
    benchmark_created: bool = False
    models_created: list[str] = field(default_factory=list)
    conditions_created: list[str] = field(default_factory=list)

    @property
    def skipped(self) -> list[str]:
        return self.replaced + self.already_imported

    @property
    def responses(self) -> int:
        return sum(run.responses for run in self.runs)

    @property
    def scores(self) -> int:
        return sum(run.scores for run in self.runs)


def _imported_paths(benchmark: Benchmark | None) -> set[str]:
    if benchmark is None:
        return set()
    paths = set()
    for selection in Run.objects.filter(benchmark=benchmark).values_list("selection", flat=True):
        imported = (selection or {}).get("imported") if isinstance(selection, dict) else None
        if isinstance(imported, dict) and isinstance(imported.get("path"), str):
            paths.add(imported["path"])
    return paths


def _benchmark_flaws(benchmark: Benchmark, runs: list[free_release.ReleaseRun]) -> list[str]:
    """What an existing benchmark lacks for these runs, each with what to add."""
    name = benchmark.name
    if benchmark.family != Benchmark.Family.FREEFORM:
        return [f"benchmark {name!r} is a {benchmark.get_family_display()} benchmark: "
                "name a free-form one with --benchmark (or a new name, which is created)"]
    simulations = list(Simulation.objects.filter(benchmark=benchmark))
    if len(simulations) != 1:
        return [f"benchmark {name!r} has {len(simulations)} simulations where the import needs exactly one: "
                "name another with --benchmark (or a new name, which is created)"]
    simulation = simulations[0]
    flaws = []
    continuations = set(simulation.continuations.values_list("name", flat=True))
    for missing in sorted({run.path.continuation for run in runs} - continuations):
        first = next(run.path.relative for run in runs if run.path.continuation == missing)
        flaws.append(f"benchmark {name!r}: simulation {simulation.key!r} has no continuation named {missing!r} "
                     f"(met in {first}): add it to the simulation in the console (saving syncs its questions), "
                     "or import into a new --benchmark")
    for explicit in sorted({run.path.explicit for run in runs}, reverse=True):
        variants = list(_base_variants(simulation, explicit))
        telling = "explicit" if explicit else "anonymised"
        if not variants:
            flaws.append(f"benchmark {name!r}: simulation {simulation.key!r} has no level-0 free-text variant with "
                         f"{telling} nations (explicit={explicit}): add one in the console")
        elif len(variants) > 1:
            flaws.append(f"benchmark {name!r}: simulation {simulation.key!r} has {len(variants)} level-0 free-text "
                         f"variants with {telling} nations ({', '.join(v.name for v in variants)}): "
                         "the import needs exactly one")
    if flaws:
        return flaws
    for run in runs:
        variant = _base_variants(simulation, run.path.explicit).get()
        for move in free_release.MOVES:
            if _question(variant, move, run.path.continuation) is None:
                flaws.append(f"benchmark {name!r}: variant {variant.name!r} has no current move-{move} question"
                             + (f" for continuation {run.path.continuation!r}" if move == 2 else "")
                             + ": save the simulation in the console to sync its questions")
    return sorted(set(flaws), key=flaws.index)


def _base_variants(simulation: Simulation, explicit: bool):
    return simulation.variants.filter(level=Variant.Level.BASE, answer_kind=Variant.AnswerKind.FREE,
                                      explicit=explicit)


def _question(variant: Variant, move: int, continuation: str) -> Question | None:
    questions = Question.objects.filter(crisis__variant=variant, crisis__move=move, is_current=True)
    if move == 2:
        questions = questions.filter(crisis__continuation__name=continuation)
    return questions.first()


def _condition_flaws(runs: list[free_release.ReleaseRun]) -> list[str]:
    flaws = []
    for temperature in sorted({run.path.temperature for run in runs}):
        name = condition_name(temperature)
        first = next(run.path.relative for run in runs if run.path.temperature == temperature)
        if round(temperature, 1) != temperature:
            flaws.append(f"{first}: temperature {temperature:g} has more than one decimal; conditions name "
                         f"temperatures to one decimal ({name})")
            continue
        existing = Condition.objects.filter(name=name).first()
        if existing is not None and (existing.kind != Condition.Kind.TEMPERATURE or existing.temperature is None
                                     or abs(existing.temperature - temperature) > 1e-9):
            flaws.append(f"{first}: condition {name!r} exists but is not the temperature {temperature:g} "
                         f"(kind {existing.kind}, temperature {existing.temperature}): fix it in the console")
    return flaws


def import_free_runs(directory, benchmark_name: str = DEFAULT_BENCHMARK, dry_run: bool = False) -> FreeRunImport:
    """Check the whole tree and the benchmark first; with any flaw nothing is written."""
    report = FreeRunImport(benchmark=benchmark_name, dry_run=dry_run)
    release = free_release.read_release(directory)
    report.flaws.extend(release.flaws)
    report.replaced.extend(release.replaced)
    benchmark = Benchmark.objects.filter(name=benchmark_name).first()
    done = _imported_paths(benchmark)
    new_runs = []
    for run in release.runs:
        if run.path.relative in done:
            report.already_imported.append(_already(run, benchmark_name))
        else:
            new_runs.append(run)
    if benchmark is not None and new_runs:
        report.flaws.extend(_benchmark_flaws(benchmark, new_runs))
    report.flaws.extend(_condition_flaws(new_runs))
    if report.flaws:
        report.runs = []
        return report
    report.benchmark_created = benchmark is None and bool(new_runs)
    existing_models = set(LLMModel.objects.filter(name__in={r.path.model for r in new_runs})
                          .values_list("name", flat=True))
    report.models_created = sorted({r.path.model for r in new_runs} - existing_models)
    existing_conditions = set(Condition.objects.filter(
        name__in={condition_name(r.path.temperature) for r in new_runs}).values_list("name", flat=True))
    report.conditions_created = sorted({condition_name(r.path.temperature) for r in new_runs} - existing_conditions)
    if dry_run or not new_runs:
        report.runs = [_planned(run) for run in new_runs]
        return report
    with transaction.atomic():
        simulation = _simulation(benchmark_name, sorted({r.path.continuation for r in new_runs}))
        # A concurrent import of the same tree waits here, then finds its runs imported.
        Benchmark.objects.select_for_update().filter(pk=simulation.benchmark_id).first()
        done = _imported_paths(simulation.benchmark)
        scorer = None
        for run in new_runs:
            if run.path.relative in done:
                report.already_imported.append(_already(run, benchmark_name))
                continue
            if run.inconsistencies is not None and scorer is None:
                scorer, _ = Scorer.objects.get_or_create(
                    name=SCORER_NAME, defaults={"kind": Scorer.Kind.IMPORTED, "config": SCORER_CONFIG})
            report.runs.append(_write_run(simulation, run, scorer))
    return report


def _already(run: free_release.ReleaseRun, benchmark_name: str) -> str:
    return f"{run.path.relative}: skipped: already imported into {benchmark_name!r}"


def _planned(run: free_release.ReleaseRun) -> ImportedRun:
    path = run.path
    return ImportedRun(relative=path.relative, model=path.model, continuation=path.continuation,
                       explicit=path.explicit, samples=path.samples, condition=condition_name(path.temperature),
                       responses=sum(len(answers) for answers in run.answers.values()),
                       scores=len(run.inconsistencies or {}))


def _simulation(benchmark_name: str, continuations: list[str]) -> Simulation:
    """The benchmark's one simulation; a new benchmark gets one standing for the release,
    its prompts unknown, with explicit and anonymised tellings and the continuations met."""
    benchmark, created = Benchmark.objects.get_or_create(name=benchmark_name, defaults={
        "family": Benchmark.Family.FREEFORM, "title": "Imported free-form crisis runs",
        "description": "Runs imported with import_free_runs; the release holds answers, not prompts."})
    if not created:
        return Simulation.objects.get(benchmark=benchmark)
    simulation = Simulation.objects.create(
        benchmark=benchmark, key=SIMULATION_KEY, title="Imported release", background=NOT_IN_RELEASE,
        role=NOT_IN_RELEASE, answer_format=NOT_IN_RELEASE, move1_incident=NOT_IN_RELEASE)
    for position, name in enumerate(continuations):
        Continuation.objects.create(simulation=simulation, name=name, label=name.replace("_", " ").capitalize(),
                                    text=NOT_IN_RELEASE, position=position)
    for position, explicit in enumerate((True, False)):
        name, label = VARIANTS[explicit]
        Variant.objects.create(simulation=simulation, name=name, label=label, level=Variant.Level.BASE,
                               explicit=explicit, replacements={}, answer_kind=Variant.AnswerKind.FREE,
                               position=position)
    sync_questions(simulation)
    return simulation


def _model(name: str) -> LLMModel:
    existing = LLMModel.objects.filter(name=name).first()
    return existing or LLMModel.objects.create(
        name=name, litellm_model=f"imported/{name}", is_external=True, answer_mode=LLMModel.AnswerMode.GENERATE,
        notes="Created by import_free_runs: answers from the free-form crisis release; never called.")


def _condition(temperature: float) -> Condition:
    condition, _ = Condition.objects.get_or_create(name=condition_name(temperature), defaults=dict(
        label=f"Temperature {temperature:.1f}", kind=Condition.Kind.TEMPERATURE,
        family=Benchmark.Family.FREEFORM, temperature=temperature, position=30 + round(temperature * 5),
        description="Samples the model at this temperature (generate mode)."))
    return condition


def _write_run(simulation: Simulation, release_run: free_release.ReleaseRun, scorer: Scorer | None) -> ImportedRun:
    path = release_run.path
    variant = _base_variants(simulation, path.explicit).get()
    questions = {move: _question(variant, move, path.continuation) for move in free_release.MOVES}
    model, condition = _model(path.model), _condition(path.temperature)
    now = timezone.now()
    run = Run.objects.create(
        benchmark=simulation.benchmark, status=Run.Status.DONE, repeats=path.samples,
        started_at=now, finished_at=now, note=f"imported: {path.relative}"[:200],
        selection={"imported": {"path": path.relative, "continuation": path.continuation, "run": path.run,
                                "fixed": path.fixed, "explicit": path.explicit, "samples": path.samples,
                                "temperature": path.temperature}})
    run.llm_models.set([model])
    run.conditions.set([condition])

    def responses(move: int, previous: list[Response] | None) -> list[Response]:
        return Response.objects.bulk_create([
            Response(run=run, question=questions[move], model=model, condition=condition, repeat=repeat,
                     previous=previous[repeat] if previous else None, status=Response.Status.DONE,
                     messages=[], raw_output=answer, resolved_model=model.name, option_order=[],
                     params={"temperature": path.temperature}, answered_at=now)
            for repeat, answer in enumerate(release_run.answers[move])
        ], batch_size=500)

    first = responses(1, None)
    by_move = {1: first, 2: responses(2, first)}
    scores = []
    for move, values in (release_run.inconsistencies or {}).items():
        scores.append(GroupScore(run=run, model=model, question=questions[move], condition=condition, scorer=scorer,
                                 n_samples=path.samples, n_pairs=len(values), mean=sum(values) / len(values),
                                 pair_values=values, response_ids=[r.pk for r in by_move[move]],
                                 sections_missing=0))
    GroupScore.objects.bulk_create(scores)
    families.family(simulation.benchmark.family).mark_asked([q.pk for q in questions.values()])
    # In the same transaction, as import_responses does: an import is whole, whatever receivers add.
    responses_imported.send(sender=Run, run_id=run.pk)
    return ImportedRun(relative=path.relative, model=model.name, continuation=path.continuation,
                       explicit=path.explicit, samples=path.samples, condition=condition.name,
                       responses=sum(len(r) for r in by_move.values()), scores=len(scores), run_id=run.pk)
