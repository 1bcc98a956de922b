"""The language × domain heat map and the language contrasts on the CFPD dashboard, drawn
with data in a real browser (issue 41), on `test_language_contrast_report.asked`."""

import pytest
from playwright.sync_api import expect

from tests.journeys.test_author_browser import log_in
from tests.scenarios_app.test_language_contrast_report import asked  # noqa: F401 (the fixture)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

CELLS = """(selector) => { const chart = document.querySelector(selector);
  const trace = chart._fullData[0];
  return {type: trace.type, y: Array.from(trace.y), z: trace.z.map(row => Array.from(row)),
          cells: chart.querySelectorAll('.hm, .heatmaplayer image').length}; }"""


def test_the_language_heat_map_is_drawn_with_data(page, live_server, analyst, asked, settings):  # noqa: F811
    settings.CFPD_DASHBOARD_IN_WORKER = False
    page.set_viewport_size({"width": 1366, "height": 900})
    log_in(page, live_server, analyst.username)
    page.goto(f"{live_server.url}/analysis/cfpd/?iterations=200")
    expect(page.locator("#panel-languages .chart")).to_have_attribute("data-drawn", "1")
    drawn = page.evaluate(CELLS, "#panel-languages .chart")
    # hawk's "Use of force": en 0.5 (s1 0, s2 1), zh 1.0
    assert drawn["type"] == "heatmap" and drawn["y"] == ["en", "zh"]
    assert drawn["z"] == [[0.5], [1.0]]
    assert drawn["cells"] >= 1
    expect(page.locator("#panel-languages .panel-note")).to_contain_text("pick languages in the Languages box")
    expect(page.locator("#panel-language_contrasts .chart")).to_have_attribute("data-drawn", "1")
    page.locator("#panel-languages").screenshot(path="/tmp/h41d-language-heatmap.png")
    page.locator("#panel-language_contrasts").screenshot(path="/tmp/h41d-language-contrasts.png")
    assert not page.problems, page.problems


def test_languages_by_scenario_is_drawn_in_each_languages_own_words(page, live_server, analyst, asked,  # noqa: F811
                                                                      settings):
    settings.CFPD_DASHBOARD_IN_WORKER = False
    page.set_viewport_size({"width": 1366, "height": 900})
    log_in(page, live_server, analyst.username)
    page.goto(f"{live_server.url}/analysis/cfpd/?iterations=200")
    chart = page.locator("#panel-language_scenarios .chart")
    expect(chart).to_have_attribute("data-drawn", "1")
    # The axis's tick labels are drawn as text: the Chinese opening is on the page's chart.
    expect(chart).to_contain_text("en · [Actor A] has massed troops")
    expect(chart).to_contain_text("zh · [Actor A]在与[Actor B]的边境集结了军队。")
    # s2 opens as s1 does: its rows carry its key.
    expect(chart).to_contain_text("(s2.v1:full)")
    page.locator("#panel-language_scenarios").screenshot(path="/tmp/h51-language-scenarios.png")
    assert not page.problems, page.problems
