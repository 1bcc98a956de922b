"""export_report (issue 30): the CFPD dashboard on demo-like data written as one HTML file,
opened from disk in a real browser with the network off: every chart is drawn from the
file alone, its tables and notes are there."""

import io
import re

import pytest
from django.core.management import CommandError, call_command
from playwright.sync_api import expect

from tests.browser.test_borderlines_browser import answered_territories  # noqa: F401 (fixture)
from tests.browser.test_dashboard_charts import CHART_POINTS, demo_like  # noqa: F401 (fixture)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

SHOTS = "/work/notes/shots"


def test_an_exported_dashboard_draws_its_charts_from_disk_with_the_network_off(page, analyst, demo_like,  # noqa: F811
                                                                              tmp_path):
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
        assert panel["drawn"] == "1", panel["panel"]
        assert panel["traces"] and any(n > 0 for n in panel["points"]), panel["panel"]
    assert page.locator(".report-origin").inner_text().startswith("Exported from CFPD Workbench: /analysis/")
    assert page.locator("table").count() > 0  # the tables ride with the charts
    assert [url for url in requests if not url.startswith("file:")] == []
    assert page.problems == []
    page.set_viewport_size({"width": 1366, "height": 900})
    page.screenshot(path=f"{SHOTS}/report-offline.png")


def test_a_reader_who_may_not_read_the_dashboard_gets_no_report(outsider, tmp_path):
    with pytest.raises(CommandError, match="answered 403|not allowed"):
        call_command("export_report", "--user", outsider.username, "--out", tmp_path / "r.html",
                     stderr=io.StringIO())
    with pytest.raises(CommandError, match="no active user 'nobody'"):
        call_command("export_report", "--user", "nobody", "--out", tmp_path / "r.html", stderr=io.StringIO())
    assert not (tmp_path / "r.html").exists()


def test_an_exported_territories_dashboard_draws_its_map_from_disk(page, analyst, answered_territories,  # noqa: F811
                                                                   tmp_path):
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
    page.locator("#panel-map").screenshot(path=f"{SHOTS}/report-territories-map-offline.png")
