"""What a panel's page shows analysts: how many came, finished and were excluded, each
question's answers, and how close each model stands to the panel on the questions both
answered (1 − Jensen–Shannon distance, analysis_app.metrics.alignment). People's answers
are read from this room's table only; a model's from the run engine's, never mixed."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass

from analysis_app.metrics import alignment as metrics
from benchmarks_app import families
from benchmarks_app.lettering import option_letters
from benchmarks_app.models import Question
from runs_app.models import Response

from .models import Panel, PanelAnswer, Respondent


@dataclass(frozen=True)
class QuestionRow:
    question: Question
    answers: int
    counts: list[tuple[str, str, int]]  # (canonical letter, option text, count)


@dataclass(frozen=True)
class ModelRow:
    model: str
    similarity: float | None
    ci_low: float | None
    ci_high: float | None
    n_questions: int


@dataclass(frozen=True)
class PanelResults:
    links: int
    withdrawn: int
    consented: int
    finished: int
    excluded: int
    kept_answers: int
    questions: list[QuestionRow]
    models: list[ModelRow]
    ceiling: float | None


def kept_answers(panel: Panel):
    """The panel's answers to its questions that count: answered, by respondents who failed
    no attention check."""
    return PanelAnswer.objects.filter(respondent__panel=panel, question__isnull=False, answered_at__isnull=False,
                                      respondent__failed_checks=0)


def people_by_question(panel: Panel) -> dict[int, dict[int, str]]:
    """{question id: {respondent id: canonical letter}} of the answers kept."""
    found: dict[int, dict[int, str]] = defaultdict(dict)
    for qid, rid, code in kept_answers(panel).values_list("question_id", "respondent_id", "code"):
        found[qid][rid] = code
    return dict(found)


def models_by_question(question_ids) -> dict[str, dict[int, list[str]]]:
    """{model name: {question id: codes over its repeats}}: the models' coded answers."""
    found: dict[str, dict[int, list[str]]] = defaultdict(lambda: defaultdict(list))
    rows = (Response.objects.filter(question_id__in=question_ids, status=Response.Status.DONE).exclude(code="")
            .values_list("model__name", "question_id", "code"))
    for name, qid, code in rows:
        found[name][qid].append(code)
    return found


def panel_results(panel: Panel) -> PanelResults:
    respondents = Respondent.objects.filter(panel=panel)
    questions = list(Question.objects.filter(pk__in=panel.panel_questions.values("question_id")).order_by("key"))
    people = people_by_question(panel)
    options = {q.pk: option_letters(len(q.options)) for q in questions}
    rows = []
    for question in questions:
        counted = Counter(people.get(question.pk, {}).values())
        texts = question.option_texts()
        rows.append(QuestionRow(question, sum(counted.values()),
                                [(letter, texts[i], counted.get(letter, 0)) for i, letter in
                                 enumerate(options[question.pk])]))
    family = families.family(panel.benchmark.family)
    cluster_of = family.balance_groups(list(options)) if family.balance_groups else {}
    panel_answers = {qid: list(by.values()) for qid, by in people.items()}
    model_rows = []
    for name, answered in sorted(models_by_question(list(options)).items()):
        found = metrics.alignment(answered, panel_answers, options, cluster_of=cluster_of, seed=panel.seed)
        model_rows.append(ModelRow(name, found.similarity, found.ci_low, found.ci_high, found.n_questions))
    model_rows.sort(key=lambda row: (row.similarity is None, -(row.similarity or 0), row.model))
    return PanelResults(
        links=respondents.count(),
        withdrawn=respondents.filter(withdrawn_at__isnull=False).count(),
        consented=respondents.filter(consented_at__isnull=False).count(),
        finished=respondents.filter(finished_at__isnull=False).count(),
        excluded=respondents.filter(failed_checks__gt=0).count(),
        kept_answers=sum(row.answers for row in rows),
        questions=rows,
        models=model_rows,
        ceiling=metrics.ceiling(people, options, seed=panel.seed) if people else None,
    )
