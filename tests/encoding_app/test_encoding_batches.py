"""Coding a batch of new answers together (`encode_answers`, its few statements for the
whole batch) gives exactly what the rules for one answer (`_code_one`, each answer
alone) give: codes, states, review and audit items."""

import pytest
from django.db import transaction

from encoding_app import services
from encoding_app.models import Code, ReviewTask, RuleStatus
from runs_app.models import LLMModel, Response, Run
from tests.encoding_app.test_encoding_services import policy, questions, reviewer  # noqa: F401 — fixtures

pytestmark = pytest.mark.django_db

OUTPUTS = [
    ("", "B"),  # a choice-mode answer: its letter
    ("", "C"),
    ("A", ""),  # a generated letter
    ("I would choose option B because it avoids escalation.", ""),
    ("I cannot answer questions about this conflict.", ""),  # a refusal
    ("Both A and C have merit; it depends.", ""),  # unresolved: to a reviewer
    ("", ""),  # empty: missing
    ("C) the third", ""),
]


def new_answers(questions):
    model, _ = LLMModel.objects.get_or_create(name="gen", defaults={"litellm_model": "openai/x"})
    run = Run.objects.create(benchmark=questions[0].benchmark)
    rows = []
    for index, (output, letter) in enumerate(OUTPUTS * 3):
        question = questions[index % len(questions)]
        order = [[0, 1, 2], [2, 0, 1], [1, 2, 0]][index % 3]
        rows.append(Response.objects.create(
            run=run, question=question, model=model, repeat=index, status="failed" if index == 20 else "done",
            raw_output=output, chosen_letter=letter, option_order=order,
            option_logprobs={"A": -2.0, "B": -0.5, "C": -1.5} if letter else None))
    return [r.pk for r in rows]


def state(ids):
    return (
        sorted(Response.objects.filter(pk__in=ids).values_list("pk", "code", "code_source")),
        sorted(Code.objects.filter(response_id__in=ids).values_list(
            "response_id", "code", "presented_letter", "source", "rule", "confidence", "is_current")),
        sorted(ReviewTask.objects.filter(response_id__in=ids).values_list(
            "response_id", "purpose", "status", "reason", "caused_by__code")),
    )


class Rollback(Exception):
    pass


def one_by_one(ids):
    """What the rules for one answer write, answer by answer, then undone."""
    try:
        with transaction.atomic():
            for pk in ids:
                services._code_one(pk)
            found = state(ids)
            raise Rollback
    except Rollback:
        return found


@pytest.mark.parametrize("audit_share", [0.0, 0.5, 1.0])
def test_a_batch_is_coded_exactly_as_each_answer_alone(questions, audit_share):
    policy = services.CodingPolicy.current()
    policy.audit_share, policy.double_coding_share = audit_share, 0
    policy.save()
    ids = new_answers(questions)
    rules = {rule for _, _, _, source, rule, _, _ in one_by_one(ids)[1] if source == "auto"}
    for rule in rules:  # audited rules: their codes carry the rule's accuracy as confidence
        RuleStatus.objects.create(rule=rule, audited=40, correct=38)
    expected = one_by_one(ids)
    assert state(ids) != expected  # nothing was left written
    services.encode_answers(ids)
    assert state(ids) == expected
    codes, _, tasks = expected
    assert {source for _, _, source in codes} >= {"choice", "auto", "unresolved", "missing"}
    assert rules and all(confidence is not None for *_, confidence, _ in expected[1])
    assert any(purpose == "audit" for _, purpose, *_ in tasks) == (audit_share > 0)


def test_answers_already_coded_or_queued_go_through_the_one_by_one_path(questions, policy):
    ids = new_answers(questions)
    services.encode_answers(ids)
    ann = reviewer("ann")
    task = services.next_task(ann)
    assert task.response.code_source == "unresolved"
    services.submit_code(task.pk, ann, "A")
    before = state(ids)
    counts = services.encode_answers(ids)  # again: every code stands, nothing is doubled
    assert state(ids) == before
    assert counts["kept"] == 1 and "choice" in counts
