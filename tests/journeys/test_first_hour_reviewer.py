"""A reviewer's first hour at the coding page, in a real browser (issue 38): the counts say
whose each item is ("1 you skipped", "second codes of answers you coded waiting for
another reviewer"), a first code that adds a blind second code says so, the empty card
says why it is empty, and a second tab learns of the first one's code without a key."""

import pytest
from playwright.sync_api import expect

from accounts.services import create_user_with_role
from encoding_app.models import Code, CodingPolicy, ReviewTask
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

POLL_WAIT_MS = 6_000  # the page polls every 2.5 s: told within two polls


def make_queue(double_coding_share):
    """Three answers the automatic encoder leaves to reviewers (two letters named each)."""
    CodingPolicy.objects.update_or_create(pk=1, defaults={"double_coding_share": double_coding_share,
                                                          "audit_share": 0})
    benchmark = Benchmark.objects.create(name="first-hour")
    authoring.save_spec(benchmark, three_option_spec(key="escalation-naval-blockade",
                                                     dyads=[("CN", "JP"), ("US", "CU"), ("RU", "GB")]))
    model = LLMModel.objects.create(name="writer", litellm_model="openai/x")
    run = Run.objects.create(benchmark=benchmark)
    for question in benchmark.questions.filter(cfpd__variant="full").order_by("key"):
        response = Response.objects.create(run=run, question=question, model=model, status="done",
                                           option_order=[0, 1, 2], raw_output="A or B: both have merit.")
        responses_answered.send(sender=Response, response_ids=[response.pk])
    assert ReviewTask.objects.filter(status="open").count() == 3
    return run


def watch(page):
    """A second tab's script errors and failed requests, as the `page` fixture's."""
    page.problems = []
    page.on("pageerror", lambda error: page.problems.append(f"script error: {error}"))
    page.on("response", lambda response: response.status >= 400
            and page.problems.append(f"HTTP {response.status}: {response.url}"))
    return page


def test_the_counts_say_whose_each_item_is_and_the_empty_card_says_why(page, live_server, screenshots):
    make_queue(double_coding_share=1)  # every first code is picked for a blind second code
    create_user_with_role("rita", PASSWORD, role="reviewers")
    page.set_viewport_size({"width": 1366, "height": 900})
    log_in(page, live_server, "rita")
    page.goto(f"{live_server.url}/encoding/code/")
    progress, flash = page.locator("#progress"), page.locator("#flash")
    expect(progress).to_have_text("0 coded by you · 3 left for you")

    page.keyboard.press("a")  # the first code: a second-coding item is added, and the page says so
    expect(flash).to_contain_text("A blind second code of this answer was added to the queue for another reviewer")
    expect(progress).to_have_text(
        "1 coded by you · 2 left for you · 1 second code of an answer you coded waiting for another reviewer")
    page.screenshot(path=str(screenshots / "first-hour-reviewer-second-code-added.png"))

    page.keyboard.press("s")  # skip one
    expect(progress).to_contain_text("1 you skipped")
    page.keyboard.press("b")  # code the last one she may take
    expect(progress).to_have_text("2 coded by you · 0 left for you · 1 you skipped · "
                                  "2 second codes of answers you coded waiting for another reviewer")
    empty = page.locator("#empty")
    expect(empty).to_be_visible()
    expect(empty.locator("h2")).to_have_text("Nothing left for you to code here")
    reason = page.locator("#empty-reason")
    expect(reason).to_contain_text("1 item you skipped")
    expect(reason).to_contain_text("2 second codes of answers you coded, waiting for another reviewer")
    expect(reason).to_contain_text("nobody codes an answer twice")
    page.screenshot(path=str(screenshots / "first-hour-reviewer-empty-card.png"))
    assert Code.objects.filter(coder__username="rita").count() == 2
    assert page.problems == []


def test_a_second_tab_learns_of_the_first_ones_code_within_seconds(page, live_server, screenshots):
    make_queue(double_coding_share=0)
    create_user_with_role("rita", PASSWORD, role="reviewers")
    page.set_viewport_size({"width": 1366, "height": 900})
    log_in(page, live_server, "rita")
    page.goto(f"{live_server.url}/encoding/code/")
    second = watch(page.context.new_page())
    second.set_viewport_size({"width": 1366, "height": 900})
    second.goto(f"{live_server.url}/encoding/code/")
    shown = page.locator("#task-id")
    expect(shown).not_to_have_text("")
    task = shown.text_content()
    expect(second.locator("#task-id")).to_have_text(task)  # both tabs show the item she holds

    page.bring_to_front()
    page.keyboard.press("a")
    expect(page.locator("#progress")).to_contain_text("1 coded by you · 2 left for you")
    # The second tab, no key pressed: told of the code, moved on, its counts true.
    expect(second.locator("#flash")).to_contain_text(f"Item {task} was coded A in your other tab",
                                                     timeout=POLL_WAIT_MS)
    expect(second.locator("#task-id")).not_to_have_text(task)
    expect(second.locator("#progress")).to_contain_text("1 coded by you · 2 left for you")
    second.screenshot(path=str(screenshots / "first-hour-reviewer-second-tab.png"))

    second.bring_to_front()
    second.keyboard.press("s")  # and the other way round: a skip in the second tab reaches the first
    expect(page.locator("#flash")).to_contain_text("You skipped item", timeout=POLL_WAIT_MS)
    expect(page.locator("#progress")).to_contain_text("1 you skipped")
    assert page.problems == [] and second.problems == []
