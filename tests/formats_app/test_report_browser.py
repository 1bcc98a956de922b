"""export_report (issue 30): the CFPD dashboard on demo-like data written as one HTML file,
opened from disk in a real browser with the network off: every chart is drawn from the
file alone, its tables and notes are there."""

import io
import re

import pytest
from django.core.management import CommandError, call_command
from playwright.sync_api import expect

from tests.territories_app.test_borderlines_browser import answered_territories  # noqa: F401 (fixture)
from tests.scenarios_app.test_dashboard_charts import CHART_POINTS, demo_like  # noqa: F401 (fixture)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


def test_an_exported_dashboard_draws_its_charts_from_disk_with_the_network_off(page, analyst, demo_like,  # noqa: F811
                                                                              tmp_path, screenshots):
    out = io.StringIO()
    call_command("export_report", "--url-query", "iterations=200", "--user", analyst.username,
                 "--out", tmp_path / "report.html", stdout=out, stderr=io.StringIO())
    assert "wrote" in out.getvalue()
    text = (tmp_path / "report.html").read_text()
    # Nothing is fetched: no script or style sheet points anywhere.
    assert not re.search(r'<script[^>]*\bsrc=', text) and not re.search(r'rel="stylesheet"', text)
    page.context.set_offline(True)
    requests = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto((tmp_path / "report.html").as_uri())
    expect(page.locator("#panel-robustness .chart")).to_have_attribute("data-drawn", "1")
    panels = page.evaluate(CHART_POINTS)
    assert len(panels) >= 10
    for panel in panels:
        if panel["panel"].startswith("panel-position"):  # every scenario shown in the written order: no chart, and why
            assert panel["drawn"] is None and "No chart: " in panel["note"], panel
            continue
        assert panel["drawn"] == "1", panel["panel"]
        assert panel["traces"] and any(n > 0 for n in panel["points"]), panel["panel"]
    assert page.locator(".report-origin").inner_text().startswith("Exported from CFPD Workbench: /analysis/cfpd/")
    assert page.locator("table").count() > 0  # the tables ride with the charts
    # The filters read as exported and cannot be applied again (from disk that would only
    # reload the same figures); the site's links (CSV, other pages) are inert, jumps work.
    assert page.locator("#filters select").first.is_disabled()
    expect(page.locator("#filters button[type=submit]")).to_be_hidden()
    for link in ('a[href^="/"]', 'a[href*=".csv?"]'):
        assert page.locator(link).first.evaluate("a => getComputedStyle(a).pointerEvents") == "none", link
    assert page.locator('a[href="#contents"]').first.evaluate("a => getComputedStyle(a).pointerEvents") != "none"
    assert [url for url in requests if not url.startswith("file:")] == []
    assert page.problems == []
    page.set_viewport_size({"width": 1366, "height": 900})
    page.screenshot(path=f"{screenshots}/report-offline.png")


def test_an_exported_model_profile_draws_every_familys_chart_from_disk(
        page, live_server, analyst, demo_like, answered_territories, tmp_path, settings, screenshots):  # noqa: F811
    """A model's profile (its button beside the families' sections) as one file, opened from
    disk with the network off: each family's chart drawn, with its points."""
    from tests.journeys.test_author_browser import log_in
    from tests.analysis_app.test_model_profiles import seed_three_families

    settings.CFPD_DASHBOARD_IN_WORKER = False  # the headline figures computed by the request
    seed_three_families()
    log_in(page, live_server, analyst.username)
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(f"{live_server.url}/models/hawk/", timeout=90_000)
    expect(page.locator("form.export-report")).to_contain_text("Export report of this view")
    expect(page.locator("#family-cfpd .chart")).to_have_attribute("data-drawn", "1")
    page.screenshot(path=f"{screenshots}/report-profile-button.png",
                    clip={"x": 0, "y": 0, "width": 1366, "height": 900})

    call_command("export_report", "--page", "/models/hawk/", "--user", analyst.username,
                 "--out", tmp_path / "hawk.html", stdout=io.StringIO(), stderr=io.StringIO())
    page.context.set_offline(True)
    requests = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto((tmp_path / "hawk.html").as_uri())
    for family in ("cfpd", "borderlines", "freeform"):
        expect(page.locator(f"#family-{family} .chart")).to_have_attribute("data-drawn", "1")
        expect(page.locator(f"#family-{family} .chart .point").first).to_be_attached()  # markers, not an empty frame
    # A profile's charts are dot plots of estimates along x (figures down y): each estimate
    # with a value is a marker plotly drew.
    drawn = page.evaluate("""() => Array.from(document.querySelectorAll('.chart-panel')).map(panel => {
      const chart = panel.querySelector('.chart');
      return {panel: panel.id, estimates: chart._fullData.reduce((n, t) => n + t.x.filter(
                Number.isFinite).length, 0), markers: chart.querySelectorAll('.point').length}; })""")
    assert [p["panel"] for p in drawn] == ["family-cfpd", "family-borderlines", "family-freeform"]
    for panel in drawn:
        assert panel["estimates"] > 0 and panel["markers"] == panel["estimates"], panel
    assert page.locator(".report-origin").inner_text().startswith("Exported from CFPD Workbench: /models/hawk/")
    expect(page.locator("form.export-report")).to_have_count(0)
    expect(page.locator("#family-freeform")).to_contain_text("1 of 2")
    assert [url for url in requests if not url.startswith("file:")] == []
    assert page.problems == []
    page.screenshot(path=f"{screenshots}/report-profile-offline.png", full_page=True)


def test_a_reader_who_may_not_read_the_dashboard_gets_no_report(outsider, tmp_path):
    with pytest.raises(CommandError, match="answered 403|not allowed"):
        call_command("export_report", "--user", outsider.username, "--out", tmp_path / "r.html",
                     stderr=io.StringIO())
    with pytest.raises(CommandError, match="no active user 'nobody'"):
        call_command("export_report", "--user", "nobody", "--out", tmp_path / "r.html", stderr=io.StringIO())
    assert not (tmp_path / "r.html").exists()


def test_an_exported_territories_dashboard_draws_its_map_from_disk(page, analyst, answered_territories,  # noqa: F811
                                                                   tmp_path, screenshots):
    call_command("export_report", "--page", "/analysis/territories/", "--url-query", "iterations=200",
                 "--user", analyst.username, "--out", tmp_path / "territories.html", stdout=io.StringIO(),
                 stderr=io.StringIO())
    text = (tmp_path / "territories.html").read_text()
    assert "window.PlotlyGeoAssets = {\"topojson\":{\"world_110m\":" in text  # the shapes, given beforehand
    page.context.set_offline(True)
    page.goto((tmp_path / "territories.html").as_uri())
    expect(page.locator("#panel-map .chart")).to_have_attribute("data-drawn", "1")
    expect(page.locator("#panel-map .chart .scattergeo .point").first).to_be_attached()
    expect(page.locator("#panel-map .chart .countries path").first).to_be_attached()  # the shapes, from the file
    assert page.problems == []
    page.set_viewport_size({"width": 1366, "height": 900})
    page.locator("#panel-map").screenshot(path=f"{screenshots}/report-territories-map-offline.png")


def test_an_analyst_exports_the_filtered_dashboard_with_the_button_and_follows_it_to_the_download(
        page, live_server, analyst, demo_like, tmp_path, settings, monkeypatch, screenshots):  # noqa: F811
    """The button keeps the filters; the report is made by the worker (run here in place, as
    the suite runs the dashboard's worker) while the report's page polls and says what it is
    doing; then the download, a .zip of figures and tables."""
    import zipfile

    from formats_app import tasks
    from tests.journeys.test_author_browser import log_in

    settings.CFPD_DASHBOARD_IN_WORKER = False  # the board drawn by the request (the worker's path elsewhere)
    settings.VAR_DIR = tmp_path
    queued = []
    monkeypatch.setattr(tasks.export_report, "delay", queued.append)
    log_in(page, live_server, analyst.username)
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(f"{live_server.url}/analysis/cfpd/?iterations=200&model=dove&model=owl")
    expect(page.locator("#panel-rates .chart")).to_have_attribute("data-drawn", "1")
    button = page.locator("form.export-report")
    expect(button).to_contain_text("Export report of this view")
    page.screenshot(path=f"{screenshots}/report-button.png", clip={"x": 0, "y": 0, "width": 1366, "height": 760})
    page.check("form.export-report input[value=folder]")
    with page.expect_navigation():
        page.click("form.export-report button[type=submit]")
    assert "/reports/" in page.url
    expect(page.locator("#export-state")).to_have_text("Queued")
    expect(page.locator("#export-step")).to_have_text("waiting for the worker")
    expect(page.locator("h1")).to_have_text("Report of CFPD preferences")
    expect(page.locator(".lede code")).to_have_text("/analysis/cfpd/?iterations=200&model=dove&model=owl")
    # Every step the page shows while the worker runs, kept as the page shows it.
    page.evaluate("""() => { window.seenSteps = [];
      new MutationObserver(() => window.seenSteps.push(document.getElementById('export-step').textContent
        + ' ' + document.getElementById('export-count').textContent))
        .observe(document.getElementById('export-step'), {childList: true, characterData: true, subtree: true}); }""")
    assert len(queued) == 1
    tasks.export_report(queued.pop())  # the worker, in place; the page keeps polling meanwhile
    expect(page.locator("#export-state")).to_have_text("Ready", timeout=20_000)
    seen = page.evaluate("window.seenSteps")
    assert any(re.match(r"drawing .* \(\d+ of \d+\) \(step \d+ of \d+\)", s) for s in seen), seen
    link = page.locator("#export-download")
    expect(link).to_be_visible()
    expect(link).to_contain_text(".zip")
    page.screenshot(path=f"{screenshots}/report-ready.png", clip={"x": 0, "y": 0, "width": 1366, "height": 420})
    with page.expect_download() as download:
        link.click()
    path = tmp_path / "report.zip"
    download.value.save_as(path)
    names = zipfile.ZipFile(path).namelist()
    assert any(n.endswith("figures/01-rates.svg") for n in names) and any(n.endswith("tables/01-rates.tex")
                                                                         for n in names)
    assert page.problems == []
