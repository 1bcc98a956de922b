"""An analyst opens a run, goes to its answers, searches for a word of one answer, opens it
and sees the messages as sent and the option log-probability chart drawn with its points.
Seeded as the dashboards' browser tests are (`demo_like`); one answer is given a distinctive
output, its messages and log-probabilities (a script tag in it stays text)."""

import re

import pytest
from playwright.sync_api import expect

from runs_app.models import Response
from tests.journeys.test_author_browser import log_in
from tests.scenarios_app.test_dashboard_charts import demo_like  # noqa: F401  (fixture)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

def test_an_analyst_searches_a_runs_answers_and_opens_one(page, live_server, analyst, demo_like,
                                                           screenshots):  # noqa: F811
    _, run = demo_like
    answer = Response.objects.filter(run=run, status="done").order_by("id").first()
    letters = "ABCDEFGHIJ"[:max(2, len(answer.question.options))]
    Response.objects.filter(pk=answer.pk).update(
        raw_output="<script>window.hacked=1</script> I choose B: the zeppelin option is wiser.",
        messages=[{"role": "system", "content": "You are an adviser."},
                  {"role": "user", "content": "Which course? Answer with a letter."}],
        option_logprobs={letter: -0.2 - i for i, letter in enumerate(letters)})
    page.set_viewport_size({"width": 1366, "height": 900})
    log_in(page, live_server, analyst.username)
    page.goto(f"{live_server.url}/runs/{run.pk}/")
    with page.expect_navigation():
        page.click("#run-answers-link")
    expect(page.locator("#answer-table")).to_be_visible()
    page.fill("#answer-search", "zeppelin")
    with page.expect_navigation():
        page.click("#answer-filters button[type=submit]")
    rows = page.locator("#answer-table tbody tr")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("<script>window.hacked=1</script>")
    page.screenshot(path=str(screenshots / "answers-list-search.png"), full_page=True)

    with page.expect_navigation():
        rows.first.locator("td.num a").click()
    assert re.search(rf"/answers/{answer.pk}/$", page.url)
    expect(page.locator("h1")).to_contain_text(f"Answer {answer.pk}")
    messages = page.locator("#answer-messages .message")
    expect(messages).to_have_count(2)
    expect(messages.nth(1)).to_contain_text("Which course? Answer with a letter.")
    expect(page.locator("#answer-raw")).to_contain_text("<script>window.hacked=1</script>")
    expect(page.locator("#answer-raw mark.hl-letter").first).to_have_text("B")
    assert page.evaluate("window.hacked") is None  # shown, never run
    # the chart is drawn by plotly with one bar per option
    page.wait_for_selector("#answer-chart .main-svg")
    points = page.evaluate("document.getElementById('answer-chart').data[0].y")
    assert points == [-0.2 - i for i in range(len(letters))]
    expect(page.locator("#answer-chart g.point")).to_have_count(len(letters))
    page.screenshot(path=str(screenshots / "answer-detail.png"), full_page=True)
    assert not page.problems
