"""Coding a large import (issue 32): `encode_answers` on many fresh answers at once (the
import's slices) writes exactly what the rules for one answer write, review items'
explanations and suspended rules included, and an import whose coding fails writes nothing."""

import pytest

from encoding_app import receivers, services
from encoding_app.models import Code, ReviewTask, RuleStatus
from runs_app import services as run_services
from runs_app.models import Response, Run
from tests.encoding_app.test_encoding_batches import new_answers, one_by_one, state
from tests.encoding_app.test_encoding_services import policy, questions  # noqa: F401 — fixtures

pytestmark = pytest.mark.django_db


def explanations(ids):
    return sorted(ReviewTask.objects.filter(response_id__in=ids).values_list("response_id", "purpose", "explanation"))


def full_state(ids):
    return state(ids), explanations(ids)


def uncode(ids):
    """Back to freshly imported: no code, no review item."""
    ReviewTask.objects.filter(response_id__in=ids).delete()
    Code.objects.filter(response_id__in=ids).delete()
    Response.objects.filter(pk__in=ids).update(code="", code_source="")


def test_a_batch_under_a_suspended_rule_is_coded_as_each_answer_alone(questions, policy):
    ids = new_answers(questions)
    services.encode_answers(ids)
    rules = set(Code.objects.filter(response_id__in=ids, source="auto").values_list("rule", flat=True))
    suspended = sorted(rules)[0]
    RuleStatus.objects.create(rule=suspended, audited=40, correct=10, suspended=True)
    uncode(ids)
    expected = one_by_one(ids)
    assert any(reason == "rule-suspended" for *_, reason, _ in expected[2])
    services.encode_answers(ids)
    assert state(ids) == expected


def test_review_items_carry_the_same_explanation_either_way(questions, policy):
    ids = new_answers(questions)
    for pk in ids:
        services._code_one(pk)
    alone = full_state(ids)
    uncode(ids)
    services.encode_answers(ids)
    assert full_state(ids) == alone
    assert any("recognised" in text or "merit" in text or "hedges" in text for *_, text in alone[1])


def answers_csv(questions, rows=24):
    outputs = ["A", "I would choose option B because it avoids escalation.", "Both A and C have merit; it depends.",
               "", "I cannot answer questions about this conflict.", "C) the third"]
    lines = ["question_key,model,repeat,output"]
    for n in range(rows):
        lines.append(f"{questions[n % len(questions)].key},outside,{n // len(questions)},\"{outputs[n % len(outputs)]}\"")
    return "\n".join(lines) + "\n"


def test_an_import_coded_a_few_answers_at_a_time_is_coded_as_each_answer_alone(questions, policy, monkeypatch,
                                                                                  tmp_path):
    monkeypatch.setattr(receivers, "IMPORT_SLICE", 5)  # 24 answers: five slices, the last of four
    path = tmp_path / "answers.csv"
    path.write_text(answers_csv(questions), encoding="utf-8")
    result = run_services.import_response_file(path)
    assert result.created == 24 and not result.problems
    ids = list(Response.objects.filter(run=result.run).values_list("pk", flat=True))
    imported = full_state(ids)
    sources = {source for _, _, source in imported[0][0]}
    assert sources == {"auto", "unresolved", "missing"}  # "" is missing; the hedge goes to a reviewer
    uncode(ids)
    for pk in ids:
        services._code_one(pk)
    assert full_state(ids) == imported


def test_an_import_whose_coding_fails_in_a_later_slice_writes_nothing(questions, policy, monkeypatch, tmp_path):
    monkeypatch.setattr(receivers, "IMPORT_SLICE", 5)
    calls = []
    original = services.encode_answers

    def fail_on_the_third(ids, *args, **kwargs):
        calls.append(len(ids))
        if len(calls) == 3:
            raise RuntimeError("the database went away")
        return original(ids, *args, **kwargs)

    monkeypatch.setattr(services, "encode_answers", fail_on_the_third)
    path = tmp_path / "answers.csv"
    path.write_text(answers_csv(questions), encoding="utf-8")
    runs_before = Run.objects.count()
    with pytest.raises(RuntimeError):
        run_services.import_response_file(path)
    assert calls == [5, 5, 5]  # two slices were coded before the failure …
    # … and nothing of the import is left: no run, no answers, no codes, no review items.
    assert Run.objects.count() == runs_before
    assert not Response.objects.filter(model__name="outside").exists()
    assert not Code.objects.exists() and not ReviewTask.objects.exists()
