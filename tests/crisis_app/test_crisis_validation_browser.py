"""In a real browser: an author previews the sample simulation's conversations, and an
analyst reads the metric's validation page with the bundled encoder (the bars drawn, the
verdict shown). Screenshots go to var/screenshots/crisis-*.png."""


import pytest
from playwright.sync_api import expect

from crisis_app import services
from tests.journeys.test_author_browser import log_in

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


def test_an_author_previews_every_variants_conversation(page, live_server, author, screenshots):
    simulation = services.load_sample("crisis-sample")
    log_in(page, live_server, author.username)
    page.goto(f"{live_server.url}/admin/crisis_app/simulation/{simulation.pk}/change/")
    page.screenshot(path=str(screenshots / "crisis-admin-change.png"), full_page=False)
    with page.expect_navigation():
        page.click("text=Preview conversations")
    expect(page.locator("section.variant")).to_have_count(7)
    expect(page.locator("#variant-anonymised")).to_contain_text("anonymised nations")
    expect(page.locator("#variant-ranked")).to_contain_text("RANKING:")
    assert page.locator(".turn.assistant").count() == 7 * 2
    assert page.problems == []
    page.screenshot(path=str(screenshots / "crisis-preview.png"), full_page=False)
    page.screenshot(path=str(screenshots / "crisis-preview-full.png"), full_page=True)


def test_an_analyst_reads_the_validation_page(page, live_server, analyst, screenshots, monkeypatch):
    from analysis_app import tasks

    queued = []
    monkeypatch.setattr(tasks.compute_figure, "delay", queued.append)
    log_in(page, live_server, analyst.username)
    # The page answers at once with a placeholder per scorer: the encoders are the worker's.
    page.goto(f"{live_server.url}/analysis/crisis/validation/")
    expect(page.locator("#panel-minilm .computing")).to_contain_text("Computing…")
    page.screenshot(path=str(screenshots / "crisis-validation-computing.png"), full_page=False)
    for figure_id in list(queued):  # the worker, run in place
        tasks.compute_figure(figure_id)
    # The page polls and reloads itself once every figure is computed.
    expect(page.locator("#figures-waiting")).to_have_count(0, timeout=15_000)
    for preset in ("minilm", "minilm-bf16"):
        expect(page.locator(f"#panel-{preset} .chart")).to_have_attribute("data-drawn", "1")
        assert page.locator(f"#panel-{preset} .chart .bars .point").count() == 4
        expect(page.locator(f"#verdict-{preset}")).to_contain_text("expected order")
    expect(page.locator("#panel-paper")).to_contain_text("Not available on this machine")
    assert page.problems == []
    page.screenshot(path=str(screenshots / "crisis-validation.png"), full_page=False)
    page.screenshot(path=str(screenshots / "crisis-validation-full.png"), full_page=True)
