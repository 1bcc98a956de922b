"""Workflows of the free-form crisis family: the questions a simulation asks, the sample
simulation, and (in scoring.py) the inconsistency scores."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from benchmarks_app.models import Benchmark, Question

from . import authoring
from .family import NAME as FAMILY
from .models import Continuation, CrisisQuestion, Simulation, Variant
from .sample_simulation import SAMPLE_SIMULATION

SAMPLE_RANKED_OPTIONS = [
    "Board the ship in international waters with the navy, together with the ally.",
    "Shadow the ship with patrol boats and document its course, without boarding it.",
    "Protest through diplomatic channels and ask the alliance for consultations.",
    "Impose sanctions on the adversary's shipping until it cooperates with an investigation.",
]


@dataclass
class SyncResult:
    created: int = 0
    updated: int = 0
    retired: int = 0
    unchanged: int = 0


def _asked(variant: Variant, ranked_options) -> list[tuple[int, Continuation | None, str, str]]:
    """(move, continuation, system text, user text) of every question the variant asks."""
    simulation = variant.simulation
    rendered = authoring.variant_texts(simulation.texts(), variant.replacements, variant.text_overrides)
    options = ranked_options if variant.answer_kind == Variant.AnswerKind.RANKED else None
    asked = [(1, None, rendered["role"], authoring.move1_user(rendered, options))]
    for continuation in simulation.continuations.all():
        asked.append((2, continuation, rendered["role"], authoring.move2_user(rendered, continuation.name, options)))
    return asked


def _key(simulation: Simulation, variant: Variant, move: int, continuation: Continuation | None, version: int) -> str:
    key = f"{simulation.benchmark.name}/crisis:{simulation.key}:{variant.name}:m{move}"
    if continuation is not None:
        key += f":{continuation.name}"
    return key if version == 1 else f"{key}.v{version}"


@transaction.atomic
def sync_questions(simulation: Simulation) -> SyncResult:
    """Make the simulation's questions match what its variants render: a question whose
    text changed is updated in place if no run asked it yet, otherwise retired and asked
    anew under a new version of its key (answers keep the text they were given)."""
    result = SyncResult()
    wanted = set()
    for variant in simulation.variants.all():
        for move, continuation, system, user in _asked(variant, simulation.ranked_options):
            current = (CrisisQuestion.objects.select_related("question")
                       .filter(variant=variant, move=move, continuation=continuation, question__is_current=True)
                       .first())
            if current is not None and current.question.text == user and current.system_text == system:
                wanted.add(current.question_id)
                result.unchanged += 1
                continue
            if current is not None and not current.question.responses.exists():
                Question.objects.filter(pk=current.question_id).update(text=user)
                CrisisQuestion.objects.filter(pk=current.pk).update(system_text=system)
                wanted.add(current.question_id)
                result.updated += 1
                continue
            version = CrisisQuestion.objects.filter(variant=variant, move=move, continuation=continuation).count() + 1
            question = Question.objects.create(
                benchmark=simulation.benchmark, key=_key(simulation, variant, move, continuation, version),
                kind=Question.Kind.FREE, language="en", text=user, options=[], option_order=[], choice_count=0)
            CrisisQuestion.objects.create(question=question, variant=variant, move=move, continuation=continuation,
                                          system_text=system)
            wanted.add(question.pk)
            result.created += 1
    stale = Question.objects.filter(crisis__variant__simulation=simulation, is_current=True).exclude(pk__in=wanted)
    result.retired = stale.update(is_current=False)
    return result


@transaction.atomic
def load_sample(benchmark_name: str = "crisis-sample") -> Simulation:
    """The sample simulation (written for this product): explicit and anonymised tellings,
    two continuations, two level-1 and two level-2 ablations, and a ranked-options
    variant. Loading it again changes nothing."""
    sample = SAMPLE_SIMULATION
    benchmark, _ = Benchmark.objects.get_or_create(
        name=benchmark_name, defaults={"family": FAMILY,
                                       "title": "Free-form crisis simulation (sample)"})
    if benchmark.family != FAMILY:
        raise ValueError(f"benchmark {benchmark_name} is a {benchmark.get_family_display()} benchmark")
    texts = sample["texts"]
    simulation, _ = Simulation.objects.update_or_create(
        benchmark=benchmark, key=sample["key"], defaults={
            "title": "The northern cable crisis", "background": texts["background"], "role": texts["role"],
            "answer_format": texts["answer_format"], "move1_incident": texts["move1_incident"],
            "ranked_options": SAMPLE_RANKED_OPTIONS})
    for position, name in enumerate(("status_quo", "revisionist")):
        Continuation.objects.update_or_create(simulation=simulation, name=name, defaults={
            "label": {"status_quo": "Status quo", "revisionist": "Revisionist escalation"}[name],
            "text": texts[f"move2_{name}"], "position": position})
    explicit = sample["variants"]["explicit"]
    rows = [
        ("explicit", "Explicit nations", 0, "", True, explicit, {}, "free"),
        ("anonymised", "Anonymised nations (colours)", 0, "", False, sample["variants"]["anonymised"], {}, "free"),
    ]
    labels = {"paraphrase": "Paraphrased", "restructured": "Restructured sentences",
              "changed_setting": "Changed setting (land border)", "swapped_ally_adversary": "Ally and adversary swapped"}
    for name, ablation in sample["ablations"].items():
        replacements = dict(explicit)
        for first, second in ablation["swaps"]:
            replacements[first], replacements[second] = replacements[second], replacements[first]
        rows.append((name.replace("_", "-"), labels[name], ablation["level"], name.replace("_", " "), True,
                     replacements, ablation["text_overrides"], "free"))
    rows.append(("ranked", "Ranked options (explicit)", 0, "", True, explicit, {}, "ranked"))
    for position, (name, label, level, kind, is_explicit, replacements, overrides, answer) in enumerate(rows):
        Variant.objects.update_or_create(simulation=simulation, name=name, defaults={
            "label": label, "level": level, "ablation": kind, "explicit": is_explicit,
            "replacements": replacements, "text_overrides": overrides, "answer_kind": answer, "position": position})
    sync_questions(simulation)
    return simulation
