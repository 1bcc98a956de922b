"""New scenarios saved many at a time, for `import_scenario_file` (issue 32: a million rows
ran at 57 scenarios a second, each saved by `services.save_spec` in ~20 statements).

A chunk of checked rows is written as `save_spec` writes each: the rows whose key has no
current scenario in the benchmark (created) in a few inserts per table (scenarios, their
options and dyads, the questions of their expansion and the questions' details); every
other row (updated, unchanged, a new version of a frozen one) through `save_spec` itself.
The caller holds one transaction over every chunk, so a failure anywhere writes nothing.
`tests/scenarios_app/test_scenario_bulk_save.py` checks that both paths leave the same rows.
"""

from __future__ import annotations

from kit.history_record import record_created

from . import services
from .expansion import TemplateOption, expand_scenario
from .models import (
    ActionCategory, Actor, Benchmark, CodifiedComparison, Domain, Question, ResponseOption, Scenario, ScenarioDyad,
    ScenarioQuestion,
)
from .naming import ActorName
from .validation import ScenarioSpec

INSERT_BATCH = 500  # rows per INSERT (SQLite's variables)


class BulkSaver:
    """Saves checked specs into `benchmark`, a chunk at a time; the taxonomy and actors it
    needs are read once and kept (a few hundred rows at most)."""

    def __init__(self, benchmark: Benchmark, author=None):
        self.benchmark = benchmark
        self.author = author
        self.domains: dict[str, Domain] = {}
        self.comparisons: dict[str, CodifiedComparison] = {}
        self.categories: dict[str, ActionCategory] = {}
        self.actors: dict[str, Actor] = {}

    def _current_keys(self, specs: list[ScenarioSpec]) -> set[str]:
        if self.benchmark.pk is None:
            return set()
        return set(Scenario.objects.filter(benchmark=self.benchmark, is_current=True,
                                           key__in=[spec.key for spec in specs]).values_list("key", flat=True))

    def plan(self, specs: list[ScenarioSpec], planned_action) -> list[str]:
        """What `save` would do with each spec (a dry run): `planned_action(benchmark, spec)`
        for the keys that exist, "created" for the others, without a query per new key."""
        existing = self._current_keys(specs)
        return [planned_action(self.benchmark, spec) if spec.key in existing else "created" for spec in specs]

    def save(self, specs: list[ScenarioSpec]) -> list[str]:
        """Save every spec; the action of each (created, updated, new-version, unchanged)."""
        existing = self._current_keys(specs)
        actions = []
        for spec in specs:
            # Keys already there go the one way that knows versions, freezing and reviews.
            actions.append(services.save_spec(self.benchmark, spec, author=self.author).action
                           if spec.key in existing else "created")
        self._create([spec for spec in specs if spec.key not in existing])
        return actions

    def _load(self, specs: list[ScenarioSpec]):
        if not self.domains:
            self.domains = {d.slug: d for d in Domain.objects.all()}
            self.comparisons = {c.slug: c for c in CodifiedComparison.objects.all()}
            self.categories = {c.slug: c for c in ActionCategory.objects.all()}
        codes = {code for spec in specs for pair in spec.dyads for code in pair} - set(self.actors)
        if codes:
            self.actors.update((a.code, a) for a in Actor.objects.filter(code__in=codes))

    def _create(self, specs: list[ScenarioSpec]):
        """What `save_spec` writes for each new key: `_write_spec`, then `after_content_change`
        (content hash, review status: a draft, nobody has reviewed it yet; the questions of
        `sync_questions`)."""
        if not specs:
            return
        self._load(specs)
        scenarios = Scenario.objects.bulk_create([
            Scenario(benchmark=self.benchmark, key=spec.key, author=self.author, domain=self.domains[spec.domain],
                     comparison=self.comparisons[spec.comparison], template=spec.template,
                     qualified_actor=spec.qualified_actor, notes=spec.notes, content_hash=services.content_hash(spec),
                     status=Scenario.Status.DRAFT)
            for spec in specs], batch_size=INSERT_BATCH)
        record_created(scenarios)  # bulk_create sends no signal: their "create" entries, with the import's author
        ResponseOption.objects.bulk_create([
            ResponseOption(scenario=scenario, position=n, text=o.text, category=self.categories[o.category])
            for scenario, spec in zip(scenarios, specs) for n, o in enumerate(spec.options, start=1)],
            batch_size=INSERT_BATCH)
        ScenarioDyad.objects.bulk_create([
            ScenarioDyad(scenario=scenario, actor_a=self.actors[a], actor_b=self.actors[b], position=n)
            for scenario, spec in zip(scenarios, specs) for n, (a, b) in enumerate(spec.dyads, start=1)],
            batch_size=INSERT_BATCH)
        questions, details = [], []
        for scenario, spec in zip(scenarios, specs):
            for question, detail in self._questions(scenario, spec):
                questions.append(question)
                details.append(detail)
        Question.objects.bulk_create(questions, batch_size=INSERT_BATCH)
        ScenarioQuestion.objects.bulk_create([ScenarioQuestion(question=question, **detail)
                                              for question, detail in zip(questions, details)],
                                             batch_size=INSERT_BATCH)

    def _questions(self, scenario: Scenario, spec: ScenarioSpec):
        """(Question, ScenarioQuestion fields) of the new scenario's expansion, as
        `services.sync_questions` makes them for a scenario that has none yet."""
        options = [TemplateOption(o.text, self.categories[o.category].slug, self.categories[o.category].rank)
                   for o in spec.options]
        actors = {code: self.actors[code] for pair in spec.dyads for code in pair}
        names = {code: ActorName(actor.prompt_name, actor.takes_article) for code, actor in actors.items()}
        expanded = expand_scenario(f"{self.benchmark.name}/{scenario.key}", scenario.version, scenario.template,
                                   options, scenario.qualified_actor, list(spec.dyads), names)
        for q in {q.key: q for q in expanded}.values():
            question = Question(key=q.key, benchmark_id=scenario.benchmark_id, kind=Question.Kind.CHOICE, text=q.text,
                                options=[{"text": t, "category": c} for t, c in zip(q.options, q.categories)],
                                option_order=list(q.option_order), choice_count=q.choice_count,
                                is_current=scenario.is_current)
            yield question, dict(scenario=scenario, variant=q.variant, domain_id=scenario.domain_id,
                                 actor_a=actors[q.actor_a], actor_b=actors[q.actor_b],
                                 qualified_actor=actors[q.qualified_actor])
