"""People's answers in the answers list (issue 40), through the neutral hook
(`analysis_app.people`): a section of the page counting, for the questions of the answers
shown, each panel of people's answers (a row each, labelled as people), and the CSV's rows
of people's answers beside the models' with a `source` column. People's answers are never
rows of the models' list, nor counted in it."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass

from analysis_app import people
from benchmarks_app.models import Question

from . import grid

SHOW, HIDE = "show", "hide"
MAX_QUESTIONS = 5_000  # the CSV's people rows: to the questions of at most this many of the exported answers


@dataclass
class PeopleRow:
    label: str  # "People: <panel> (<n> respondents)"
    stands_for: str
    question: str
    question_id: int
    cell: grid.Cell  # counts per code, the top one and its share, as the grid's


def _kept(question_ids, codes) -> tuple[dict, list]:
    groups = {g.key: g for g in people.groups()}
    answered = [a for a in people.answers(question_ids, list(groups)) if not codes or a.code in codes]
    return groups, answered


def summary(question_ids, codes=()) -> list[PeopleRow]:
    """Each panel of people's answers to these questions: one row per (panel, question)."""
    ids = sorted(set(question_ids))
    if not ids:
        return []
    groups, answered = _kept(ids, codes)
    counted: dict[tuple[str, int], Counter] = defaultdict(Counter)
    for a in answered:
        counted[(a.group, a.question_id)][a.code] += 1
    keys = dict(Question.objects.filter(pk__in=ids).values_list("pk", "key"))
    rows = []
    for (group, question), counts in counted.items():
        cell = grid.Cell(n=sum(counts.values()), counts=counts)
        rows.append(PeopleRow(groups[group].label, groups[group].stands_for, keys[question], question, cell))
    return sorted(rows, key=lambda row: (row.question, row.label))


def csv_rows(question_ids, codes=()):
    """People's kept answers to these questions as the answers CSV's rows (`source` people,
    `model` the panel's label, `respondent` its number in this room; no run, condition,
    repeat or output)."""
    ids = sorted(set(question_ids))[:MAX_QUESTIONS]
    if not ids:
        return
    groups, answered = _kept(ids, codes)
    questions = {q.pk: q for q in Question.objects.filter(pk__in=ids).select_related("benchmark").only(
        "key", "benchmark__name")}
    for a in sorted(answered, key=lambda a: (questions[a.question_id].key, groups[a.group].label, a.respondent)):
        question = questions[a.question_id]
        yield {"source": people.SOURCE, "id": "", "run": "", "benchmark": question.benchmark.name,
               "question": question.key, "model": groups[a.group].label, "condition": "", "repeat": "",
               "status": "done", "code": a.code, "code_source": "people", "chosen_letter": "", "latency_ms": "",
               "cost": "", "cache_hit": "", "error_kind": "", "answered_at": "", "output": "",
               "respondent": a.respondent}
