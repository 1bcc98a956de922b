"""Authoring workflows: every state change of a scenario goes through here, whether it
comes from admin, an import, a command or (later) a run."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from auditlog.models import LogEntry
from django.db import models, transaction
from django.db.models import Count, Q
from django.utils import timezone

from benchmarks_app.language_codes import SOURCE_LANGUAGE
from kit.history_record import record_updated

from . import translations
from .counts import pivot_counts
from .expansion import TemplateOption, expand_scenario
from .naming import ActorName
from .notation import ActorSetText
from .taxonomy import FOCUS_ACTORS, Category, Comparison, Taxonomy
from .validation import OptionSpec, Problem, ScenarioSpec, check_scenario
from .models import (
    ActionCategory, Actor, ActorSet, AskedVersion, Benchmark, CodifiedComparison, Domain, Question, ResponseOption,
    Scenario,
    ScenarioDyad, ScenarioQuestion, ScenarioReview,
)

REVIEWS_NEEDED = 2


class AuthoringError(ValueError):
    """A workflow refused: the message says why and what to do."""


def taxonomy_from_db() -> Taxonomy:
    return Taxonomy(
        domains=dict(Domain.objects.values_list("slug", "name")),
        categories={
            c.slug: Category(c.slug, c.domain.slug, c.name, c.rank)
            for c in ActionCategory.objects.select_related("domain")
        },
        comparisons={
            c.slug: Comparison(c.slug, c.sub_dimension.domain.slug, c.sub_dimension.slug, c.name,
                               c.codified_action.slug if c.codified_action else None,
                               tuple(slot.category.slug for slot in c.slots.all()))
            for c in CodifiedComparison.objects.select_related(
                "sub_dimension__domain", "codified_action").prefetch_related("slots__category")
        },
    )


def known_actor_codes() -> set[str]:
    return set(Actor.objects.values_list("code", flat=True))


def resolve_actor_set(text: ActorSetText) -> tuple[list[tuple[str, str]], list[Problem]]:
    """Explicit pairs followed by the pairs of every named set, in order, without repeats."""
    pairs, problems = list(text.pairs), []
    for expression in text.sets:
        actor_set = ActorSet.objects.filter(name__iexact=expression.name).first()
        if actor_set is None:
            names = ", ".join(ActorSet.objects.values_list("name", flat=True)) or "none defined"
            problems.append(Problem("Actor Set", f"no actor set named {expression.name!r} (sets: {names})"))
            continue
        seen = set(pairs)
        pairs += [pair for pair in expression.pairs(actor_set.member_codes()) if pair not in seen]
    return pairs, problems


# --- scenario <-> spec -------------------------------------------------------------

def spec_of(scenario: Scenario) -> ScenarioSpec:
    return ScenarioSpec(
        key=scenario.key,
        domain=scenario.domain.slug,
        comparison=scenario.comparison.slug,
        template=scenario.template,
        options=[OptionSpec(o.text, o.category.slug) for o in scenario.options.select_related("category")],
        qualified_actor=scenario.qualified_actor,
        dyads=[(d.actor_a.code, d.actor_b.code) for d in scenario.dyads.select_related("actor_a", "actor_b")],
        notes=scenario.notes,
    )


def content_hash(spec: ScenarioSpec) -> str:
    """What a review approves: the text, options and their coding, the advised actor."""
    payload = {
        "comparison": spec.comparison, "template": spec.template, "qualified": spec.qualified_actor,
        "options": [[o.text, o.category] for o in spec.options],
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def same_content(spec: ScenarioSpec, other: ScenarioSpec) -> bool:
    return content_hash(spec) == content_hash(other) and spec.dyads == other.dyads and spec.domain == other.domain


def _write_spec(scenario: Scenario, spec: ScenarioSpec):
    """Replace a scenario's fields, options and dyads with the spec's (not frozen ones)."""
    categories = {c.slug: c for c in ActionCategory.objects.filter(slug__in=[o.category for o in spec.options])}
    actors = {a.code: a for a in Actor.objects.filter(code__in={c for pair in spec.dyads for c in pair})}
    scenario.domain = Domain.objects.get(slug=spec.domain)
    scenario.comparison = CodifiedComparison.objects.get(slug=spec.comparison)
    scenario.template = spec.template
    scenario.qualified_actor = spec.qualified_actor
    scenario.notes = spec.notes
    scenario.save()
    before = _parts(scenario)
    scenario.options.all().delete()
    ResponseOption.objects.bulk_create([
        ResponseOption(scenario=scenario, position=n, text=o.text, category=categories[o.category])
        for n, o in enumerate(spec.options, start=1)
    ])
    scenario.dyads.all().delete()
    ScenarioDyad.objects.bulk_create([
        ScenarioDyad(scenario=scenario, actor_a=actors[a], actor_b=actors[b], position=n)
        for n, (a, b) in enumerate(spec.dyads, start=1)
    ])
    _record_parts(scenario, before)
    after_content_change(scenario)


def _parts(scenario: Scenario) -> dict[str, str]:
    """The scenario's options and dyads as its history shows them (one line each)."""
    options = scenario.options.select_related("category").order_by("position")
    dyads = scenario.dyads.select_related("actor_a", "actor_b").order_by("position")
    return {"options": "\n".join(f"{o.position}. {o.text} [{o.category.slug}]" for o in options),
            "dyads": ", ".join(f"({d.actor_a.code},{d.actor_b.code})" for d in dyads)}


def _record_parts(scenario: Scenario, before: dict[str, str]):
    """One entry in the scenario's own history for options and dyads rewritten in bulk
    (bulk_create sends no signal to django-auditlog): old and new, field by field."""
    after = _parts(scenario)
    changes = {name: [before[name], after[name]] for name in after if before[name] != after[name]}
    if changes:
        LogEntry.objects.log_create(scenario, action=LogEntry.Action.UPDATE, changes=changes)


def after_content_change(scenario: Scenario):
    """Keep derived state in step after any edit: content hash, review status, questions."""
    spec = spec_of(scenario)
    scenario.content_hash = content_hash(spec)
    scenario.status = review_status(scenario)
    Scenario.objects.filter(pk=scenario.pk).update(content_hash=scenario.content_hash, status=scenario.status)
    sync_questions(scenario)
    translations.mark_out_of_date(scenario)


@dataclass
class SaveOutcome:
    scenario: Scenario
    action: str  # created, updated, new-version, unchanged


def save_spec(benchmark: Benchmark, spec: ScenarioSpec, author=None) -> SaveOutcome:
    """Create or update the current version of `spec.key`; a frozen one gets a new version.

    The spec must already be valid (see `check_scenario`).
    """
    current = Scenario.objects.filter(benchmark=benchmark, key=spec.key, is_current=True).first()
    if current is None:
        scenario = Scenario(benchmark=benchmark, key=spec.key, author=author)
        _write_spec(scenario, spec)
        return SaveOutcome(scenario, "created")
    if same_content(spec_of(current), spec) and current.notes == spec.notes:
        return SaveOutcome(current, "unchanged")
    if current.is_frozen:
        scenario = new_version(current, author=author)
        _write_spec(scenario, spec)
        return SaveOutcome(scenario, "new-version")
    _write_spec(current, spec)
    return SaveOutcome(current, "updated")


@transaction.atomic
def new_version(scenario: Scenario, author=None) -> Scenario:
    """Copy a scenario into version n+1 (a draft, not frozen), which becomes current."""
    if not scenario.is_current:
        raise AuthoringError(f"Not a new version: {scenario} is not the current version; edit the current one")
    Scenario.objects.filter(pk=scenario.pk).update(is_current=False)
    Question.objects.filter(cfpd__scenario=scenario).update(is_current=False)
    scenario.is_current = False
    translations.mark_out_of_date(scenario)  # they translate the old text: never reused for the new version
    latest = Scenario.objects.filter(benchmark=scenario.benchmark, key=scenario.key).order_by("-version").first()
    successor = Scenario.objects.create(
        benchmark=scenario.benchmark, key=scenario.key, version=latest.version + 1, previous_version=scenario,
        domain=scenario.domain, comparison=scenario.comparison, template=scenario.template,
        qualified_actor=scenario.qualified_actor, author=author or scenario.author, notes=scenario.notes,
    )
    ResponseOption.objects.bulk_create([
        ResponseOption(scenario=successor, position=o.position, text=o.text, category=o.category)
        for o in scenario.options.all()
    ])
    ScenarioDyad.objects.bulk_create([
        ScenarioDyad(scenario=successor, actor_a=d.actor_a, actor_b=d.actor_b, position=d.position)
        for d in scenario.dyads.all()
    ])
    after_content_change(successor)
    return successor


def freeze(scenarios, run_id: int | None = None) -> int:
    """Mark scenario versions as asked: from now on they never change. Returns how many froze.
    Each version that froze gets an entry in its history ("frozen at", and the run that
    first asked it)."""
    ids = [s.pk for s in scenarios]
    now = timezone.now()
    fresh = list(Scenario.objects.filter(pk__in=ids, frozen_at__isnull=True).only("pk", "key", "version"))
    Scenario.objects.filter(pk__in=[s.pk for s in fresh], frozen_at__isnull=True).update(frozen_at=now)
    asked = {"first asked by run": ["", str(run_id)]} if run_id is not None else {}
    record_updated(fresh, lambda _: {"frozen at": ["", now.isoformat(timespec="seconds")]} | asked)
    return len(fresh)


def record_asked_versions(run_id: int, scenarios) -> None:
    """Record that the run asked these scenario versions (again: nothing twice)."""
    AskedVersion.objects.bulk_create([AskedVersion(run_id=run_id, scenario_id=s.pk) for s in scenarios],
                                     ignore_conflicts=True, batch_size=1000)


# --- reviews -------------------------------------------------------------------------

def review_status(scenario: Scenario) -> str:
    approvals = (ScenarioReview.objects.filter(scenario=scenario, content_hash=scenario.content_hash)
                 .exclude(reviewer_id=scenario.author_id).values("reviewer").distinct().count())
    return Scenario.Status.REVIEWED if approvals >= REVIEWS_NEEDED else Scenario.Status.DRAFT


def approve(scenario: Scenario, reviewer, comment: str = "") -> tuple[ScenarioReview, bool]:
    """Record `reviewer`'s approval of the text as it stands (section 3.4: two people
    who did not write it must review a scenario). (review, whether it is new): a second
    approval of the same text by the same person counts once."""
    if scenario.author_id is not None and scenario.author_id == reviewer.pk:
        # Not opening with the key: the console capitalises a message's first letter ("Esc3-…").
        raise AuthoringError(f"Not approved: you wrote this scenario, {scenario}; two other people must review it")
    review, created = ScenarioReview.objects.get_or_create(
        scenario=scenario, reviewer=reviewer, content_hash=scenario.content_hash, defaults={"comment": comment})
    status = review_status(scenario)
    changes = {"approved by": ["", reviewer.get_username()]} if created else {}
    if status != scenario.status:
        changes["status"] = [scenario.status, status]
        scenario.status = status
        Scenario.objects.filter(pk=scenario.pk).update(status=status)
    if changes:  # the scenario's own history: who approved its text, and what that changed
        LogEntry.objects.log_create(scenario, action=LogEntry.Action.UPDATE, changes=changes)
    return review, created


# --- questions -----------------------------------------------------------------------

def _expansion(scenario: Scenario) -> tuple[list, dict[str, Actor]]:
    """The scenario's questions, and its actors by code (loaded with the dyads)."""
    options = [TemplateOption(o.text, o.category.slug, o.category.rank)
               for o in scenario.options.select_related("category")]
    dyad_rows = list(scenario.dyads.select_related("actor_a", "actor_b"))
    actors = {actor.code: actor for d in dyad_rows for actor in (d.actor_a, d.actor_b)}
    names = {code: ActorName(actor.prompt_name, actor.takes_article) for code, actor in actors.items()}
    questions = expand_scenario(f"{scenario.benchmark.name}/{scenario.key}", scenario.version, scenario.template,
                                options, scenario.qualified_actor,
                                [(d.actor_a.code, d.actor_b.code) for d in dyad_rows], names)
    return questions, actors


def expected_questions(scenario: Scenario):
    return _expansion(scenario)[0]


def _differs(row, name: str, value) -> bool:
    """The row's field differs from value; a foreign key compared by id (reading the related
    row would be a query per question and key: ~2,700 for the demo's 683 questions)."""
    if isinstance(value, models.Model):
        return getattr(row, f"{name}_id") != value.pk
    return getattr(row, name) != value


def sync_questions(scenario: Scenario) -> dict[str, int]:
    """Make the scenario version's questions exactly its expansion: deterministic and
    idempotent (a second call changes nothing). Frozen versions are never touched."""
    counts = {"created": 0, "updated": 0, "deleted": 0}
    if scenario.is_frozen:
        return counts
    questions, actors = _expansion(scenario)
    expected = {q.key: q for q in questions}
    # The source language's questions only: a translation's questions are its own (translations.py).
    existing = {q.key: q for q in Question.objects.filter(cfpd__scenario=scenario, language=SOURCE_LANGUAGE)
                .select_related("cfpd")}
    stale = [key for key in existing if key not in expected]
    if stale:
        counts["deleted"] = Question.objects.filter(cfpd__scenario=scenario, language=SOURCE_LANGUAGE,
                                                    key__in=stale).delete()[0]
    to_create, to_update, details = [], [], []
    for key, q in expected.items():
        fields = dict(
            benchmark_id=scenario.benchmark_id, kind=Question.Kind.CHOICE, text=q.text,
            options=[{"text": t, "category": c} for t, c in zip(q.options, q.categories)],
            option_order=list(q.option_order), choice_count=q.choice_count, is_current=scenario.is_current,
        )
        detail = dict(scenario=scenario, variant=q.variant, domain_id=scenario.domain_id, actor_a=actors[q.actor_a],
                      actor_b=actors[q.actor_b], qualified_actor=actors[q.qualified_actor])
        row = existing.get(key)
        if row is None:
            question = Question(key=key, **fields)
            to_create.append(question)
            details.append((question, detail))
        elif (any(getattr(row, name) != value for name, value in fields.items())
              or any(_differs(row.cfpd, name, value) for name, value in detail.items())):
            for name, value in fields.items():
                setattr(row, name, value)
            for name, value in detail.items():
                setattr(row.cfpd, name, value)
            to_update.append(row)
    Question.objects.bulk_create(to_create, batch_size=500)
    ScenarioQuestion.objects.bulk_create([ScenarioQuestion(question=question, **detail)
                                          for question, detail in details], batch_size=500)
    if to_update:
        Question.objects.bulk_update(to_update, ["benchmark", "kind", "text", "options", "option_order",
                                                 "choice_count", "is_current"], batch_size=500)
        ScenarioQuestion.objects.bulk_update([row.cfpd for row in to_update],
                                             ["variant", "domain", "actor_a", "actor_b", "qualified_actor"],
                                             batch_size=500)
    counts["created"], counts["updated"] = len(to_create), len(to_update)
    return counts


def sync_benchmark(benchmark: Benchmark) -> dict[str, int]:
    totals = {"created": 0, "updated": 0, "deleted": 0}
    for scenario in benchmark.scenarios.all():
        for name, value in sync_questions(scenario).items():
            totals[name] += value
    return totals


def current_questions(benchmark: Benchmark):
    """The questions a run of this benchmark asks: those of current scenario versions."""
    return Question.objects.filter(benchmark=benchmark, is_current=True)


@dataclass
class StatsRow:
    domain: str
    choice_count: int
    qualified_actor: str
    questions: int


def benchmark_stats(benchmark: Benchmark) -> list[StatsRow]:
    """Question counts per domain x choice count x qualified actor (current versions)."""
    rows = (current_questions(benchmark)
            .values("cfpd__domain__name", "cfpd__domain__position", "choice_count", "cfpd__qualified_actor__code")
            .annotate(n=Count("id"))
            .order_by("cfpd__domain__position", "choice_count", "-n", "cfpd__qualified_actor__code"))
    return [StatsRow(r["cfpd__domain__name"], r["choice_count"], r["cfpd__qualified_actor__code"], r["n"])
            for r in rows]


def validate_spec(spec: ScenarioSpec, taxonomy: Taxonomy | None = None, known: set[str] | None = None):
    return check_scenario(spec, taxonomy or taxonomy_from_db(), known if known is not None else known_actor_codes())


def stats_table(benchmark: Benchmark):
    return pivot_counts(benchmark_stats(benchmark), FOCUS_ACTORS)


def approvals_of_current_text(scenario: Scenario) -> list[str]:
    reviews = (ScenarioReview.objects.filter(scenario=scenario, content_hash=scenario.content_hash)
               .exclude(reviewer_id=scenario.author_id).select_related("reviewer"))
    return sorted({review.reviewer.get_username() for review in reviews})


def add_dyads(scenario: Scenario, pairs) -> tuple[int, list[tuple[str, str]]]:
    """Append dyads after the existing ones; pairs already present are skipped and returned."""
    existing = {(d.actor_a.code, d.actor_b.code) for d in scenario.dyads.select_related("actor_a", "actor_b")}
    fresh = [pair for pair in dict.fromkeys(pairs) if pair not in existing]
    skipped = [pair for pair in pairs if pair in existing]
    if fresh:
        actors = {a.code: a for a in Actor.objects.filter(code__in={c for pair in fresh for c in pair})}
        start = (scenario.dyads.aggregate(m=models.Max("position"))["m"] or 0) + 1
        ScenarioDyad.objects.bulk_create([
            ScenarioDyad(scenario=scenario, actor_a=actors[a], actor_b=actors[b], position=start + n)
            for n, (a, b) in enumerate(fresh)
        ])
    return len(fresh), skipped
