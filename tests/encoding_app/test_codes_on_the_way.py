"""Answers read from their chosen letter are coded on their way to the database (issue 45:
`runs_app.signals.answers_writing`, `encoding_app.services.code_chosen_letters`): the
engine's one statement writes their code, and their `Code` rows are the ones coding them
after the write gave."""

import pytest

from encoding_app import receivers
from encoding_app.models import Code
from runs_app import batch_execution
from runs_app.signals import answers_writing
from tests.runs_app.test_execution import answers_announced, benchmark, fake, launch, model  # noqa: F401 — fixtures

pytestmark = pytest.mark.django_db


def codes(run):
    """Each answer's code as the dashboards read it (row and current Code), by question."""
    rows = run.responses.order_by("question_id")
    return [(r.question_id, r.code, r.code_source,
             list(Code.objects.filter(response=r).values_list("code", "presented_letter", "source", "rule",
                                                             "confidence", "is_current")))
            for r in rows]


def ask(run):
    ids = list(run.responses.order_by("pk").values_list("pk", flat=True))
    return [outcome.action for _, outcome in sorted(batch_execution.execute_batch(ids))]


def test_answers_coded_on_the_way_are_coded_as_after_the_write(benchmark, fake, monkeypatch):
    chooser = model(fake)
    after = launch(benchmark, [chooser], monkeypatch, permute_options=True, use_cache=False)
    answers_writing.disconnect(dispatch_uid="code-on-the-way")
    try:
        assert ask(after) == ["done"] * 4  # coded after the write only (`encode_answers`)
    finally:
        answers_writing.connect(receivers.code_on_the_way, dispatch_uid="code-on-the-way")
    on_the_way = launch(benchmark, [chooser], monkeypatch, permute_options=True, use_cache=False)
    announced = []
    monkeypatch.setattr(receivers, "_encode_or_queue", lambda ids, questions=None: announced.extend(ids))
    assert ask(on_the_way) == ["done"] * 4
    assert announced == []  # nothing left to code after the write
    assert codes(on_the_way) == codes(after)
    assert all(code and source == "choice" and len(rows) == 1 for _, code, source, rows in codes(on_the_way))


def test_answers_without_a_letter_are_coded_after_the_write(benchmark, fake, monkeypatch):
    run = launch(benchmark, [model(fake, answer_mode="generate", max_tokens=30)], monkeypatch)
    with answers_announced() as written:
        actions = ask(run)
    assert set(actions) == {"done"} and len(written) == len(actions)
    # The automatic encoder read each answer's text: source "auto", none "choice".
    assert {source for _, _, source, _ in codes(run)} == {"auto"}


def test_codes_that_cannot_be_written_come_off_and_the_answers_are_coded_after_the_write(benchmark, fake,
                                                                                          monkeypatch):
    real, calls = Code.objects.bulk_create, []

    def failing_once(objs, *args, **kwargs):
        calls.append(len(objs))
        if len(calls) == 1:  # the codes on the way: the insert fails
            raise RuntimeError("the codes' insert failed")
        return real(objs, *args, **kwargs)  # coding after the write inserts them

    monkeypatch.setattr(Code.objects, "bulk_create", failing_once)
    run = launch(benchmark, [model(fake)], monkeypatch, use_cache=False)
    assert ask(run) == ["done"] * 4  # the answers stand
    assert calls == [4, 4]
    # Coded after the write instead: one current Code each, the row's code its code.
    assert all(code and source == "choice" and len(rows) == 1 and rows[0][0] == code
               for _, code, source, rows in codes(run))
