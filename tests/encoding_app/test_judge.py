"""Judge-assisted coding through the run engine, with a fake OpenAI-compatible server as
the judge: its readings are suggestions to reviewers until it is promoted (refused under
100 answers compared with people's codes), then codes of source `judge`; demotion gives
the answers back to the reviewers. Also the judge's prompt and the reading of its verdict."""

import pytest
from django.core.management import call_command
from django.urls import reverse

from accounts.services import create_user_with_role
from scenarios_app.analysis.tidy_query import AnalysisFilter, latest_launches
from encoding_app import audits, judges, reports, services
from encoding_app.judge_prompt import JUDGE_SYSTEM_PROMPT, judge_messages, read_verdict
from encoding_app.models import Code, CodingPolicy, Judge, JudgeRequest, ReviewTask
from encoding_app.views import item_payload
from runs_app import execution, queueing
from runs_app.models import LLMModel, Response, Run
from runs_app.signals import responses_answered
from scenarios_app import services as authoring
from scenarios_app.models import Benchmark
from tests.conftest import PASSWORD
from tests.factories import three_option_spec
from tests.fakes.fake_openai import FakeOpenAI

pytestmark = pytest.mark.django_db

OPTIONS = ["Protest through diplomatic channels", "Blockade the ports", "Announce live-fire drills"]


# ------------------------------------------------------------------ the prompt and the verdict (pure)

def test_the_judge_prompt_shows_the_options_as_the_model_saw_them_and_the_answer():
    messages = judge_messages("How should X respond?", [("A", "Blockade"), ("B", "Protest")], "Hmm, A or B.")
    assert messages[0] == {"role": "system", "content": JUDGE_SYSTEM_PROMPT}
    user = messages[1]["content"]
    assert "A: Blockade\nB: Protest" in user and "Hmm, A or B." in user and "unresolved" in user


@pytest.mark.parametrize("output, code", [
    ("B", "B"), ("**C**", "C"), ("Answer: A", "A"), ("R", "R"), ("  R.", "R"),
    ("unresolved", None), ("I cannot tell.", None), ("A or B", None), ("", None),
    ("I cannot judge this answer.", None),  # the judge declining is not the answer refusing
])
def test_the_judges_verdict_is_read_without_guessing(output, code):
    assert read_verdict(output, OPTIONS).code == code


# ------------------------------------------------------------------ through the engine

@pytest.fixture
def fake():
    with FakeOpenAI(seed=1) as server:
        yield server


@pytest.fixture
def setup(monkeypatch):
    """A run of 102 answers the encoder leaves unresolved (34 questions' worth of repeats
    of 3 questions), and a policy without sampling."""
    CodingPolicy.objects.update_or_create(pk=1, defaults={"double_coding_share": 0, "audit_share": 0})
    monkeypatch.setattr(queueing, "enqueue", lambda ids: None)
    monkeypatch.setattr(queueing, "schedule_sweep", lambda run_id: None)
    benchmark = Benchmark.objects.create(name="judged")
    authoring.save_spec(benchmark, three_option_spec(dyads=[("CN", "JP"), ("US", "CU"), ("RU", "GB")]))
    questions = list(benchmark.questions.filter(cfpd__variant="full").order_by("key"))
    writer = LLMModel.objects.create(name="writer", litellm_model="openai/x")
    run = Run.objects.create(benchmark=benchmark)
    return run, questions, writer


def unresolved_answers(run, questions, writer, count, start=0):
    made = []
    for i in range(start, start + count):
        response = Response.objects.create(run=run, question=questions[i % 3], model=writer, repeat=i // 3,
                                           status="done", raw_output="Option A or B, both have merit.",
                                           option_order=[0, 1, 2])
        responses_answered.send(sender=Response, response_ids=[response.pk])
        made.append(response)
    return made


def judge_model(fake):
    return LLMModel.objects.create(name="fake-judge", litellm_model="openai/fake", api_base=fake.base_url,
                                   answer_mode="generate", temperature=0, max_tokens=40, timeout_seconds=5)


def execute(judge_run):
    return [execution.execute(pk).action for pk in judge_run.responses.order_by("pk").values_list("pk", flat=True)]


def reviewer(name):
    user, _ = create_user_with_role(name, PASSWORD, role="reviewers")
    return user


def test_a_judge_suggests_promotion_needs_100_compared_answers_and_demotion_gives_them_back(setup, fake):
    run, questions, writer = setup
    targets = unresolved_answers(run, questions, writer, 100)
    judge = judge_model(fake)

    judge_run = judges.request_judging(run, judge)
    assert judge_run.note == f"judge of run {run.pk}" and judge_run.benchmark == run.benchmark
    assert judge_run.responses.count() == 100 and JudgeRequest.objects.count() == 100
    assert execute(judge_run) == ["done"] * 100
    assert fake.stats()["total_requests"] == 100
    unit = judge_run.responses.first()
    assert unit.messages[0]["content"] == JUDGE_SYSTEM_PROMPT  # the unit's own prompt was sent
    assert "Option A or B, both have merit." in unit.messages[1]["content"]

    # Suggestions only: nothing is coded, every answer is still with the reviewers.
    readings = dict(JudgeRequest.objects.values_list("target_response_id", "reading"))
    assert set(readings.values()) <= set("ABC") and all(readings.values())  # the fake writes "B: I would choose…"
    assert not Code.objects.exists()
    assert Response.objects.filter(pk__in=[t.pk for t in targets], code="").count() == 100
    rita = reviewer("rita")
    task = services.next_task(rita)
    payload = item_payload(task, rita)
    assert payload["judges"] == [{"model": "fake-judge", "reading": readings[task.response_id],
                                  "text": f"Judge fake-judge suggests {readings[task.response_id]}"}]
    # The judge's units are not answers: never coded, never queued, left out of analysis.
    units = judge_run.responses.all()
    assert not ReviewTask.objects.filter(response__in=units).exists()
    assert set(units.values_list("code", "code_source")) == {("", "")}
    assert not AnalysisFilter().responses().filter(run=judge_run).exists()
    assert not reports.coded_responses().filter(run=judge_run).exists()

    # People code 99 of them (agreeing with the judge on all but one): promotion is refused.
    for n in range(99):
        task = services.next_task(rita)
        reading = readings[task.response_id]
        services.submit_code(task.pk, rita, reading if n else ("A" if reading != "A" else "B"))
    record = Judge.objects.get(model=judge)
    with pytest.raises(services.CodingError, match="99 of its readings .* at least 100"):
        judges.promote_judge(record)
    record.refresh_from_db()
    assert not record.promoted
    task = services.next_task(rita)
    services.submit_code(task.pk, rita, readings[task.response_id])
    agreement = audits.judge_agreement(record)
    assert (agreement.n, agreement.agree) == (100, 99)
    judges.promote_judge(record)
    record.refresh_from_db()
    assert record.promoted and not Code.objects.filter(source="judge").exists()  # people's codes stand

    # After promotion its readings of new unresolved answers are codes, and leave the queue.
    fresh = unresolved_answers(run, questions, writer, 3, start=100)
    second = judges.request_judging(run, judge)
    assert second.responses.count() == 3  # only what it has not read
    execute(second)
    for response in fresh:
        response.refresh_from_db()
        code = response.codes.get(is_current=True)
        assert (code.source, code.rule) == ("judge", "judge:fake-judge") and response.code_source == "judge"
        assert code.code == JudgeRequest.objects.get(target_response=response).code
        assert response.review_tasks.get(purpose="primary").status == "withdrawn"
    assert services.next_task(rita) is None
    # Two judge runs of one run are not two launches of anything: analysis lists neither.
    assert not [h for h in latest_launches(AnalysisFilter())[1] if h.run in (judge_run.pk, second.pk)]

    # Demotion: the codes stop counting (kept as history) and the answers go back to people.
    assert judges.demote_judge(record) == 3
    for response in fresh:
        response.refresh_from_db()
        assert (response.code, response.code_source) == ("", "unresolved")
        assert response.codes.filter(source="judge", is_current=False).count() == 1
        task = response.review_tasks.get(purpose="primary", status="open")
        assert task.reason == "judge-demoted" and "demoted" in task.explanation
    assert services.next_task(rita).response_id in {r.pk for r in fresh}


def test_a_promoted_judges_codes_are_audited_and_its_errors_counted_like_a_rules(setup, fake):
    run, questions, writer = setup
    policy = CodingPolicy.current()
    policy.audit_share, policy.min_judge_items = 1, 0
    policy.save()
    judge = judge_model(fake)
    record = judges.judge_for(judge)
    judges.promote_judge(record)  # the threshold is the policy's: 0 here
    (target,) = unresolved_answers(run, questions, writer, 1)
    execute(judges.request_judging(run, judge))
    target.refresh_from_db()
    audit = ReviewTask.objects.get(response=target, purpose="audit")
    ravi = reviewer("ravi")
    assert services.next_task(ravi).pk == audit.pk
    wrong = "A" if target.code != "A" else "B"
    services.submit_code(audit.pk, ravi, wrong)
    rules = {rule.rule: rule for rule in reports.audit()}
    assert (rules["judge:fake-judge"].n, rules["judge:fake-judge"].correct) == (1, 0)


def test_an_operator_asks_for_judging_from_the_page_and_the_command(client, setup, fake):
    run, questions, writer = setup
    unresolved_answers(run, questions, writer, 2)
    judge = judge_model(fake)
    operator, _ = create_user_with_role("olga", PASSWORD, role="operators")
    assert client.login(username="olga", password=PASSWORD)
    page = client.get(reverse("encoding-judging")).content.decode()
    assert f"run {run.pk}" in page and "2 unresolved" in page
    response = client.post(reverse("encoding-judging"), {"run": run.pk, "judge": judge.pk}, follow=True)
    assert "asks fake-judge to read 2 unresolved answers" in response.content.decode()
    judge_run = Run.objects.get(note=f"judge of run {run.pk}")
    assert judge_run.launched_by == operator
    # Asking again finds nothing new: the message says so, nothing is created.
    response = client.post(reverse("encoding-judging"), {"run": run.pk, "judge": judge.pk}, follow=True)
    assert "has no unresolved answers that fake-judge has not read yet" in response.content.decode()
    with pytest.raises(Exception, match="has no unresolved answers"):
        call_command("judge_run", str(run.pk), "--judge", "fake-judge")
    unresolved_answers(run, questions, writer, 1, start=2)
    call_command("judge_run", str(run.pk), "--judge", "fake-judge")
    assert Run.objects.filter(note=f"judge of run {run.pk}").count() == 2


def test_reviewers_without_the_operator_role_cannot_ask_for_judging(client, setup, fake):
    run, questions, writer = setup
    reviewer("rita")
    assert client.login(username="rita", password=PASSWORD)
    assert client.get(reverse("encoding-judging")).status_code == 403
    assert client.post(reverse("encoding-judging"), {"run": run.pk, "judge": judge_model(fake).pk}).status_code == 403
    assert not JudgeRequest.objects.exists()


def test_the_admin_action_refuses_promotion_without_enough_evidence_and_re_enables_a_rule(client, admin_user, setup,
                                                                                          fake):
    from encoding_app.models import RuleStatus
    record = judges.judge_for(judge_model(fake))
    client.force_login(admin_user)
    response = client.post(reverse("admin:encoding_app_judge_changelist"),
                           {"action": "promote", "_selected_action": [record.pk]}, follow=True)
    assert "cannot be promoted yet: 0 of its readings" in response.content.decode()
    record.refresh_from_db()
    assert not record.promoted
    status = RuleStatus.objects.create(rule="option-text", suspended=True, audited=30, correct=20)
    client.post(reverse("admin:encoding_app_rulestatus_changelist"),
                {"action": "reenable", "_selected_action": [status.pk]}, follow=True)
    status.refresh_from_db()
    assert not status.suspended and status.counted_from is not None and status.reenabled_by == admin_user
