"""The launch form's plan shows the precision and power of the questions selected (CFPD's
`Family.power`), in a real browser; screenshot at 1366 px."""

import pytest
from playwright.sync_api import expect

from accounts.services import create_user_with_role
from runs_app.models import LLMModel
from scenarios_app import services as authoring
from scenarios_app.models import Benchmark
from tests.journeys.test_author_browser import log_in
from tests.conftest import PASSWORD
from tests.factories import escalation_spec, three_option_spec

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

DYADS = [("US", "CN"), ("CN", "US"), ("GB", "RU"), ("RU", "GB"), ("IN", "CN")]


def test_the_plan_states_precision_and_power(page, live_server, screenshots):
    benchmark = Benchmark.objects.create(name="power")
    for index in range(4):
        authoring.save_spec(benchmark, escalation_spec(key=f"esc-{index}", dyads=DYADS))
    authoring.save_spec(benchmark, three_option_spec(key="esc3", dyads=DYADS[:3]))
    for name in ("gen-a", "gen-b"):
        LLMModel.objects.create(name=name, litellm_model=f"openai/{name}", api_base="http://127.0.0.1:9/v1",
                                answer_mode="generate")
    create_user_with_role("olga", PASSWORD, role="operators")
    page.set_viewport_size({"width": 1366, "height": 900})
    log_in(page, live_server, "olga")
    page.goto(f"{live_server.url}/runs/launch/")
    page.select_option("select[name=benchmark]", label=next(o for o in page.locator(
        "select[name=benchmark] option").all_text_contents() if "power" in o))
    page.check("input[name=models][value='%d']" % LLMModel.objects.get(name="gen-a").pk)
    page.check("input[name=models][value='%d']" % LLMModel.objects.get(name="gen-b").pk)
    page.fill("input[name=repeats]", "3")
    page.click("button[value=plan]", no_wait_after=True)
    table = page.locator("#launch-power-table")
    expect(table).to_be_visible(timeout=60_000)
    # Escalation (2): 4 scenarios + the no-middle form of esc3 = 5 scenarios of 5, 5, 5, 5, 3 questions
    expect(page.locator("[data-power-form='Escalation (2)']")).to_contain_text("5")
    expect(page.locator("[data-power-form='Escalation (3)']")).to_be_visible()
    expect(page.locator("#launch-plan")).to_contain_text("0.50 (assumed: no earlier answers")
    expect(page.locator("#launch-plan")).to_contain_text("Kish")
    page.locator("#launch-plan").screenshot(path=str(screenshots / "stats-launch-power.png"))
    assert page.problems == []
