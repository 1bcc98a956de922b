"""A reviewer codes answers in a real browser with the keyboard alone: three items coded,
the last one undone and back on screen; the answer's markup is shown as text."""

import pytest
from playwright.sync_api import expect

from accounts.services import create_user_with_role
from encoding_app.models import CodingPolicy, ReviewTask
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

ANSWERS = [
    "Option A or B; both have merit. <img src=x onerror=\"window.pwned=1\">",
    "I lean towards C but would also consider A.",
    "Either A, or perhaps B.",
    "B and C look equally good.",
]


@pytest.fixture
def queue():
    CodingPolicy.objects.update_or_create(pk=1, defaults={"double_coding_share": 0, "audit_share": 0})
    benchmark = Benchmark.objects.create(name="review")
    authoring.save_spec(benchmark, three_option_spec(dyads=[("CN", "JP"), ("US", "CU"), ("RU", "GB"), ("IN", "PK")]))
    model = LLMModel.objects.create(name="writer", litellm_model="openai/x")
    run = Run.objects.create(benchmark=benchmark)
    questions = benchmark.questions.filter(cfpd__variant="full").order_by("key")
    for question, text in zip(questions, ANSWERS):
        response = Response.objects.create(run=run, question=question, model=model, status="done", raw_output=text,
                                           option_order=[0, 1, 2])
        responses_answered.send(sender=Response, response_ids=[response.pk])
    assert ReviewTask.objects.filter(status="open").count() == 4
    return run


def current_task(page):
    return int(page.locator("#task-id").text_content())


def test_a_reviewer_codes_three_items_by_keyboard_and_undoes_one(page, live_server, queue, artifacts_dir):
    create_user_with_role("rita", PASSWORD, role="reviewers")
    log_in(page, live_server, "rita")
    page.goto(f"{live_server.url}/encoding/code/")
    progress = page.locator("#progress")
    expect(progress).to_contain_text("0 coded by you · 4 left for you")
    # The first answer's markup is text, highlighted where it names options, never run.
    answer = page.locator("#answer")
    expect(answer).to_contain_text('<img src=x onerror="window.pwned=1">')
    assert page.locator("#answer img").count() == 0
    assert page.evaluate("window.pwned") is None
    expect(page.locator("#answer mark.hl-letter")).to_have_count(2)  # A and B

    coded = []
    for key, done in [("a", 1), ("c", 2), ("r", 3)]:
        before = current_task(page)
        page.keyboard.press(key)
        expect(progress).to_contain_text(f"{done} coded by you · {4 - done} left for you")
        coded.append((before, key.upper()))
        if done < 3:
            assert current_task(page) != before
    url_after_coding = page.url
    page.keyboard.press("u")  # undo the last code: that item is back
    expect(progress).to_contain_text("2 coded by you · 2 left for you")
    expect(page.locator("#task-id")).to_have_text(str(coded[-1][0]))
    assert page.url == url_after_coding  # no page load at any point
    page.screenshot(path=str(artifacts_dir / "reviewer-after-undo.png"), full_page=True)

    codes = dict(Response.objects.filter(run=queue).values_list("review_tasks__pk", "code"))
    assert codes[coded[0][0]] == "A" and codes[coded[1][0]] == "C"
    assert codes[coded[2][0]] == ""  # undone
    assert page.problems == []
