"""How the engine asks a free-form crisis question: the variant's role as the system
message and the question's text as the user turn. Move 2 is a follow-up: the engine
asks it in the same conversation, after the model's own move-1 answer, once that
answer arrives (`follow_ups`)."""

from __future__ import annotations

from html import escape

from django.db.models import Count

from accounts.roles import ANALYSTS, AUTHORS
from benchmarks_app.families import BenchmarkStats, Dashboard, Family
from benchmarks_app.models import Question

from .models import FAMILY as NAME
from .models import Continuation, CrisisQuestion, Simulation, Variant


def render(question, order, condition, system_prompt):
    crisis = question.crisis
    system = system_prompt or (condition.system_prompt if condition is not None else "") or crisis.system_text
    messages = [{"role": "system", "content": system}] if system else []
    return messages + [{"role": "user", "content": question.text}]


def filter_questions(queryset, selection):
    """A run asks move 1 of the chosen variants (all when none is named): move 2 follows
    each move-1 answer. The family's selection key `domains` names variants here."""
    queryset = queryset.filter(crisis__move=1)
    if selection.values("domains"):
        queryset = queryset.filter(crisis__variant__name__in=selection.values("domains"))
    return queryset


def check_selection(selection) -> dict[str, list[str]]:
    variants = selection.values("domains")
    if not variants:
        return {}
    known = set(Variant.objects.filter(name__in=variants).values_list("name", flat=True))
    unknown = [name for name in variants if name not in known]
    return {"domains": [f"no crisis variant named {', '.join(unknown)}"]} if unknown else {}


def follow_ups(question) -> list[int]:
    """Move 1 is followed by move 2 of the same variant, once per continuation."""
    crisis = question.crisis
    if crisis.move != 1:
        return []
    return list(Question.objects.filter(crisis__variant_id=crisis.variant_id, crisis__move=2, is_current=True)
                .order_by("crisis__continuation__position", "id").values_list("id", flat=True))


def summary(benchmark) -> str:
    rows = []
    for simulation in Simulation.objects.filter(benchmark=benchmark).prefetch_related("variants", "continuations"):
        variants = ", ".join(f"{escape(v.name)} (level {v.level}{', ' + escape(v.ablation) if v.ablation else ''})"
                             for v in simulation.variants.all())
        continuations = ", ".join(escape(c.name) for c in simulation.continuations.all())
        rows.append(f"<li><strong>{escape(simulation.title)}</strong>: variants {variants}; "
                    f"move 2 continuations {continuations}</li>")
    return f"<ul>{''.join(rows)}</ul>" if rows else "<p>No simulation yet.</p>"


def benchmark_stats(benchmark) -> BenchmarkStats:
    questions = benchmark.questions.filter(is_current=True)
    by_move = dict(CrisisQuestion.objects.filter(question__in=questions).values_list("move")
                   .annotate(n=Count("pk")).order_by("move"))
    count = questions.count()
    return BenchmarkStats(f"free-form crisis, {count} questions", count, (
        f"simulations: {Simulation.objects.filter(benchmark=benchmark).count()}",
        f"variants: {Variant.objects.filter(simulation__benchmark=benchmark).count()}",
        f"move-2 continuations: {Continuation.objects.filter(simulation__benchmark=benchmark).count()}",
        "questions by move: " + ", ".join(f"{move}: {n}" for move, n in by_move.items())))


# Authors write simulations with their continuations and variants; the questions, scorers
# and scores are written by services, which authors only read.
ROLE_PERMISSIONS = {
    AUTHORS: tuple(f"crisis_app.{action}_{model}" for model in ("simulation", "continuation", "variant")
                   for action in ("add", "change", "delete", "view"))
    + tuple(f"crisis_app.view_{model}" for model in ("crisisquestion", "scorer", "groupscore",
                                                      "simulationtranslation")),
    ANALYSTS: ("crisis_app.view_crisis_dashboard",),
}
DASHBOARD = Dashboard("crisis-dashboard", "Crisis", "Crisis inconsistency",
                      "Free-form crisis simulations, each prompt sampled many times: how far a model's answers "
                      "disagree (1 − rescaled BERTScore), per model, temperature, move and continuation, against "
                      "what meaning-preserving rewrites of the prompt cause, with the most divergent pairs side by "
                      "side.", "crisis",
                      "crisis_app.view_crisis_dashboard")

FREEFORM = Family(name=NAME, label="Free-form crisis simulation", render=render, selection_keys=("domains",),
                  filter_questions=filter_questions,
                  check_selection=check_selection, follow_ups=follow_ups, summary=summary,
                  stats=benchmark_stats, permutable=False,
                  dashboard=DASHBOARD, authored_as="crisis simulations", role_permissions=ROLE_PERMISSIONS,
                  urls=(("analysis/crisis/", "crisis_app.urls"), ("analysis/crisis/validation/", "crisis_app.validation_urls"),
                        ("api/analysis/crisis/", "crisis_app.api_urls")))
