"""Coding answers through the service: on arrival, reviewers' leases, second coding,
adjudication, undo, skip, re-encoding and export."""

import csv
import io
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from accounts.services import create_user_with_role
from encoding_app import audits, reports, services
from encoding_app.models import Code, CodingPolicy, ReviewTask, RuleStatus
from runs_app.models import LLMModel, Response, Run
from runs_app.signals import responses_answered
from scenarios_app import services as authoring
from scenarios_app.models import Benchmark
from tests.factories import three_option_spec

pytestmark = pytest.mark.django_db


@pytest.fixture
def questions():
    benchmark = Benchmark.objects.create(name="t")
    authoring.save_spec(benchmark, three_option_spec(dyads=[("CN", "JP"), ("US", "CU"), ("RU", "GB")]))
    return list(benchmark.questions.filter(cfpd__variant="full").order_by("key"))


@pytest.fixture
def policy():
    policy = CodingPolicy.current()
    policy.double_coding_share = 0
    policy.audit_share = 0
    policy.save()
    return policy


def reviewer(name):
    user, _ = create_user_with_role(name, "persona-pass-123", role="reviewers")
    return user


def answer(question, output="", letter="", status="done", order=None, model_name="gen", repeat=0, run=None):
    model, _ = LLMModel.objects.get_or_create(name=model_name, defaults={"litellm_model": "openai/x"})
    run = run or Run.objects.create(benchmark=question.benchmark)
    response = Response.objects.create(run=run, question=question, model=model, repeat=repeat, status=status,
                                       raw_output=output, chosen_letter=letter,
                                       option_order=order if order is not None else [0, 1, 2])
    responses_answered.send(sender=Response, response_ids=[response.pk])
    response.refresh_from_db()
    return response


def current(response):
    return response.codes.filter(is_current=True).first()


# ------------------------------------------------------------------ encoding on arrival

def test_a_choice_mode_answer_is_coded_from_its_letter_mapped_to_the_authors_order(questions, policy):
    # Options shown as C, A, B (order [2, 0, 1]): the model's letter B is the author's A.
    response = answer(questions[0], letter="B", order=[2, 0, 1])
    code = current(response)
    assert (code.code, code.presented_letter, code.source, code.rule) == ("A", "B", "choice", "logprobs")
    assert (response.code, response.code_source) == ("A", "choice")


def test_a_generated_answer_is_coded_by_the_rule_that_fired(questions, policy):
    response = answer(questions[0], output="**C**: announce drills", order=[1, 2, 0])
    code = current(response)
    # Shown C is the author's option 1 (A).
    assert (code.code, code.presented_letter, code.source, code.rule) == ("A", "C", "auto", "leading-letter")
    assert not ReviewTask.objects.filter(response=response).exists()


def test_an_unresolved_answer_joins_the_reviewers_queue_with_the_encoders_reason(questions, policy):
    response = answer(questions[0], output="I would choose A, or perhaps B.")
    assert response.code == "" and not response.codes.exists()
    task = ReviewTask.objects.get(response=response)
    assert (task.purpose, task.status, task.reason) == ("primary", "open", "hedge")


def test_failed_calls_and_empty_answers_are_missing_never_refusals(questions, policy):
    empty = answer(questions[0], output="   ")
    failed = answer(questions[1], status="failed")
    for response in (empty, failed):
        assert response.code == "" and not response.codes.exists()
        assert not ReviewTask.objects.filter(response=response).exists()
    rows = reports.state_counts()
    assert [(row["model"], row["missing"], row["unresolved"], row["total"]) for row in rows] == [
        ("gen", 1, 0, 1), ("gen", 1, 0, 1)]  # one per run


def test_a_sample_of_automatic_codes_goes_to_audit(questions, policy):
    policy.audit_share = 1
    policy.save()
    response = answer(questions[0], output="B")
    audit = ReviewTask.objects.get(response=response)
    assert audit.purpose == "audit" and audit.caused_by == current(response)


# ------------------------------------------------------------------ reviewers

def test_a_reviewer_codes_an_item_in_presented_letters_and_it_becomes_current(questions, policy):
    rita = reviewer("rita")
    response = answer(questions[0], output="Hmm, A or maybe C.", order=[2, 0, 1])
    task = services.next_task(rita)
    assert task.response_id == response.pk and task.leased_by == rita
    services.submit_code(task.pk, rita, "a", note="  leans to A  ")
    response.refresh_from_db()
    code = current(response)
    # Shown A is the author's option 3 (C).
    assert (code.code, code.presented_letter, code.source, code.coder, code.note) == ("C", "A", "reviewer", rita,
                                                                                      "leans to A")
    assert (response.code, response.code_source) == ("C", "reviewer")
    task.refresh_from_db()
    assert task.status == "done" and task.done_by == rita and task.leased_by is None
    assert services.next_task(rita) is None


def test_a_code_that_is_not_an_option_is_refused_and_nothing_is_written(questions, policy):
    rita = reviewer("rita")
    answer(questions[0], output="A or B")
    task = services.next_task(rita)
    with pytest.raises(services.CodingError, match="D is not one of A, B, C, R"):
        services.submit_code(task.pk, rita, "D")
    assert not Code.objects.exists()
    task.refresh_from_db()
    assert task.status == "open"


def test_two_reviewers_get_different_items_and_a_held_item_stays_with_its_holder(questions, policy):
    rita, ravi = reviewer("rita"), reviewer("ravi")
    answer(questions[0], output="A or B")
    answer(questions[1], output="A or B")
    first, second = services.next_task(rita), services.next_task(ravi)
    assert first.pk != second.pk
    assert services.next_task(rita).pk == first.pk  # a reload shows the same item
    assert services.next_task(reviewer("remy")) is None  # both held


def test_an_expired_lease_returns_the_item_to_the_queue(questions, policy):
    rita, ravi = reviewer("rita"), reviewer("ravi")
    answer(questions[0], output="A or B")
    task = services.next_task(rita)
    assert services.next_task(ravi) is None
    ReviewTask.objects.filter(pk=task.pk).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    taken = services.next_task(ravi)
    assert taken.pk == task.pk and taken.leased_by == ravi
    with pytest.raises(services.CodingError, match="ran out"):
        services.submit_code(task.pk, rita, "A")  # rita's hold is gone
    services.submit_code(task.pk, ravi, "B")
    assert Code.objects.get().coder == ravi


def test_a_skipped_item_goes_to_others_and_not_back_to_the_skipper(questions, policy):
    rita, ravi = reviewer("rita"), reviewer("ravi")
    answer(questions[0], output="A or B")
    task = services.next_task(rita)
    services.skip_task(task.pk, rita)
    assert services.next_task(rita) is None
    assert services.next_task(ravi).pk == task.pk


def test_undo_restores_no_code_and_gives_the_item_back(questions, policy):
    rita = reviewer("rita")
    response = answer(questions[0], output="A or B")
    task = services.next_task(rita)
    services.submit_code(task.pk, rita, "B")
    back = services.undo_last(rita)
    response.refresh_from_db()
    assert back.pk == task.pk and back.status == "open" and back.leased_by == rita
    assert response.code == "" and current(response) is None
    assert Code.objects.get().undone_at is not None  # kept as history
    assert services.next_task(rita).pk == task.pk
    services.submit_code(task.pk, rita, "C")
    response.refresh_from_db()
    assert response.code == "C"
    with pytest.raises(services.CodingError, match="nothing to undo"):
        services.undo_last(reviewer("ravi"))


def test_undo_of_an_adjudication_restores_the_previous_code(questions, policy):
    policy.audit_share = 1
    policy.save()
    rita, ravi = reviewer("rita"), reviewer("ravi")
    response = answer(questions[0], output="B")  # automatic B, sent to audit
    audit = services.next_task(rita)
    services.submit_code(audit.pk, rita, "C")  # disagrees: adjudication
    adjudication = services.next_task(ravi, "adjudication")
    assert adjudication.purpose == "adjudication"
    services.submit_code(adjudication.pk, ravi, "C")
    response.refresh_from_db()
    assert (response.code, response.code_source) == ("C", "adjudication")
    services.undo_last(ravi)
    response.refresh_from_db()
    assert (response.code, response.code_source) == ("B", "auto")
    assert current(response).rule == "bare-letter"


def test_second_coding_is_blind_to_another_reviewer_and_disagreement_goes_to_adjudication(questions, policy):
    policy.double_coding_share = 1
    policy.save()
    rita, ravi, remy = reviewer("rita"), reviewer("ravi"), reviewer("remy")
    response = answer(questions[0], output="A or B")
    services.submit_code(services.next_task(rita).pk, rita, "A")
    assert services.next_task(rita) is None  # never the same answer twice
    second = services.next_task(ravi)
    assert second.purpose == "second" and second.blind
    services.submit_code(second.pk, ravi, "B")
    response.refresh_from_db()
    assert response.code == "A"  # the first code stands until adjudicated
    assert services.next_task(rita, "adjudication") is None  # not their own disagreement
    adjudication = services.next_task(remy, "adjudication")
    services.submit_code(adjudication.pk, remy, "B", note="B is the stated choice")
    response.refresh_from_db()
    assert (response.code, response.code_source) == ("B", "adjudication")
    report = reports.agreement()
    assert report.units == 1 and report.overall.agree == 0 and report.overall.percent == 0


def test_an_agreeing_second_code_needs_no_adjudication(questions, policy):
    policy.double_coding_share = 1
    policy.save()
    rita, ravi = reviewer("rita"), reviewer("ravi")
    answer(questions[0], output="A or B")
    services.submit_code(services.next_task(rita).pk, rita, "A")
    services.submit_code(services.next_task(ravi).pk, ravi, "A")
    assert not ReviewTask.objects.filter(purpose="adjudication").exists()


def test_undoing_a_first_code_withdraws_the_second_coding_it_asked_for(questions, policy):
    policy.double_coding_share = 1
    policy.save()
    rita = reviewer("rita")
    answer(questions[0], output="A or B")
    services.submit_code(services.next_task(rita).pk, rita, "A")
    assert ReviewTask.objects.filter(purpose="second", status="open").count() == 1
    services.undo_last(rita)
    assert not ReviewTask.objects.filter(purpose="second", status="open").exists()


def test_filters_narrow_the_queue(questions, policy):
    rita = reviewer("rita")
    first = answer(questions[0], output="A or B", model_name="m1")
    answer(questions[1], output="A or B", model_name="m2")
    task = services.next_task(rita, filters=services.Filters(model=first.model_id))
    assert task.response_id == first.pk
    assert services.next_task(reviewer("ravi"), filters=services.Filters(run=first.run_id + 1000)) is None


# ------------------------------------------------------------------ re-encoding and export

def test_re_encoding_never_overwrites_a_reviewers_code(questions, policy):
    rita = reviewer("rita")
    response = answer(questions[0], output="A or B")
    services.submit_code(services.next_task(rita).pk, rita, "B")
    Response.objects.filter(pk=response.pk).update(raw_output="A")  # as if a rule now resolved it
    assert services.encode_answers([response.pk]) == {"kept": 1}
    response.refresh_from_db()
    assert (response.code, response.code_source) == ("B", "reviewer")


def test_re_encoding_resolves_queued_items_and_changes_nothing_twice(questions, policy):
    response = answer(questions[0], output="A or B")
    Response.objects.filter(pk=response.pk).update(raw_output="Answer: C")
    out = io.StringIO()
    call_command("encode_responses", "--run", str(response.run_id), stdout=out, stderr=io.StringIO())
    assert "automatic rule" in out.getvalue() and "encoded 1 answers" in out.getvalue()
    assert ReviewTask.objects.get(response=response).status == "withdrawn"
    assert services.encode_answers([response.pk]) == {"auto": 1}
    assert Code.objects.filter(response=response).count() == 1  # the same code is not written again


def test_export_codes_writes_codes_unresolved_and_missing(questions, policy, tmp_path):
    run = Run.objects.create(benchmark=questions[0].benchmark)
    answer(questions[0], letter="A", model_name="chooser", run=run)
    answer(questions[1], output="A or B", run=run)
    answer(questions[2], status="failed", run=run)
    path = tmp_path / "codes.csv"
    call_command("export_codes", str(path), stderr=io.StringIO())
    rows = list(csv.DictReader(path.open()))
    assert list(rows[0]) == ["question_key", "model", "repeat", "code", "source", "rule", "run", "outcome"]
    got = {(r["question_key"], r["model"]): (r["code"], r["source"], r["rule"]) for r in rows}
    assert got == {
        (questions[0].key, "chooser"): ("A", "choice", "logprobs"),
        (questions[1].key, "gen"): ("unresolved", "", ""),
        (questions[2].key, "gen"): ("missing", "", ""),
    }


def test_export_codes_history_keeps_undone_codes(questions, policy, tmp_path):
    rita = reviewer("rita")
    answer(questions[0], output="A or B")
    task = services.next_task(rita)
    services.submit_code(task.pk, rita, "B")
    services.undo_last(rita)
    services.submit_code(task.pk, rita, "C")
    path = tmp_path / "history.csv"
    call_command("export_codes", str(path), "--history", stderr=io.StringIO())
    rows = list(csv.DictReader(path.open()))
    assert [(r["code"], r["coder"], r["current"], bool(r["undone_at"])) for r in rows] == [
        ("B", "rita", "", True), ("C", "rita", "yes", False)]


def test_imported_answers_are_coded_on_import(questions, policy):
    from runs_app.services import import_responses
    text = "question_key,model,repeat,output\n" + "\n".join(
        f"{q.key},ext,0,{out}" for q, out in zip(questions, ["B", "I cannot choose between these options.", ""]))
    result = import_responses(text)
    codes = dict(result.run.responses.values_list("question__key", "code"))
    assert codes == {questions[0].key: "B", questions[1].key: "R", questions[2].key: ""}
    assert ReviewTask.objects.count() == 0


def test_an_answer_the_encoder_cannot_read_goes_to_a_reviewer_not_lost(questions, policy):
    broken = answer(questions[0], output="B", order=[0, 1, 2, 3, 4])  # an order longer than the options
    assert broken.code == "" and not broken.codes.exists()
    task = ReviewTask.objects.get(response=broken)
    assert (task.purpose, task.reason) == ("primary", "encoder-error")


# ------------------------------------------------------------------ any number of options

FIVE = ["Protest through diplomatic channels", "Impose targeted sanctions", "Blockade the ports",
        "Strike the naval base", "Offer talks without preconditions"]


def with_options(question, texts):
    """The question with more options than authoring allows today (2 to 10 are coded)."""
    question.options = [{"text": text, "category": ""} for text in texts]
    question.choice_count = len(texts)
    question.save(update_fields=["options", "choice_count"])
    return question


def test_a_five_option_answer_is_coded_in_the_authors_order(questions, policy):
    question = with_options(questions[0], FIVE)
    # Shown in the order E, D, C, B, A: the model's "B" is the author's D.
    response = answer(question, output="I would choose B: strike the naval base.", order=[4, 3, 2, 1, 0])
    code = current(response)
    assert (code.code, code.presented_letter, code.source) == ("D", "B", "auto")


def test_a_choice_mode_answer_of_five_options_keeps_every_options_probability(questions, policy):
    question = with_options(questions[0], FIVE)
    model = LLMModel.objects.create(name="chooser", litellm_model="openai/x", answer_mode="choice")
    response = Response.objects.create(run=Run.objects.create(benchmark=question.benchmark), question=question,
                                       model=model, status="done", chosen_letter="E", option_order=[0, 1, 2, 3, 4],
                                       option_logprobs={"A": -3.0, "B": -3.0, "C": -3.0, "D": -3.0, "E": -0.2})
    services.encode_answers([response.pk])
    code = current(response)
    # e^-0.2 / (4 e^-3 + e^-0.2) = 0.81873 / (0.19915 + 0.81873) = 0.80435
    assert code.code == "E" and code.confidence == pytest.approx(0.80435, abs=1e-4)


def test_a_reviewer_codes_the_fifth_option_and_a_sixth_letter_is_refused(questions, policy):
    rita = reviewer("rita")
    question = with_options(questions[0], FIVE)
    response = answer(question, output="A, B or E, hard to say.", order=[1, 0, 2, 3, 4])
    task = services.next_task(rita)
    with pytest.raises(services.CodingError, match="F is not one of A, B, C, D, E, R"):
        services.submit_code(task.pk, rita, "F")
    services.submit_code(task.pk, rita, "E")
    response.refresh_from_db()
    assert (response.code, response.code_source) == ("E", "reviewer")


def test_the_reviewers_task_carries_the_encoders_sentence_not_only_its_rule(questions, policy):
    response = answer(questions[0], output="I would choose A, or perhaps B.")
    task = ReviewTask.objects.get(response=response)
    assert task.reason == "hedge"
    assert "A" in task.explanation and "B" in task.explanation and len(task.explanation) > len(task.reason)


# ------------------------------------------------------------------ rule accuracy and suspension

def audit_answers(questions, count, reviewer_codes):
    """`count` answers read `B` by the bare-letter rule, each audited by a reviewer."""
    auditors = [reviewer(f"auditor{i}") for i in range(count)]
    for i in range(count):
        answer(questions[i % len(questions)], output="B", repeat=i)
    for auditor, code in zip(auditors, reviewer_codes):
        task = services.next_task(auditor)
        assert task.purpose == "audit"
        services.submit_code(task.pk, auditor, code)


def test_a_rule_is_suspended_once_30_audits_put_its_lower_bound_under_the_threshold(questions, policy):
    policy.audit_share = 1
    policy.save()
    audit_answers(questions, 29, ["B"] * 28 + ["C"])
    status = RuleStatus.objects.get(rule="bare-letter")
    # 28 of 29: lower bound 0.8282 < 0.97, but fewer than 30 audited answers: it still codes.
    assert (status.audited, status.correct, status.suspended) == (29, 28, False)
    assert current(answer(questions[0], output="B", repeat=99)).confidence == pytest.approx(28 / 29)
    audit_answers(questions[1:], 1, ["B"])  # the one just coded, and its audit: 29 of 30
    status.refresh_from_db()
    # 29 of 30: Wilson lower bound 0.8333 (hand-checked in tests/encoding_app/test_agreement.py) < 0.97
    assert (status.audited, status.correct, status.suspended) == (30, 29, True)
    assert status.lower == pytest.approx(0.83330, abs=1e-4)

    # Its answers now go to reviewers, and the reason says why; re-encoding sends back the
    # answers it coded before, except those a person has audited.
    RuleStatus.objects.filter(rule="bare-letter").update(suspended=False)
    unaudited = answer(questions[2], output="B", repeat=151)  # coded while the rule still coded
    RuleStatus.objects.filter(rule="bare-letter").update(suspended=True)
    assert unaudited.code == "B"
    # 32 automatic codes: 30 audited by a person (kept), this one and one whose audit is
    # still open (sent to reviewers).
    counts = services.encode_responses(Response.objects.filter(code_source="auto"))
    assert counts == {"kept": 30, "unresolved": 2}
    assert not ReviewTask.objects.filter(purpose="audit", status="open").exists()  # no audit of a code gone
    unaudited.refresh_from_db()
    assert (unaudited.code, unaudited.code_source) == ("", "unresolved")
    suspended = answer(questions[0], output="B", repeat=200)
    assert suspended.code == "" and suspended.code_source == "unresolved"
    task = ReviewTask.objects.get(response=suspended, purpose="primary")
    assert task.reason == "rule-suspended" and "suspended" in task.explanation and "bare-letter" in task.explanation
    rules = {rule.rule: rule for rule in reports.audit()}
    assert rules["bare-letter"].status.suspended and rules["bare-letter"].n == 30

    # An admin re-enables it: it codes again (the re-encoding takes the queued answer back),
    # and its suspension count starts again.
    audits.reenable_rule("bare-letter")
    status.refresh_from_db()
    assert (status.suspended, status.audited) == (False, 0) and status.counted_from is not None
    services.encode_responses(Response.objects.filter(pk=suspended.pk))
    suspended.refresh_from_db()
    assert (suspended.code, suspended.code_source) == ("B", "auto")
    assert ReviewTask.objects.get(response=suspended, purpose="primary").status == "withdrawn"
    assert answer(questions[1], output="B", repeat=201).code == "B"


def test_a_rule_whose_audits_stay_above_a_lower_threshold_keeps_coding(questions, policy):
    policy.audit_share = 1
    policy.min_rule_accuracy = 0.85
    policy.save()
    audit_answers(questions, 30, ["B"] * 30)
    status = RuleStatus.objects.get(rule="bare-letter")
    # 30 of 30: lower bound 0.8865 >= 0.85 (with the default 0.97 it would be suspended:
    # a perfect record needs about 124 audits before its lower bound reaches 0.97).
    assert (status.audited, status.suspended) == (30, False) and status.lower == pytest.approx(0.88649, abs=1e-4)
    assert answer(questions[0], output="B", repeat=300).code == "B"


def test_a_ten_option_question_asked_in_choice_mode_keeps_every_options_log_probability(questions, policy):
    from runs_app import execution
    from tests.fakes.fake_openai import FakeOpenAI

    question = with_options(questions[0], [f"Course of action number {i + 1}" for i in range(10)])
    with FakeOpenAI(seed=1) as fake:
        model = LLMModel.objects.create(name="chooser10", litellm_model="openai/fake", api_base=fake.base_url,
                                        answer_mode="choice", timeout_seconds=5)
        order = [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]
        response = Response.objects.create(run=Run.objects.create(benchmark=question.benchmark), question=question,
                                           model=model, option_order=order)
        assert execution.execute(response.pk).action == "done"
    response.refresh_from_db()
    assert "J: Course of action number 1" in response.messages[1]["content"]
    assert set(response.option_logprobs) == set("ABCDEFGHIJ")
    assert all(value is not None for value in response.option_logprobs.values())
    code = current(response)
    assert code.source == "choice" and code.code == "ABCDEFGHIJ"[order["ABCDEFGHIJ".index(response.chosen_letter)]]
    # The fake gives the chosen letter 0.6 and the nine others 0.35 / 9 each: 0.6 / 0.95 = 0.6316.
    assert code.confidence == pytest.approx(0.6 / 0.95, abs=1e-4)


def test_a_choice_with_another_option_kept_open_goes_to_a_reviewer(questions, policy):
    response = answer(questions[0], output="I lean towards C but would also consider A.")
    task = ReviewTask.objects.get(response=response)
    assert response.code == "" and task.reason == "hedge"
    assert task.explanation.startswith("The answer chooses C but would also consider A")
