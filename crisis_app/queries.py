"""Stored group scores read into the plain rows crisis_app.report works on.

One dict per GroupScore: model, simulation, variant, level, continuation, explicit,
temperature, move, scorer, run, n_samples, n_pairs, mean (plus ``group``, the score's
id, which the dashboard links to). The continuation of a move-2 question is its own; a
move-1 question has none (""), except in an imported run, whose answers came from one
continuation's folder of a release: Run.selection["imported"]["continuation"] names it.
"""

from __future__ import annotations

from dataclasses import dataclass

from benchmarks_app.models import Benchmark
from runs_app.models import LLMModel, Response, Run

from .family import NAME as FAMILY
from .models import Continuation, GroupScore, Scorer
from .sections import SectionSpec


@dataclass(frozen=True)
class CrisisFilter:
    benchmark: str | None = None  # None: every free-form benchmark
    runs: tuple[int, ...] = ()
    scorers: tuple[str, ...] = ()
    models: tuple[str, ...] = ()
    moves: tuple[int, ...] = ()
    continuations: tuple[str, ...] = ()


def scores(filters: CrisisFilter):
    found = GroupScore.objects.all()
    if filters.benchmark:
        found = found.filter(run__benchmark__name=filters.benchmark)
    if filters.runs:
        found = found.filter(run_id__in=filters.runs)
    if filters.scorers:
        found = found.filter(scorer__name__in=filters.scorers)
    if filters.models:
        found = found.filter(model__name__in=filters.models)
    if filters.moves:
        found = found.filter(question__crisis__move__in=filters.moves)
    return found


def imported_continuation(selection) -> str:
    imported = (selection or {}).get("imported")
    return str(imported.get("continuation") or "") if isinstance(imported, dict) else ""


def group_rows(filters: CrisisFilter) -> list[dict]:
    """The filter's group scores as plain rows (the continuation filter applies to the
    continuation as defined above)."""
    found = scores(filters).values_list(
        "pk", "model__name", "question__crisis__variant__simulation__key", "question__crisis__variant__name",
        "question__crisis__variant__level", "question__crisis__continuation__name",
        "question__crisis__variant__explicit", "condition__temperature",
        "question__crisis__move", "scorer__name", "run_id", "n_samples", "n_pairs", "mean")
    rows = list(found.order_by("pk"))
    selections = dict(Run.objects.filter(pk__in={row[10] for row in rows}).values_list("pk", "selection"))
    result = []
    for (pk, model, simulation, variant, level, continuation, explicit, temperature, move, scorer, run,
         n_samples, n_pairs, mean) in rows:
        if continuation is None:
            continuation = imported_continuation(selections.get(run)) if move == 1 else ""
        if filters.continuations and continuation not in filters.continuations:
            continue
        result.append({"group": pk, "model": model, "simulation": simulation or "", "variant": variant or "",
                       "level": level if level is not None else -1, "continuation": continuation,
                       "explicit": bool(explicit), "temperature": _temperature(temperature),
                       "move": move or 0, "scorer": scorer, "run": run, "n_samples": n_samples,
                       "n_pairs": n_pairs, "mean": mean})
    return result


def _temperature(temperature) -> float:
    """The condition's temperature; NaN for a condition that sets none (the model's own)."""
    return float(temperature) if temperature is not None else float("nan")


def freeform_benchmarks() -> list[str]:
    return list(Benchmark.objects.filter(family=FAMILY).order_by("name")
                .values_list("name", flat=True))


def scorer_names(benchmark: str | None = None) -> list[str]:
    """Scorers with scores (in the benchmark), BERTScore ones first, then by name."""
    found = Scorer.objects.filter(scores__isnull=False)
    if benchmark:
        found = found.filter(scores__run__benchmark__name=benchmark)
    kinds = dict(found.distinct().values_list("name", "kind"))
    return sorted(kinds, key=lambda name: (kinds[name] != Scorer.Kind.BERTSCORE, name))


def model_names(benchmark: str | None = None) -> list[str]:
    found = GroupScore.objects.all()
    if benchmark:
        found = found.filter(run__benchmark__name=benchmark)
    return sorted(set(found.values_list("model__name", flat=True)))


def continuation_names(benchmark: str | None = None) -> list[str]:
    found = Continuation.objects.all()
    if benchmark:
        found = found.filter(simulation__benchmark__name=benchmark)
    names = set(found.values_list("name", flat=True))
    runs = Run.objects.filter(inconsistency_scores__isnull=False)
    if benchmark:
        runs = runs.filter(benchmark__name=benchmark)
    names |= {imported_continuation(s) for s in runs.distinct().values_list("selection", flat=True)} - {""}
    return sorted(names)


def unknown_names(filters: CrisisFilter) -> dict[str, str]:
    """Field -> why it is wrong ("is unknown: …"), for names and runs the filter asks for
    that do not exist (a view answers 400, a command a CommandError naming them)."""
    problems = {}
    if filters.benchmark and not Benchmark.objects.filter(name=filters.benchmark,
                                                          family=FAMILY).exists():
        known = ", ".join(freeform_benchmarks()) or "none; load one with python manage.py load_crisis_sample"
        problems["benchmark"] = f"is no free-form benchmark: {filters.benchmark!r} (free-form benchmarks: {known})"
    missing = sorted(set(filters.runs) - set(Run.objects.filter(pk__in=filters.runs).values_list("pk", flat=True)))
    if missing:
        problems["run"] = "is unknown: " + ", ".join(map(str, missing))
    missing = sorted(set(filters.scorers) - set(Scorer.objects.filter(name__in=filters.scorers)
                                                .values_list("name", flat=True)))
    if missing:
        known = ", ".join(Scorer.objects.values_list("name", flat=True)) or "none yet"
        problems["scorer"] = f"is unknown: {', '.join(map(repr, missing))} (scorers: {known})"
    missing = sorted(set(filters.models) - set(LLMModel.objects.filter(name__in=filters.models)
                                               .values_list("name", flat=True)))
    if missing:
        problems["model"] = "is unknown: " + ", ".join(map(repr, missing))
    bad_moves = sorted(set(filters.moves) - {1, 2})
    if bad_moves:
        problems["move"] = f"must be 1 or 2, got {', '.join(map(str, bad_moves))}"
    if filters.continuations:
        known_continuations = continuation_names(filters.benchmark)
        missing = sorted(set(filters.continuations) - set(known_continuations))
        if missing:
            problems["continuation"] = (f"is unknown: {', '.join(map(repr, missing))} (continuations: "
                                        f"{', '.join(known_continuations) or 'none'})")
    return problems


@dataclass(frozen=True)
class Answer:
    response: int | None
    text: str | None  # None: the response is no longer stored


@dataclass(frozen=True)
class Group:
    score: GroupScore
    title: str
    spec: SectionSpec
    answers: list[Answer]  # in the order the pairs index them


def group(score_id: int) -> Group | None:
    """One group score with its answers (in pair order) and its simulation's scored section."""
    score = (GroupScore.objects.select_related("model", "scorer", "condition", "run",
                                               "question__crisis__variant__simulation",
                                               "question__crisis__continuation")
             .filter(pk=score_id).first())
    if score is None:
        return None
    crisis = getattr(score.question, "crisis", None)
    simulation = crisis.variant.simulation if crisis else None
    spec = SectionSpec(simulation.scored_section, simulation.section_end) if simulation else SectionSpec()
    ids = [int(i) for i in score.response_ids if isinstance(i, int) or str(i).isdigit()]
    texts = dict(Response.objects.filter(pk__in=ids).values_list("pk", "raw_output"))
    answers = [Answer(i, texts.get(i)) for i in ids]
    if crisis:
        continuation = (crisis.continuation.name if crisis.continuation_id
                        else imported_continuation(score.run.selection))
        title = (f"{score.model.name} · {crisis.variant.name} (level {crisis.variant.level}) · move {crisis.move}"
                 + (f" · {continuation}" if continuation else "") + f" · {score.condition.name} · run {score.run_id}"
                 + f" · {score.scorer.name}")
    else:
        title = f"{score.model.name} · {score.question.key} · run {score.run_id}"
    return Group(score, title, spec, answers)


def default_benchmark() -> str | None:
    """The free-form benchmark scored last, else the first one by name, else None."""
    newest = (GroupScore.objects.filter(run__benchmark__family=FAMILY).order_by("-created_at", "-pk")
              .values_list("run__benchmark__name", flat=True).first())
    if newest:
        return newest
    names = freeform_benchmarks()
    return names[0] if names else None


def group_in_benchmark(score_id: int, benchmark: str | None) -> bool:
    found = GroupScore.objects.filter(pk=score_id)
    if benchmark:
        found = found.filter(run__benchmark__name=benchmark)
    return found.exists()
