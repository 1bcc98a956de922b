"""An analyst opens a bundled model's profile after demo-like answers of all three families
and sees each family's headline figures, with its charts drawn; then compares it with
another model."""

import pytest
from playwright.sync_api import expect

from runs_app.models import LLMModel
from tests.browser.test_author_browser import log_in
from tests.browser.test_borderlines_browser import answered_territories  # noqa: F401  (fixture)
from tests.browser.test_dashboard_charts import demo_like  # noqa: F401  (fixture)
from tests.integration.test_model_profiles import move_answers, seed_three_families

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

BUNDLED = "local-smollm2"


def test_an_analyst_sees_a_bundled_models_figures_of_every_family_and_compares_it(
        page, live_server, analyst, demo_like, answered_territories, settings, screenshots):  # noqa: F811
    settings.CFPD_DASHBOARD_IN_WORKER = False  # computed in the request, through the worker's row
    move_answers("hawk", LLMModel.objects.get(name=BUNDLED))  # the demo's bundled model answered as hawk did
    seed_three_families(BUNDLED)
    log_in(page, live_server, analyst.username)
    page.goto(f"{live_server.url}/models/", timeout=90_000)  # the figures computed on this first load
    with page.expect_navigation():
        page.click(f"a.model-link:text-is('{BUNDLED}')")
    assert page.url.endswith(f"/models/{BUNDLED}/")
    for family in ("cfpd", "borderlines", "freeform"):
        section = page.locator(f"#family-{family}")
        expect(section.locator(".chart")).to_have_attribute("data-drawn", "1", timeout=30_000)
        assert section.locator("table.headline-table tbody tr").count() > 0
        expect(section.locator(".no-answers")).to_have_count(0)
    expect(page.locator("#family-freeform")).to_contain_text("1 of 2")
    expect(page.locator("#computed-at")).to_contain_text("computed by the worker at")
    page.screenshot(path=str(screenshots / "model-profile.png"), full_page=True)

    page.select_option("#compare-form select[name=model]", ["dove"])
    with page.expect_navigation():
        page.click("#compare-form button[type=submit]")
    expect(page.locator("#family-freeform")).to_contain_text(f"{BUNDLED} − dove")
    for family in ("cfpd", "borderlines", "freeform"):
        expect(page.locator(f"#family-{family} .chart")).to_have_attribute("data-drawn", "1")
    page.screenshot(path=str(screenshots / "model-compare.png"), full_page=True)
    assert page.problems == []
