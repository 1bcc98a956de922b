"""Importing the free-form crisis release (read by `free_release`): one finished run per
run CSV (free or rank), its answers as responses (move 2 following the same sample's move
1), the release's pairwise values as imported scores (`imported`: 1 - BERTScore F1 of
free runs; `imported-kendall`: Kendall-τ distances of rank runs), and what the models
were asked (the conversations) as the simulation's texts and its variants' overrides.

Each run is written in its own transaction: a flaw keeps out only its run (``strict``:
any flaw and nothing is written). Importing a tree again imports only what is new.

Rank runs are questions of ranked variants (answer kind "ranked") whose answer format is
the release's own list of 19 lettered options: the simulation holds no ranked options
of its own, so the product asks (and shows) the text as the release wrote it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

from django.db import transaction
from django.utils import timezone

from benchmarks_app import families
from benchmarks_app.models import Benchmark, Condition, Question
from runs_app import services as runs_services
from runs_app import unit_rows
from runs_app.models import LLMModel, Response, Run
from runs_app.signals import responses_imported

from . import free_release
from .family import NAME as FAMILY
from .free_release import FREE, RANK, LeftOut
from .models import Continuation, GroupScore, Scorer, Simulation, Variant
from .services import sync_questions
from .temperatures import condition_name

DEFAULT_BENCHMARK = "free-release"
SIMULATION_KEY = "release"
NOT_IN_RELEASE = "The prompts are not in the release: these runs were imported from it, answers only."
UNKNOWN_TEXT = "(not in the release)"
VARIANTS = {True: ("explicit", "Explicit nations"), False: ("anonymised", "Anonymised nations")}
SCORERS = {
    FREE: ("imported", {"source": "pairwise inconsistencies from the release's run<k>_berts.npz files",
                        "metric": "1 - BERTScore F1 (the release's, clipped to [0, 1])"}),
    RANK: ("imported-kendall", {"source": "kendall_move1 and kendall_move2 of the release's run<k>_ranks.npz files",
                                "metric": "kendall_tau_distance"}),
}
SCORER_NAME = SCORERS[FREE][0]
SCORER_CONFIG = SCORERS[FREE][1]


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
    kind: str = FREE
    reversed: bool = False


@dataclass
class FreeRunImport:
    benchmark: str
    dry_run: bool
    strict: bool = False
    flaws: list[str] = field(default_factory=list)
    refused: bool = False  # a flaw that keeps out the whole tree (or any flaw with strict)
    runs: list[ImportedRun] = field(default_factory=list)
    left_out: list[LeftOut] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    already_imported: list[str] = field(default_factory=list)
    conversations: int = 0
    files: int = 0
    benchmark_created: bool = False
    models_created: list[str] = field(default_factory=list)
    conditions_created: list[str] = field(default_factory=list)

    @property
    def responses(self) -> int:
        return sum(run.responses for run in self.runs)

    @property
    def scores(self) -> int:
        return sum(run.scores for run in self.runs)

    @property
    def replaced(self) -> list[LeftOut]:
        return [item for item in self.left_out if item.reason == free_release.REPLACED]

    def left_out_counts(self) -> Counter:
        return Counter(item.reason for item in self.left_out)


def variant_name(kind: str, explicit: bool, reversed_: bool) -> str:
    return ("rank-" if kind == RANK else "") + ("reversed-" if reversed_ else "") + VARIANTS[explicit][0]


def _variant_label(kind: str, explicit: bool, reversed_: bool) -> str:
    label = VARIANTS[explicit][1]
    if kind == RANK:
        label = f"Ranked options, {label.lower()}" + (", options in reverse order" if reversed_ else "")
    return label


def _imported_paths(benchmark: Benchmark | None) -> set[str]:
    if benchmark is None:
        return set()
    paths = set()
    for selection in Run.objects.filter(benchmark=benchmark, kind=Run.Kind.IMPORT).values_list("selection", flat=True):
        imported = (selection or {}).get("imported") if isinstance(selection, dict) else None
        if isinstance(imported, dict) and isinstance(imported.get("path"), str):
            paths.add(imported["path"])
    return paths


def _target(benchmark: Benchmark | None) -> tuple[Simulation | None, str | None]:
    """The simulation runs go to (None: the release's own, created), or why none can be."""
    if benchmark is None:
        return None, None
    name = benchmark.name
    if benchmark.family != FAMILY:
        return None, (f"benchmark {name!r} is a {benchmark.get_family_display()} benchmark: "
                      "name a free-form one with --benchmark (or a new name, which is created)")
    simulations = list(Simulation.objects.filter(benchmark=benchmark))
    own = [s for s in simulations if s.key == SIMULATION_KEY]
    if own:
        return own[0], None
    if len(simulations) != 1:
        return None, (f"benchmark {name!r} has {len(simulations)} simulations where the import needs exactly one: "
                      "name another with --benchmark (or a new name, which is created)")
    return simulations[0], None


def _base_variants(simulation: Simulation, explicit: bool):
    return simulation.variants.filter(level=Variant.Level.BASE, answer_kind=Variant.AnswerKind.FREE,
                                      explicit=explicit)


def _question(variant: Variant, move: int, continuation: str) -> Question | None:
    questions = Question.objects.filter(crisis__variant=variant, crisis__move=move, is_current=True)
    if move == 2:
        questions = questions.filter(crisis__continuation__name=continuation)
    return questions.first()


def _foreign_flaws(simulation: Simulation, run: free_release.ReleaseRun) -> list[str]:
    """Why a run cannot go into a simulation the import did not make (an author's own):
    it takes the runs of free-text base tellings whose continuations it has."""
    name, path = simulation.benchmark.name, run.path
    if path.kind != FREE or path.reversed:
        return [f"{path.relative}: benchmark {name!r}: simulation {simulation.key!r} was not made by the import: "
                "it takes free runs only; import rank runs into a new --benchmark"]
    if not simulation.continuations.filter(name=path.continuation).exists():
        return [f"benchmark {name!r}: simulation {simulation.key!r} has no continuation named {path.continuation!r} "
                f"(met in {path.relative}): add it to the simulation in the console (saving syncs its questions), "
                "or import into a new --benchmark"]
    variants = list(_base_variants(simulation, path.explicit))
    telling = "explicit" if path.explicit else "anonymised"
    if len(variants) != 1:
        return [f"{path.relative}: benchmark {name!r}: simulation {simulation.key!r} has {len(variants)} level-0 "
                f"free-text variants with {telling} nations where the import needs exactly one"]
    for move in free_release.MOVES:
        if _question(variants[0], move, path.continuation) is None:
            return [f"{path.relative}: benchmark {name!r}: variant {variants[0].name!r} has no current move-{move} "
                    "question: save the simulation in the console to sync its questions"]
    return []


def _condition_flaws(run: free_release.ReleaseRun, found: dict[str, Condition | None]) -> list[str]:
    """``found``: the conditions read so far by name (None: there is none), filled here."""
    temperature = run.path.temperature
    name = condition_name(temperature)
    if round(temperature, 1) != temperature:
        return [f"{run.path.relative}: temperature {temperature:g} has more than one decimal; conditions name "
                f"temperatures to one decimal ({name})"]
    if name not in found:
        found[name] = Condition.objects.filter(name=name).first()
    existing = found[name]
    if existing is not None and (existing.kind != Condition.Kind.TEMPERATURE or existing.temperature is None
                                 or abs(existing.temperature - temperature) > 1e-9):
        return [f"{run.path.relative}: condition {name!r} exists but is not the temperature {temperature:g} "
                f"(kind {existing.kind}, temperature {existing.temperature}): fix it in the console"]
    return []


def import_free_runs(directory, benchmark_name: str = DEFAULT_BENCHMARK, dry_run: bool = False, strict: bool = False,
                     chats=None, progress: Callable[[int, int], None] | None = None) -> FreeRunImport:
    """Import every run of the release under ``directory`` that has no flaw and is not
    imported yet, each in its own transaction; ``chats`` is the conversations' tree
    (default: `logging/chats/<name>` beside `logging/outputs/<name>`). With ``strict``
    any flaw and nothing is written."""
    report = FreeRunImport(benchmark=benchmark_name, dry_run=dry_run, strict=strict)
    chats = chats if chats is not None else free_release.default_chats_directory(directory)
    release = free_release.read_release(directory, chats)
    report.flaws.extend(release.flaws)
    report.left_out.extend(release.left_out)
    report.notes.extend(release.notes)
    report.files = release.files
    benchmark = Benchmark.objects.filter(name=benchmark_name).first()
    simulation, refusal = _target(benchmark)
    if refusal:
        report.flaws.insert(0, refusal)
        report.refused = True
        return report
    foreign = simulation is not None and simulation.key != SIMULATION_KEY
    done = _imported_paths(benchmark)
    new_runs, existing_conditions = [], {}
    for run in release.runs:
        if run.path.relative in done:
            report.already_imported.append(_already(run, benchmark_name))
            continue
        flaws = (_foreign_flaws(simulation, run) if foreign else []) + _condition_flaws(run, existing_conditions)
        if flaws:
            report.flaws.extend(flaws)
            report.left_out += [LeftOut(name, free_release.FLAWED) for name in (run.path.relative, run.score_relative)
                                if name]
        else:
            new_runs.append(run)
    if foreign and release.conversations:
        report.notes.append(f"benchmark {benchmark_name!r}: simulation {simulation.key!r} keeps its own texts: the "
                            f"release's {len(release.conversations)} conversation(s) are not written into it")
    else:
        report.conversations = len(release.conversations)
    if strict and report.flaws:
        report.refused = True
        return report
    report.benchmark_created = benchmark is None and bool(new_runs)
    models = {r.path.model for r in new_runs}
    report.models_created = sorted(models - set(LLMModel.objects.filter(name__in=models)
                                                .values_list("name", flat=True)))
    conditions = {condition_name(r.path.temperature) for r in new_runs}
    report.conditions_created = sorted(conditions - set(Condition.objects.filter(name__in=conditions)
                                                        .values_list("name", flat=True)))
    if dry_run or not new_runs:
        report.runs = [_planned(run) for run in new_runs]
        return report
    if not foreign:
        simulation = _release_simulation(benchmark_name, release, new_runs)
    _write_runs(simulation, foreign, new_runs, report, benchmark_name, progress)
    return report


def _write_runs(simulation: Simulation, foreign: bool, new_runs: list[free_release.ReleaseRun], report: FreeRunImport,
                benchmark_name: str, progress: Callable[[int, int], None] | None):
    """Write each new run in its own transaction into `report.runs` (one imported
    meanwhile by a concurrent import goes to `report.already_imported`)."""
    questions = _Questions(simulation, foreign)
    scorers: dict[str, Scorer] = {}
    # Models and conditions read (or made) once per import, not once per run; if a run's
    # transaction fails, the import stops there, so a row made in it is never reused.
    models: dict[str, LLMModel] = {}
    conditions: dict[float, Condition] = {}
    for number, run in enumerate(new_runs, start=1):
        with transaction.atomic():
            # A concurrent import of the same tree waits here, then finds the run imported.
            Benchmark.objects.select_for_update().filter(pk=simulation.benchmark_id).first()
            if Run.objects.filter(benchmark_id=simulation.benchmark_id,
                                  selection__imported__path=run.path.relative).exists():
                report.already_imported.append(_already(run, benchmark_name))
            else:
                scorer = None
                if run.inconsistencies:
                    name, config = SCORERS[run.path.kind]
                    if name not in scorers:
                        scorers[name], _ = Scorer.objects.get_or_create(
                            name=name, defaults={"kind": Scorer.Kind.IMPORTED, "config": config})
                    scorer = scorers[name]
                if run.path.model not in models:
                    models[run.path.model] = _model(run.path.model)
                if run.path.temperature not in conditions:
                    conditions[run.path.temperature] = _condition(run.path.temperature)
                report.runs.append(_write_run(simulation, questions, run, scorer, models[run.path.model],
                                              conditions[run.path.temperature]))
        if progress is not None:
            progress(number, len(new_runs))


def _already(run: free_release.ReleaseRun, benchmark_name: str) -> str:
    return f"{run.path.relative}: skipped: already imported into {benchmark_name!r}"


def _planned(run: free_release.ReleaseRun) -> ImportedRun:
    path = run.path
    return ImportedRun(relative=path.relative, model=path.model, continuation=path.continuation,
                       explicit=path.explicit, samples=path.samples, condition=condition_name(path.temperature),
                       responses=sum(len(answers) for answers in run.answers.values()),
                       scores=len(run.inconsistencies or {}), kind=path.kind, reversed=path.reversed)


def _variant_texts(texts: free_release.VariantTexts | None, continuations: list[str]) -> dict[str, str]:
    """A variant's texts as the simulation's fields name them."""
    if texts is None:
        return {"role": UNKNOWN_TEXT, "background": NOT_IN_RELEASE, "move1_incident": UNKNOWN_TEXT,
                "answer_format": UNKNOWN_TEXT, **{f"continuation:{c}": UNKNOWN_TEXT for c in continuations}}
    found = {"role": texts.role or UNKNOWN_TEXT, "background": texts.background,
             "move1_incident": texts.move1_incident, "answer_format": texts.answer_format}
    found.update({f"continuation:{name}": text for name, text in texts.continuations.items()})
    return found


@transaction.atomic
def _release_simulation(benchmark_name: str, release: free_release.Release,
                        runs: list[free_release.ReleaseRun]) -> Simulation:
    """The benchmark's simulation "release" with the continuations and variants these
    runs need, its texts those of the conversations: the simulation's from the explicit
    free telling (else the first variant met), each variant's own where they differ."""
    benchmark, _ = Benchmark.objects.get_or_create(name=benchmark_name, defaults={
        "family": FAMILY, "title": "Imported free-form crisis runs",
        "description": "Runs imported with import_free_runs from the free-form crisis release."})
    keys = sorted({run.path.variant for run in runs} | set(release.variants),
                  key=lambda key: (key[0] != FREE, key[2], not key[1]))
    continuations = sorted({run.path.continuation for run in runs}
                           | {c for texts in release.variants.values() for c in texts.continuations})
    texts = {key: _variant_texts(release.variants.get(key), continuations) for key in keys}
    base = next((key for key in keys if key in release.variants), None)
    shared = texts[base] if base else {}
    simulation, _ = Simulation.objects.get_or_create(benchmark=benchmark, key=SIMULATION_KEY, defaults={
        "title": "Imported release", "background": NOT_IN_RELEASE, "role": NOT_IN_RELEASE,
        "answer_format": NOT_IN_RELEASE, "move1_incident": NOT_IN_RELEASE})
    if base:
        for name in ("role", "background", "answer_format", "move1_incident"):
            setattr(simulation, name, shared[name])
        simulation.save()
    existing = set(simulation.continuations.values_list("name", flat=True))
    for position, name in enumerate(continuations):
        text = next((texts[key][f"continuation:{name}"] for key in keys if key in release.variants
                     and f"continuation:{name}" in texts[key]), None)
        if name not in existing:
            Continuation.objects.create(simulation=simulation, name=name, label=name.replace("_", " ").capitalize(),
                                        text=text or NOT_IN_RELEASE, position=position)
        elif text:
            Continuation.objects.filter(simulation=simulation, name=name).update(text=text)
    current = {**{f"continuation:{c.name}": c.text for c in simulation.continuations.all()},
               **{name: getattr(simulation, name) for name in ("role", "background", "answer_format",
                                                               "move1_incident")}}
    for position, key in enumerate(keys):
        kind, explicit, reversed_ = key
        overrides = {name: text for name, text in texts[key].items() if current.get(name) != text}
        if kind == RANK:
            # The options are written in the answer format: the variant always carries it.
            overrides["answer_format"] = texts[key]["answer_format"]
        name = variant_name(kind, explicit, reversed_)
        variant = Variant.objects.filter(simulation=simulation, name=name).first()
        values = {"label": _variant_label(kind, explicit, reversed_), "explicit": explicit, "replacements": {},
                  "text_overrides": overrides,
                  "answer_kind": Variant.AnswerKind.RANKED if kind == RANK else Variant.AnswerKind.FREE,
                  "level": Variant.Level.MEANING_PRESERVING if reversed_ else Variant.Level.BASE,
                  "ablation": "options in reverse order" if reversed_ else ""}
        if variant is None:
            Variant.objects.create(simulation=simulation, name=name, position=position, **values)
        elif base or variant.text_overrides != overrides:
            Variant.objects.filter(pk=variant.pk).update(**values)
    sync_questions(simulation)
    return simulation


class _Questions:
    """The current question of each (variant, move, continuation) a run answers."""

    def __init__(self, simulation: Simulation, foreign: bool):
        self.simulation, self.foreign, self.found = simulation, foreign, {}

    def variant(self, path: free_release.RunPath) -> Variant:
        if self.foreign:
            return _base_variants(self.simulation, path.explicit).get()
        return Variant.objects.get(simulation=self.simulation, name=variant_name(*path.variant))

    def get(self, path: free_release.RunPath, move: int) -> Question:
        key = (path.variant, move, path.continuation if move == 2 else "")
        if key not in self.found:
            self.found[key] = _question(self.variant(path), move, path.continuation)
        return self.found[key]


def _model(name: str) -> LLMModel:
    existing = LLMModel.objects.filter(name=name).first()
    return existing or LLMModel.objects.create(
        name=name, litellm_model=f"imported/{name}", is_external=True, answer_mode=LLMModel.AnswerMode.GENERATE,
        notes="Created by import_free_runs: answers from the free-form crisis release; never called.")


def _condition(temperature: float) -> Condition:
    condition, _ = Condition.objects.get_or_create(name=condition_name(temperature), defaults=dict(
        label=f"Temperature {temperature:.1f}", kind=Condition.Kind.TEMPERATURE,
        family=FAMILY, temperature=temperature, position=30 + round(temperature * 5),
        description="Samples the model at this temperature (generate mode)."))
    return condition


def _write_run(simulation: Simulation, questions: _Questions, release_run: free_release.ReleaseRun,
               scorer: Scorer | None, model: LLMModel, condition: Condition) -> ImportedRun:
    path = release_run.path
    asked = {move: questions.get(path, move) for move in free_release.MOVES}
    now = timezone.now()
    imported = {"path": path.relative, "continuation": path.continuation, "run": path.run, "fixed": path.fixed,
                "explicit": path.explicit, "samples": path.samples, "temperature": path.temperature}
    if path.kind != FREE or path.reversed:
        imported.update({"kind": path.kind, "reversed": path.reversed})
    if release_run.score_relative:
        imported["scores"] = release_run.score_relative
    run = runs_services.create_run(Run.Kind.IMPORT, simulation.benchmark, [model], [condition],
                                   selection={"imported": imported}, repeats=path.samples,
                                   note=f"imported: {path.relative}"[:200])

    def responses(move: int, previous: list[Response] | None) -> list[Response]:
        return unit_rows.create_rows([
            dict(run=run, question=asked[move], model=model, condition=condition, repeat=repeat,
                 previous=previous[repeat] if previous else None, status=Response.Status.DONE,
                 messages=[], raw_output=answer, resolved_model=model.name, option_order=[],
                 params={"temperature": path.temperature}, answered_at=now)
            for repeat, answer in enumerate(release_run.answers[move])
        ], batch_size=500)

    first = responses(1, None)
    by_move = {1: first, 2: responses(2, first)}
    scores = []
    for move, values in (release_run.inconsistencies or {}).items():
        scores.append(GroupScore(run=run, model=model, question=asked[move], condition=condition, scorer=scorer,
                                 n_samples=path.samples, n_pairs=len(values), mean=sum(values) / len(values),
                                 pair_values=values, response_ids=[r.pk for r in by_move[move]],
                                 sections_missing=0))
    GroupScore.objects.bulk_create(scores)
    families.family(simulation.benchmark.family).mark_asked([q.pk for q in asked.values()], run.pk)
    # In the same transaction, as import_responses does: a run is whole, whatever receivers add.
    responses_imported.send(sender=Run, run_id=run.pk)
    return ImportedRun(relative=path.relative, model=model.name, continuation=path.continuation,
                       explicit=path.explicit, samples=path.samples, condition=condition.name,
                       responses=sum(len(r) for r in by_move.values()), scores=len(scores), run_id=run.pk,
                       kind=path.kind, reversed=path.reversed)
