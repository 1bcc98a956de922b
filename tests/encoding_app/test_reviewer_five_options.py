"""A reviewer codes five-option questions in a real browser with the keyboard: the letter
`E`, then the digit `4` for the fourth option; a letter that is not an option codes
nothing; the encoder's sentence and a judge's suggestion are on screen."""

import pytest
from playwright.sync_api import expect

from accounts.services import create_user_with_role
from encoding_app.models import CodingPolicy, Judge, JudgeRequest, ReviewTask
from runs_app.models import LLMModel, Response, Run
from runs_app.signals import responses_answered
from scenarios_app import services as authoring
from scenarios_app.models import Benchmark
from tests.journeys.test_author_browser import log_in
from tests.conftest import PASSWORD
from tests.factories import three_option_spec

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

FIVE = ["Protest through diplomatic channels", "Impose targeted sanctions", "Blockade the ports",
        "Strike the naval base", "Offer talks without preconditions"]


@pytest.fixture
def queue():
    CodingPolicy.objects.update_or_create(pk=1, defaults={"double_coding_share": 0, "audit_share": 0})
    benchmark = Benchmark.objects.create(name="five")
    authoring.save_spec(benchmark, three_option_spec(dyads=[("CN", "JP"), ("US", "CU")]))
    model = LLMModel.objects.create(name="writer", litellm_model="openai/x")
    run = Run.objects.create(benchmark=benchmark)
    targets = []
    for question in benchmark.questions.filter(cfpd__variant="full").order_by("key"):
        question.options = [{"text": text, "category": ""} for text in FIVE]
        question.choice_count = 5
        question.save(update_fields=["options", "choice_count"])
        response = Response.objects.create(run=run, question=question, model=model, status="done",
                                           raw_output="Either B or E; both could work.",
                                           option_order=[1, 0, 2, 3, 4])
        responses_answered.send(sender=Response, response_ids=[response.pk])
        targets.append(response)
    # A judge has read the first answer (its unit lives in a judge run of its own).
    judge = Judge.objects.create(model=LLMModel.objects.create(name="judge-x", litellm_model="openai/j"))
    unit = Response.objects.create(run=Run.objects.create(benchmark=benchmark, kind=Run.Kind.JUDGE,
                                                          note=f"judge of run {run.pk}"),
                                   question=targets[0].question, model=judge.model, status="done", raw_output="E")
    JudgeRequest.objects.create(judge_response=unit, target_response=targets[0], judge=judge, reading="E",
                                code="E", read_at=unit.created_at)
    assert ReviewTask.objects.filter(status="open").count() == 2
    return run, targets


def test_a_reviewer_codes_five_option_answers_with_a_letter_and_a_digit(page, live_server, queue, artifacts_dir):
    run, targets = queue
    create_user_with_role("rita", PASSWORD, role="reviewers")
    log_in(page, live_server, "rita")
    page.goto(f"{live_server.url}/encoding/code/")
    progress = page.locator("#progress")
    expect(progress).to_contain_text("0 coded by you · 2 left for you")
    expect(page.locator("#options li")).to_have_count(5)
    expect(page.locator("#buttons button")).to_have_count(7)  # A–E, R and X
    expect(page.locator("#suggestion")).to_contain_text("hedge")
    expect(page.locator("#suggestion")).to_contain_text("B and E")  # the encoder's sentence, not only its rule
    expect(page.locator("#judges")).to_contain_text("Judge judge-x suggests E")
    page.screenshot(path=str(artifacts_dir / "reviewer-five-options.png"), full_page=True)

    page.keyboard.press("f")  # not an option here: nothing is coded
    expect(page.locator("#flash")).to_contain_text("F is not an option here")
    expect(progress).to_contain_text("0 coded by you · 2 left for you")

    first = int(page.locator("#task-id").text_content())
    page.keyboard.press("e")
    expect(progress).to_contain_text("1 coded by you · 1 left for you")
    second = int(page.locator("#task-id").text_content())
    assert second != first
    expect(page.locator("#judges")).to_be_hidden()  # no judge read the second answer
    page.keyboard.press("4")  # the fourth option as shown: D
    expect(progress).to_contain_text("2 coded by you · 0 left for you")
    expect(page.locator("#empty")).to_be_visible()

    codes = dict(Response.objects.filter(run=run).values_list("review_tasks__pk", "code"))
    # Shown in the order B, A, C, D, E (option_order [1, 0, 2, 3, 4]): E and D are the author's E and D.
    assert codes[first] == "E" and codes[second] == "D"
    assert page.problems == []
