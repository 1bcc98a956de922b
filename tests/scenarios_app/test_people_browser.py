"""In a real browser: an analyst sees a panel of people beside the models on the CFPD
dashboard (its label, its hatched bars, its rates in the table as counted by hand), in the
grid as a column of people, and a model's closest panels on its profile."""

import pytest
from playwright.sync_api import expect

from tests.journeys.test_author_browser import log_in
from tests.scenarios_app.test_people_on_dashboard import people  # noqa: F401  (fixture)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

LABEL = "People: IR scholars (3 respondents)"


@pytest.fixture(autouse=True)
def board_built_in_the_request(settings):
    settings.CFPD_DASHBOARD_IN_WORKER = False


def test_an_analyst_sees_people_beside_the_models(page, live_server, analyst, people, screenshots):  # noqa: F811
    page.set_viewport_size({"width": 1366, "height": 900})
    log_in(page, live_server, analyst.username)
    page.goto(f"{live_server.url}/analysis/cfpd/?run={people.pk}&iterations=200")
    panel = page.locator("#panel-people")
    expect(panel).to_be_visible()
    expect(panel.locator(".legendtext").filter(has_text=LABEL)).to_have_count(1)  # the chart's legend
    expect(panel.locator(".legendtext").filter(has_text="hawk")).to_have_count(1)
    panel.locator("details, summary").first.click()
    # the hand count: Use of force 2/3 of the kept respondents in each scenario
    row = panel.locator("tbody tr").filter(has_text=LABEL).filter(
        has=page.get_by_role("cell", name="Use of force", exact=True))
    expect(row).to_have_count(1)
    # rate 0.667, interval [0.231, 1.000] (2/3 - 1.96 · 2/9), 3 scenarios, 3 respondents, 9 answers
    expect(row.locator("td")).to_contain_text(["0.667", "0.231", "1.000", "clustered by respondent and scenario",
                                               "3", "9"])
    panel.screenshot(path=str(screenshots / "people-on-dashboard.png"))
    assert not page.problems

    page.goto(f"{live_server.url}/answers/grid/?run={people.pk}")
    expect(page.locator("th.people-head")).to_have_text([LABEL])
    expect(page.locator(f'td.cell.people[data-people="{LABEL}"]')).to_have_count(3)
    page.screenshot(path=str(screenshots / "people-in-grid.png"), full_page=True)
    assert not page.problems

    page.goto(f"{live_server.url}/answers/?run={people.pk}")
    section = page.locator("#people-answers")
    expect(section.locator("td.people-name")).to_have_text([LABEL] * 3)  # a row per question of the page
    section.screenshot(path=str(screenshots / "people-in-answers.png"))

    page.goto(f"{live_server.url}/models/hawk/")
    closest = page.locator("#closest-panels")
    expect(closest).to_contain_text(LABEL)
    closest.screenshot(path=str(screenshots / "people-closest.png"))
    assert not page.problems
