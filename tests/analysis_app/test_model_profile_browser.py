"""An analyst opens a bundled model's profile after demo-like answers of all three families
and sees each family's headline figures, with its charts drawn; then compares it with
another model. As the demo asks them (scripts/demo), the CFPD and BorderLines answers are
local-smollm2's (choice mode) and the free-form crisis answers local-smollm2-text's
(generate mode): two rows of one model, whose one profile is at /models/local-smollm2/.
dove is likewise two rows: dove (choice) and dove-text (generate, the crisis answers)."""

import re

import pytest
from playwright.sync_api import expect

from runs_app.models import LLMModel, Run
from tests.journeys.test_author_browser import log_in
from tests.territories_app.test_borderlines_browser import answered_territories  # noqa: F401  (fixture)
from tests.scenarios_app.test_dashboard_charts import demo_like  # noqa: F401  (fixture)
from tests.analysis_app.test_model_profiles import move_answers, seed_three_families

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

BUNDLED = "local-smollm2"
TEXT = "local-smollm2-text"


def test_an_analyst_sees_a_bundled_models_figures_of_every_family_and_compares_it(
        page, live_server, analyst, demo_like, answered_territories, settings, screenshots):  # noqa: F811
    settings.CFPD_DASHBOARD_IN_WORKER = False  # computed in the request, through the worker's row
    move_answers("hawk", LLMModel.objects.get(name=BUNDLED))  # the demo's bundled model answered as hawk did
    LLMModel.objects.create(name="dove-text", litellm_model="openai/dove", answer_mode="generate")
    seed_three_families(BUNDLED, crisis_hawk=TEXT, crisis_dove="dove-text")
    log_in(page, live_server, analyst.username)
    page.goto(f"{live_server.url}/models/", timeout=90_000)  # the figures computed on this first load
    expect(page.locator(f"#models a.model-link:text-is('{TEXT}')")).to_have_count(0)  # one line per model
    with page.expect_navigation():
        page.click(f"a.model-link:text-is('{BUNDLED}')")
    assert page.url.endswith(f"/models/{BUNDLED}/")
    expect(page.locator("#model-rows")).to_contain_text(f"{TEXT} (generate)")
    for family, row in (("cfpd", BUNDLED), ("borderlines", BUNDLED), ("freeform", TEXT)):
        section = page.locator(f"#family-{family}")
        expect(section.locator(".chart")).to_have_attribute("data-drawn", "1", timeout=30_000)
        cells = section.locator("table.headline-table tbody td.figure-row")
        assert cells.count() > 0
        assert {text.split(" ")[0] for text in cells.all_inner_texts()} == {row}  # each figure names its row
        expect(section.locator(".no-answers")).to_have_count(0)
    expect(page.locator("#family-freeform")).to_contain_text("1 of 2")  # among generate rows: dove-text
    expect(page.locator("#computed-at")).to_contain_text("computed by the worker at")
    page.screenshot(path=str(screenshots / "model-profile.png"), full_page=True)
    page.goto(f"{live_server.url}/models/{TEXT}/")  # the free-text row's address: the same profile
    assert page.url.endswith(f"/models/{BUNDLED}/")

    page.select_option("#compare-form select[name=model]", ["dove"])
    with page.expect_navigation():
        page.click("#compare-form button[type=submit]")
    expect(page.locator("#family-freeform")).to_contain_text(f"{BUNDLED} − dove")
    expect(page.locator("#family-freeform .compared-row").first).to_have_text(TEXT)  # the row it comes from
    for family in ("cfpd", "borderlines", "freeform"):
        expect(page.locator(f"#family-{family} .chart")).to_have_attribute("data-drawn", "1")
    page.screenshot(path=str(screenshots / "model-compare.png"), full_page=True)
    assert page.problems == []


def test_the_live_run_page_keeps_model_names_linked_to_their_profiles(
        page, live_server, analyst, demo_like, settings):  # noqa: F811
    """run_progress.js rebuilds Latest answers from progress.json: the names stay links for
    a reader of the profiles (the per-model table's names are the template's)."""
    run = Run.objects.get(note="demo-like")
    Run.objects.filter(pk=run.pk).update(status="running")  # live: the page polls
    log_in(page, live_server, analyst.username)
    page.goto(f"{live_server.url}/runs/{run.pk}/")
    page.evaluate("document.querySelectorAll('[data-rows=latest] tr').forEach(tr => tr.dataset.served = '1')")
    with page.expect_response(lambda r: "/progress.json" in r.url):
        pass  # the next poll
    expect(page.locator("[data-rows=latest] tr[data-served]")).to_have_count(0)  # rows rebuilt by the script
    latest = page.locator("[data-rows=latest] td.model-name a.model-link")
    expect(latest.first).to_have_attribute("href", re.compile(r"^/models/(hawk|dove|owl)/$"))
    expect(page.locator("tr[data-model=hawk] td.model-name a.model-link")).to_have_attribute("href", "/models/hawk/")
    assert page.problems == []
