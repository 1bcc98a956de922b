"""An analyst reads the dashboard in a real browser: the charts are drawn, a filter
changes the chart, the panel's CSV downloads; an outsider is refused."""

import csv
import io

import pytest
from playwright.sync_api import expect

from tests.journeys.test_author_browser import log_in
from tests.scenarios_app.test_analysis import answered  # noqa: F401  (fixture)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


def rates_traces(page):
    return page.evaluate("document.querySelector('#panel-rates .chart').data.map(t => t.name)")


@pytest.fixture
def queued(monkeypatch):
    """The builds the pages asked of the worker (`worker_fills_in` runs them)."""
    from analysis_app import tasks

    sent = []
    monkeypatch.setattr(tasks.compute_figure, "delay", sent.append)
    return sent


def worker_fills_in(page, queued):
    """The page shows the placeholder; the worker, run in place, builds the board; the page
    polls and reloads by itself."""
    from analysis_app import tasks

    expect(page.locator("#computing")).to_contain_text("Computing…")
    assert queued
    while queued:
        tasks.compute_figure(queued.pop(0))
    expect(page.locator("#computing")).to_have_count(0, timeout=15_000)
    expect(page.locator("#panel-rates .chart")).to_have_attribute("data-drawn", "1", timeout=30_000)


def test_an_analyst_filters_the_dashboard_and_downloads_a_csv(page, live_server, analyst, answered, artifacts_dir,
                                                              queued):
    log_in(page, live_server, analyst.username)
    page.goto(f"{live_server.url}/analysis/cfpd/?iterations=200")
    worker_fills_in(page, queued)
    expect(page.locator("#coverage")).to_contain_text("9 of 10 answers coded")
    chart = page.locator("#panel-rates .chart")
    expect(chart).to_have_attribute("data-drawn", "1")
    expect(page.locator("#panel-rates .chart .main-svg").first).to_be_visible()
    assert rates_traces(page) == ["dove", "hawk"]

    page.select_option("select[name=model]", ["hawk"])
    with page.expect_navigation():
        page.click("#filters button[type=submit]")
    assert "model=hawk" in page.url  # the view is in the URL, to share
    worker_fills_in(page, queued)
    expect(page.locator("#panel-rates .chart")).to_have_attribute("data-drawn", "1")
    assert rates_traces(page) == ["hawk"]
    page.screenshot(path=str(artifacts_dir / "analyst-dashboard.png"), full_page=True)

    with page.expect_download() as download_info:
        page.click("#panel-rates a:text('CSV')")
    download = download_info.value
    rows = list(csv.DictReader(io.StringIO(open(download.path(), encoding="utf-8").read())))
    assert {r["model"] for r in rows} == {"hawk"}
    assert {r["category"]: float(r["rate"]) for r in rows} == {"No use of force": pytest.approx(0.2),
                                                                "Use of force": pytest.approx(0.8)}
    assert page.problems == []


def test_after_a_new_answer_the_page_shows_its_previous_figures_and_says_when_newer_ones_are_ready(
        page, live_server, analyst, answered, artifacts_dir, queued):
    from tests.analysis_app.test_dashboard_worker import add_answer

    log_in(page, live_server, analyst.username)
    page.goto(f"{live_server.url}/analysis/cfpd/?iterations=200")
    worker_fills_in(page, queued)
    add_answer(answered)
    page.reload()
    expect(page.locator("#stale")).to_contain_text("newer answers are being counted…")
    expect(page.locator("#coverage")).to_contain_text("9 of 10 answers coded")  # the previous build, drawn
    expect(page.locator("#panel-rates .chart")).to_have_attribute("data-drawn", "1")
    expect(page.locator("#figures-ready")).to_be_hidden()
    page.screenshot(path=str(artifacts_dir / "analyst-dashboard-stale.png"), full_page=False)
    from analysis_app import tasks
    assert len(queued) == 1
    tasks.compute_figure(queued.pop())
    # The page polls and offers the newer figures rather than reloading under the reader.
    expect(page.locator("#figures-ready")).to_be_visible(timeout=15_000)
    page.click("#figures-ready a")
    expect(page.locator("#coverage")).to_contain_text("10 of 11 answers coded")
    expect(page.locator("#stale")).to_have_count(0)
    assert page.problems == []


def test_an_outsider_is_refused(page, live_server, outsider, answered):
    log_in(page, live_server, outsider.username)
    response = page.goto(f"{live_server.url}/analysis/cfpd/")
    assert response.status == 403
    assert page.locator("#panel-rates").count() == 0
