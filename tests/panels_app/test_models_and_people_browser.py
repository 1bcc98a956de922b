"""The Models and people page in a real browser: the charts drawn by the dashboards' script
(plotly's SVG, the ceiling's dashed line and its label), the tables beside them; a screenshot
for the record (/work/notes/shots/h40b-models-and-people.png)."""

from pathlib import Path

import pytest
from playwright.sync_api import expect

from runs_app.models import LLMModel, Response, Run
from tests.journeys.test_author_browser import log_in
from tests.panels_app.test_reference_report import case  # noqa: F401 (the fixture)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

SHOTS = Path("/work/notes/shots")


def test_an_analyst_sees_the_models_beside_the_panels(case, page, live_server, analyst):  # noqa: F811
    dove = LLMModel.objects.create(name="dove", litellm_model="openai/dove")
    run = Run.objects.create(benchmark=case, status="done")
    for question in case.questions.all():
        for repeat, code in enumerate("AB"):  # an even split over A and B on every question
            Response.objects.create(run=run, question=question, model=dove, repeat=repeat, status="done", code=code,
                                    option_order=list(range(question.choice_count)))
    log_in(page, live_server, analyst.username)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/panels/")
    page.click("#models-and-people")
    expect(page.locator("h1")).to_contain_text("Models and people")
    ranking = page.locator('[data-figure="ranking-1"]')
    expect(ranking.locator("svg.main-svg").first).to_be_visible()
    expect(ranking).to_contain_text("panel's ceiling 0.750")
    expect(page.locator('[data-figure="heat-1"] svg.main-svg').first).to_be_visible()
    expect(page.locator("#ranking-table-1 tbody tr")).to_have_count(2)  # hawk and dove, ranked
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "h40b-models-and-people.png"), full_page=True)
