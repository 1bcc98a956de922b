"""Inconsistency scores of sampled answers: find the groups of finished runs that a
scorer has not scored yet, score them, store one `GroupScore` per group and scorer.

A group is the done responses of one (run, model, question, condition) with a non-empty
answer, ordered by repeat; its pairs are i < j row-major. A group of fewer than 2
samples is skipped and counted as "too few samples".

- Free-text variants are scored with a BERTScore scorer on each answer's scored section
  (the simulation's ``scored_section`` up to ``section_end``); an answer without that
  section is scored whole and counted in ``sections_missing``.
- Ranked variants are always scored with ``kendall``: each answer's ranking is read with
  ``authoring.read_ranking``; an answer whose ranking cannot be read is left out of the
  group (not in ``response_ids``) and counted in ``sections_missing``.

Only runs that are done or cancelled are scored: a queued, running or paused run still
has units to come, and a group scored early would keep its partial score. Imported runs
(done when imported) are scored like any other: their answers are real answers.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Iterable

from django.db import transaction

from benchmarks_app.models import Benchmark
from runs_app.models import Response, Run

from . import authoring, scorers
from .family import NAME as FAMILY
from .group_scoring import score_ranking_group, score_text_groups
from .models import GroupScore, Simulation, Variant
from .scorers import LoadedScorer
from .sections import SectionSpec, scored_text

FINISHED = (Run.Status.DONE, Run.Status.CANCELLED)


class ScoringError(Exception):
    """Runs or a benchmark that cannot be scored; the message names them."""


@dataclass
class ScorerCounts:
    scored: int = 0
    already_scored: int = 0
    too_few_samples: int = 0
    sections_missing: int = 0


@dataclass
class ScoringSummary:
    by_scorer: dict[str, ScorerCounts] = field(default_factory=dict)
    unfinished_runs: list[int] = field(default_factory=list)

    def counts(self, name) -> ScorerCounts:
        return self.by_scorer.setdefault(name, ScorerCounts())


@dataclass
class Group:
    run_id: int
    model_id: int
    question_id: int
    condition_id: int
    simulation_id: int
    response_ids: list[int]

    @property
    def key(self):
        return (self.run_id, self.model_id, self.question_id, self.condition_id)


def freeform_runs(run_ids: Iterable[int] | None = None, benchmark_name: str | None = None) -> list[Run]:
    """The runs to score: the given ones, a benchmark's, or every free-form run. Unknown
    or non-free-form runs and benchmarks raise `ScoringError` naming them."""
    runs = Run.objects.select_related("benchmark").order_by("pk")
    if benchmark_name:
        benchmark = Benchmark.objects.filter(name=benchmark_name).first()
        if benchmark is None:
            raise ScoringError(f"no benchmark {benchmark_name}")
        if benchmark.family != FAMILY:
            raise ScoringError(f"benchmark {benchmark_name} is a {benchmark.get_family_display()} benchmark, "
                               "not a free-form one: only free-form answers are scored for inconsistency")
        runs = runs.filter(benchmark=benchmark)
    else:
        runs = runs.filter(benchmark__family=FAMILY)
    if run_ids:
        from runs_app.services import unknown_runs_and_models

        run_ids = list(run_ids)
        unknown = unknown_runs_and_models(run_ids, [])
        if unknown:
            raise ScoringError(unknown)
        others = Run.objects.filter(pk__in=run_ids).exclude(pk__in=runs.values("pk")).select_related("benchmark")
        if others:
            what = f"not runs of benchmark {benchmark_name}" if benchmark_name else "not free-form runs"
            raise ScoringError(f"{what}: " + ", ".join(f"run {r.pk} ({r.benchmark.name})" for r in others))
        runs = runs.filter(pk__in=run_ids)
    return list(runs)


def _groups(runs: list[Run], answer_kind: str) -> list[Group]:
    """Every group of these runs' done, non-empty answers to questions of ``answer_kind``
    variants, samples in repeat order."""
    rows = (Response.objects.filter(run__in=runs, status=Response.Status.DONE, raw_output__regex=r"\S",
                                    question__crisis__variant__answer_kind=answer_kind)
            .order_by("run_id", "model_id", "question_id", "condition_id", "repeat", "id")
            .values_list("id", "run_id", "model_id", "question_id", "condition_id",
                         "question__crisis__variant__simulation_id"))
    groups: dict[tuple, Group] = {}
    for response_id, run_id, model_id, question_id, condition_id, simulation_id in rows.iterator():
        key = (run_id, model_id, question_id, condition_id)
        if key not in groups:
            groups[key] = Group(run_id, model_id, question_id, condition_id, simulation_id, [])
        groups[key].response_ids.append(response_id)
    return list(groups.values())


def _store(scores: list[GroupScore]):
    # A group another worker scored meanwhile keeps its row (the unique constraint).
    with transaction.atomic():
        GroupScore.objects.bulk_create(scores, ignore_conflicts=True)


def _score_row(group: Group, scorer_row, response_ids, values) -> GroupScore:
    return GroupScore(run_id=group.run_id, model_id=group.model_id, question_id=group.question_id,
                      condition_id=group.condition_id, scorer=scorer_row, n_samples=len(response_ids),
                      n_pairs=len(values.pair_values), mean=values.mean, pair_values=values.pair_values,
                      response_ids=list(response_ids))


def _pending(groups: list[Group], scorer_row, counts: ScorerCounts) -> list[Group]:
    """Groups not yet scored by this scorer and with at least 2 samples (counted)."""
    runs = {g.run_id for g in groups}
    done = set(GroupScore.objects.filter(scorer=scorer_row, run_id__in=runs)
               .values_list("run_id", "model_id", "question_id", "condition_id"))
    pending = []
    for group in groups:
        if group.key in done:
            counts.already_scored += 1
        elif len(group.response_ids) < 2:
            counts.too_few_samples += 1
        else:
            pending.append(group)
    return pending


def _answers(groups: list[Group]) -> dict[int, str]:
    ids = [i for g in groups for i in g.response_ids]
    return dict(Response.objects.filter(pk__in=ids).values_list("id", "raw_output"))


def _score_free(groups, loaded: LoadedScorer, counts: ScorerCounts, progress):
    scorer_row = scorers.stored_scorer(loaded)
    pending = _pending(groups, scorer_row, counts)
    progress(len(groups) - len(pending))
    specs = {s.pk: SectionSpec(s.scored_section, s.section_end)
             for s in Simulation.objects.filter(pk__in={g.simulation_id for g in pending})}
    step = loaded.groups_per_call
    for start in range(0, len(pending), step):
        batch = pending[start : start + step]
        answers = _answers(batch)
        texts, missing = [], []
        for group in batch:
            scored = [scored_text(answers[i], specs[group.simulation_id]) for i in group.response_ids]
            texts.append([s.text for s in scored])
            missing.append(sum(not s.section_found for s in scored))
        values = score_text_groups(texts, loaded.pair_scorer, groups_per_call=step)
        rows = []
        for group, group_values, group_missing in zip(batch, values, missing):
            row = _score_row(group, scorer_row, group.response_ids, group_values)
            row.sections_missing = group_missing
            rows.append(row)
            counts.sections_missing += group_missing
        _store(rows)
        counts.scored += len(rows)
        progress(len(batch))


def _score_ranked(groups, counts: ScorerCounts, progress):
    scorer_row = scorers.stored_scorer(scorers.kendall())
    pending = _pending(groups, scorer_row, counts)
    progress(len(groups) - len(pending))
    n_options = {s.pk: len(s.ranked_options or [])
                 for s in Simulation.objects.filter(pk__in={g.simulation_id for g in pending})}
    answers = _answers(pending)
    rows = []
    for group in pending:
        n = n_options[group.simulation_id]
        readable = []
        for response_id in group.response_ids:
            ranking = authoring.read_ranking(answers[response_id], n) if n >= 2 else None
            if ranking is not None:
                readable.append((response_id, ranking))
        unreadable = len(group.response_ids) - len(readable)
        counts.sections_missing += unreadable
        if len(readable) < 2:
            counts.too_few_samples += 1
        else:
            row = _score_row(group, scorer_row, [i for i, _ in readable],
                             score_ranking_group([r for _, r in readable]))
            row.sections_missing = unreadable
            rows.append(row)
        progress(1)
    _store(rows)
    counts.scored += len(rows)


def score_runs(runs: list[Run], scorer: LoadedScorer,
               progress: Callable[[int, int], None] | None = None) -> ScoringSummary:
    """Score every group of ``runs`` not yet scored: free-text variants with ``scorer``
    (when it is a BERTScore scorer), ranked variants with ``kendall``. ``progress(done,
    total)`` is called as groups are scored."""
    summary = ScoringSummary()
    finished = [r for r in runs if r.status in FINISHED]
    summary.unfinished_runs = [r.pk for r in runs if r.status not in FINISHED]
    free = _groups(finished, Variant.AnswerKind.FREE) if scorer.pair_scorer is not None else []
    ranked = _groups(finished, Variant.AnswerKind.RANKED)
    total = len(free) + len(ranked)
    done = Counter()

    def advance(count):
        done["groups"] += count
        if progress is not None and count:
            progress(done["groups"], total)

    if free:
        _score_free(free, scorer, summary.counts(scorer.name), advance)
    if ranked:
        _score_ranked(ranked, summary.counts(scorers.KENDALL), advance)
    return summary


def score_run(run_id: int) -> ScoringSummary:
    """What a finished run's task does: score it with the automatic scorer
    (`scorers.automatic`, settings.CFPD_INCONSISTENCY_SCORER) and kendall for ranked variants."""
    runs = list(Run.objects.filter(pk=run_id, benchmark__family=FAMILY))
    if not runs:
        return ScoringSummary()
    free_answers = Response.objects.filter(run_id=run_id, status=Response.Status.DONE,
                                           question__crisis__variant__answer_kind=Variant.AnswerKind.FREE)
    # The encoder loads only for runs with free-text answers (ranked ones need none).
    scorer = scorers.load(scorers.automatic()) if free_answers.exists() else scorers.kendall()
    return score_runs(runs, scorer)
