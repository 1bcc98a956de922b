"""An operator's first hour, in a real browser (issue 38), against a real worker and the fake
OpenAI server: she finds her model on the registered models' page, opens the launch page,
plans with no model ticked and is told in words what to fix, plans again and reads the
units and the cost, launches, watches the run's page reach done without a reload, and
opens a run that does not exist and reads why in words."""

import re

import pytest
from playwright.sync_api import expect

from accounts.services import create_user_with_role
from runs_app.models import Run
from tests.journeys.test_author_browser import log_in
from tests.journeys.test_operator_browser import WAIT_MS, watch
from tests.conftest import PASSWORD
from tests.runs_app.test_worker_runs import clean_broker, demo, fake, fake_model, workers  # noqa: F401

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

SAMPLE = 4  # a small run: 4 questions, asked once each of a choice-mode model


def test_an_operator_plans_launches_and_follows_a_small_run(page, live_server, demo, fake,  # noqa: F811
                                                             workers, screenshots):  # noqa: F811
    model = fake_model(fake, name="first-fake", input_cost_per_token="0.000001",
                       output_cost_per_token="0.000002")
    create_user_with_role("olga", PASSWORD, role="operators")
    page.set_viewport_size({"width": 1366, "height": 900})
    page.set_default_timeout(WAIT_MS)
    log_in(page, live_server, "olga")

    # The model is on the registered models' page.
    page.goto(f"{live_server.url}/runs/models/")
    expect(page.locator("h1")).to_have_text("Registered models")
    expect(page.locator("td.name", has_text="first-fake")).to_be_visible()
    page.screenshot(path=str(screenshots / "first-hour-operator-models.png"), full_page=True)

    # The launch page; a plan with no model ticked says what is missing, by the field.
    page.goto(f"{live_server.url}/runs/launch/")
    expect(page.locator("h1")).to_have_text("Launch a run")
    page.select_option("select[name=benchmark]", label=next(
        o for o in page.locator("select[name=benchmark] option").all_text_contents() if o.startswith("demo")))
    page.fill("input[name=sample]", str(SAMPLE))
    page.fill("input[name=seed]", "4")
    with page.expect_navigation():
        page.click("button[value=plan]")
    expect(page.locator(".field.has-error .error")).to_have_text("Choose at least one model.")
    expect(page.locator("#launch-plan")).to_have_count(0)
    expect(page.locator("button[value=launch]")).to_have_count(0)  # nothing to launch without a plan
    expect(page.locator("input[name=sample]")).to_have_value(str(SAMPLE))  # what she typed is kept
    page.screenshot(path=str(screenshots / "first-hour-operator-launch-error.png"), full_page=True)

    # Tick the model: the plan gives questions, units and cost, and asks nothing.
    page.check(f"input[name=models][value='{model.pk}']")
    with page.expect_navigation():
        page.click("button[value=plan]")
    plan = page.locator("#launch-plan")
    expect(plan).to_contain_text(f"{SAMPLE} questions")
    expect(plan.locator("[data-plan-total=units]")).to_have_text(str(SAMPLE))
    expect(plan.locator("[data-plan-total=cost]")).to_have_text(re.compile(r"^\d+\.\d{4}$"))  # US$, not "unknown"
    expect(plan).to_contain_text("Nothing has been asked yet.")
    expect(plan.locator("tr[data-plan-model='first-fake']")).to_contain_text(f"{SAMPLE} × 1 = {SAMPLE}")
    assert not Run.objects.exists()
    page.locator("#launch-plan").screenshot(path=str(screenshots / "first-hour-operator-plan.png"))

    # Launch: the run's page says how many units were queued, and follows them to done.
    with page.expect_navigation():
        page.click("button[value=launch]")
    run = Run.objects.get()
    expect(page.locator("ul.messages")).to_contain_text(f"Run {run.pk} launched: {SAMPLE} units queued.")
    expect(page.locator("h1")).to_contain_text(f"Run {run.pk}")
    page.evaluate("window.__sameDocument = 'launched'")
    page.screenshot(path=str(screenshots / "first-hour-operator-queued.png"), full_page=True)
    workers.start(concurrency=2)
    samples = watch(page, lambda s: s["status"] == "Done" and s["finished_at"] != "\u2014")
    final = samples[-1]
    assert final["marker"] == "launched" and not final["live"]  # updated live, no reload
    assert (final["done"], final["running"], final["pending"]) == (SAMPLE, 0, 0)
    expect(page.locator("#run-progress [data-field=percent]")).to_have_text("100.0")
    expect(page.locator("tr[data-model='first-fake'] [data-field=done]")).to_have_text(str(SAMPLE))
    # The bars grow over 0.4 s (a CSS transition): the screenshot once caught them three-quarters full.
    page.wait_for_function("""() => [...document.querySelectorAll('.bar')].every(bar =>
        [...bar.querySelectorAll('.seg')].reduce((w, seg) => w + seg.getBoundingClientRect().width, 0)
        >= bar.getBoundingClientRect().width - 1)""")
    page.screenshot(path=str(screenshots / "first-hour-operator-done.png"), full_page=True)
    assert [p for p in page.problems if not p.endswith("/progress.json")] == []

    # A run that is not there: the 404 says so in words, not Django's "No Run matches".
    page.goto(f"{live_server.url}/runs/999/")
    expect(page.locator("body")).to_contain_text("No run 999: it may have been deleted, or the address may be mistyped.")
    expect(page.locator("body")).not_to_contain_text("matches the given query")
    page.screenshot(path=str(screenshots / "first-hour-operator-404.png"), full_page=True)
    assert [p for p in page.problems if not p.endswith("/progress.json")] == [f"HTTP 404: {live_server.url}/runs/999/"]
