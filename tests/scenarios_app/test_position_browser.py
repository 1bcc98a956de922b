"""Position bias in a real browser (issue 29): an operator launches with a balanced option
order and the run page says so; an analyst's dashboard draws the Position bias panel with
data from a balanced launch, its method named, its CSV link there; screenshots at 1366 px."""

import random

import pytest
from playwright.sync_api import expect

from accounts.services import create_user_with_role
from encoding_app.models import CodingPolicy
from runs_app import queueing, services
from runs_app.models import LLMModel, Response, Run
from runs_app.signals import responses_answered
from scenarios_app import services as authoring
from scenarios_app.models import Benchmark
from tests.journeys.test_author_browser import log_in
from tests.scenarios_app.test_dashboard_charts import demo_like_specs
from tests.conftest import PASSWORD

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]



@pytest.fixture
def nothing_sent(monkeypatch):
    """The units are written, not sent: no worker runs here."""
    monkeypatch.setattr(queueing, "send_launch", lambda run_id, units: None)
    monkeypatch.setattr(queueing, "schedule_sweep", lambda run_id: None)
    monkeypatch.setattr(queueing, "enqueue", lambda ids: None)


def _benchmark():
    benchmark = Benchmark.objects.create(name="demo-like")
    for spec in demo_like_specs():
        authoring.save_spec(benchmark, spec)
    hawk = LLMModel.objects.create(name="hawk", litellm_model="openai/x", api_base="http://127.0.0.1:9/v1",
                                   answer_mode="choice")
    owl = LLMModel.objects.create(name="owl", litellm_model="openai/x", api_base="http://127.0.0.1:9/v1",
                                  answer_mode="generate")
    return benchmark, hawk, owl


@pytest.fixture
def balanced_answers(db, nothing_sent):
    """A balanced launch of the demo-like scenarios, answered: hawk (choice mode) takes
    the option shown at A two times in three (a position effect), owl (three repeats)
    prefers the first option as written whatever its letter (content only)."""
    CodingPolicy.objects.update_or_create(pk=1, defaults={"double_coding_share": 0, "audit_share": 0})
    benchmark, hawk, owl = _benchmark()
    run = services.launch_run(benchmark, [hawk, owl], repeats=3, balanced_options=True, note="balanced")
    rng = random.Random(11)
    for response in run.responses.select_related("question", "model"):
        order = list(response.option_order)
        if response.model_id == hawk.pk:
            position = 0 if rng.random() < 2 / 3 else rng.randrange(len(order))
            Response.objects.filter(pk=response.pk).update(status="done", chosen_letter="ABC"[position],
                                                           raw_output="ABC"[position])
        else:
            canonical = 0 if rng.random() < 0.6 else rng.randrange(len(order))
            Response.objects.filter(pk=response.pk).update(status="done", raw_output="ABC"[order.index(canonical)])
    responses_answered.send(sender=Response, response_ids=list(run.responses.values_list("pk", flat=True)))
    Run.objects.filter(pk=run.pk).update(status="done")
    return run


def test_an_operator_launches_with_balanced_option_order(page, live_server, nothing_sent, screenshots):
    benchmark, hawk, owl = _benchmark()
    create_user_with_role("olga", PASSWORD, role="operators")
    page.set_viewport_size({"width": 1366, "height": 900})
    log_in(page, live_server, "olga")
    page.goto(f"{live_server.url}/runs/launch/")
    page.select_option("select[name=benchmark]", label=next(o for o in page.locator(
        "select[name=benchmark] option").all_text_contents() if "demo-like" in o))
    page.check("input[name=models][value='%d']" % owl.pk)
    page.fill("input[name=repeats]", "3")
    page.check("input[name=balanced_options]")
    expect(page.locator("label[for=id_balanced_options], .field").filter(has_text="Balance option order").first
           ).to_be_visible()
    page.locator("input[name=balanced_options]").scroll_into_view_if_needed()
    page.screenshot(path=str(screenshots / "position-launch-form.png"))
    page.click("button[value=plan]", no_wait_after=True)
    expect(page.locator("#launch-plan")).to_be_visible(timeout=60_000)
    expect(page.locator("input[name=balanced_options]")).to_be_checked()  # kept through the plan
    page.click("button[value=launch]")
    expect(page.locator("body")).to_contain_text("balanced rotations", timeout=60_000)
    run = Run.objects.get()
    assert run.balanced_options
    page.screenshot(path=str(screenshots / "position-run-page.png"), full_page=False)
    # esc-border asked of owl: 6 dyads x 3 repeats = 18 units = 9 x 2 options: each option 9 times at A and at B
    orders = run.responses.filter(question__cfpd__scenario__key="esc-border").values_list("option_order", flat=True)
    assert sorted(tuple(o) for o in orders) == [(0, 1)] * 9 + [(1, 0)] * 9
    assert page.problems == []


# Per trace of the chart as plotly drew it: its name and how many of its y values are numbers.
DRAWN = """(selector) => { const chart = document.querySelector(selector);
  const numbers = v => Array.from(v || []).filter(x => typeof x === 'number' && !Number.isNaN(x)).length;
  return chart._fullData.map(t => ({name: t.name, points: numbers(t.y)})); }"""


def test_the_position_bias_panel_is_drawn_with_data(page, live_server, analyst, balanced_answers, settings,
                                                    screenshots):
    settings.CFPD_DASHBOARD_IN_WORKER = False
    page.set_viewport_size({"width": 1366, "height": 900})
    log_in(page, live_server, analyst.username)
    page.goto(f"{live_server.url}/analysis/cfpd/?run={balanced_answers.pk}&iterations=200", timeout=180_000)
    expect(page.locator("#panel-position .chart")).to_have_attribute("data-drawn", "1")
    traces = page.evaluate(DRAWN, "#panel-position .chart")
    # hawk and owl, each with 2 and 3 options: 2 + 3 positions per model -> 10 bars per trace
    assert traces == [{"name": "observed share", "points": 10}, {"name": "expected from content", "points": 10}]
    note = page.locator("#panel-position .panel-note")
    expect(note).to_contain_text("stratified permutation test")
    expect(note).to_contain_text("Expected from content")
    labels = page.locator("#panel-position .chart").evaluate("c => c._fullData[0].x[0].join(' ')")
    assert "hawk (2 options)" in labels and ("p = " in labels or "p < 0.001" in labels)
    assert page.locator("#panel-position a[href*='position.csv']").count() >= 1
    page.locator("#panel-position").screenshot(path=str(screenshots / "position-bias-panel.png"))
    expect(page.locator("#panel-position_rates .chart")).to_have_attribute("data-drawn", "1")
    expect(page.locator("#panel-position_rates .panel-note")).to_contain_text("Position-balanced")
    page.locator("#panel-position_rates").screenshot(path=str(screenshots / "position-rates-panel.png"))
    assert page.problems == []
