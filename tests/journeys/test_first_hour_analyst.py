"""An analyst's first hour, in a real browser (issue 38), on the demo-like answers of
tests/scenarios_app/test_dashboard_charts.py: the answers explorer is in the bar; a word of a
question (`blockade`) is found once the page offers to search the questions, and the page
says where it looked; the dashboard's Jump-to contents never cover a chart or a note while
scrolling, at 1,366 and 390 px, on the site and in an exported report; the forest plot's
title, its key (a subtitle) and its axis title lie inside the figure.""" 

import io

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from tests.journeys.test_author_browser import log_in
from tests.scenarios_app.test_dashboard_charts import demo_like  # noqa: F401 (the fixture)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

WIDTHS = [(1366, 900), (390, 844)]

# The contents' box and every chart's and note's box as the window shows them now: those
# the contents lie over (their sections' ids), and whether the contents are in view.
OVERLAPS = """() => {
  const nav = document.querySelector('nav.contents').getBoundingClientRect();
  const hits = [];
  for (const el of document.querySelectorAll('.chart-panel .chart, .chart-panel .panel-note, .chart-panel h2')) {
    const r = el.getBoundingClientRect();
    if (r.width && r.height && nav.left < r.right && r.left < nav.right && nav.top < r.bottom && r.top < nav.bottom)
      hits.push(el.closest('section').id + ' ' + el.className);
  }
  return {hits, nav: [nav.left, nav.top, nav.right, nav.bottom], inView: nav.bottom > 0 && nav.top < innerHeight};
}"""

# The forest plot as plotly drew it: the figure's box, its title's, its x-axis title's, and
# the top of the plotting area.
FOREST = """() => {
  const chart = document.querySelector('#panel-contrasts .chart');
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const svg = chart.querySelector('.main-svg');
  return {svg: box(svg), title: box(chart.querySelector('.gtitle')), xtitle: box(chart.querySelector('.xtitle')),
          subtitle: box(chart.querySelector('.gtitle-subtitle')),
          subtitleText: chart.querySelector('.gtitle-subtitle').textContent,
          plotTop: svg.getBoundingClientRect().top + chart._fullLayout._size.t,
          titleText: chart.querySelector('.gtitle').textContent, xtitleText: chart.querySelector('.xtitle').textContent};
}"""


def assert_contents_cover_nothing(page, width):
    """Scrolled to each panel in turn (its top, then half-way through it): no chart, note or
    heading under the contents."""
    panels = page.locator(".chart-panel")
    assert panels.count() >= 10
    for i in range(panels.count()):
        for share in (0.0, 0.5):
            page.evaluate("([i, share]) => { const p = document.querySelectorAll('.chart-panel')[i];"
                          " window.scrollTo(0, p.getBoundingClientRect().top + scrollY + share * p.offsetHeight); }",
                          [i, share])
            found = page.evaluate(OVERLAPS)
            assert found["hits"] == [], (width, i, share, found)
    return found


def assert_forest_fits(page, width):
    expect(page.locator("#panel-contrasts .chart")).to_have_attribute("data-fitted", "1")
    forest = page.evaluate(FOREST)
    left, top, right, bottom = forest["svg"]
    for name in ("title", "subtitle", "xtitle"):
        x0, y0, x1, y1 = forest[name]
        assert left - 1 <= x0 and x1 <= right + 1 and top - 1 <= y0 and y1 <= bottom + 1, (width, name, forest)
    # The title, then the key, above the plot, not over it.
    assert forest["title"][3] <= forest["subtitle"][1] + 1 and forest["subtitle"][3] <= forest["plotTop"] + 1, \
        (width, forest)
    # Whole, not cut (a text's lines join with no space between them).
    assert forest["titleText"].replace(" ", "").endswith("over2+scenarios"), forest["titleText"]
    assert "significantafterBenjamini–Hochberg" in forest["subtitleText"].replace(" ", ""), forest["subtitleText"]


def test_the_explorer_is_in_the_bar_and_a_question_word_is_found(page, live_server, analyst, demo_like,  # noqa: F811
                                                               screenshots):
    page.set_viewport_size({"width": 1366, "height": 900})
    log_in(page, live_server, analyst.username)
    link = page.locator(".topbar nav a", has_text="Answers")
    expect(link).to_have_attribute("href", "/answers/")
    link.click()
    expect(page.locator("h1")).to_have_text("Answers")
    page.screenshot(path=str(screenshots / "first-hour-analyst-bar.png"), clip={"x": 0, "y": 0, "width": 1366,
                                                                                  "height": 420})

    # "blockade" is a word of a question (an option: "Blockade China's ports"), of no output.
    page.fill("#answer-search", "blockade")
    with page.expect_navigation():
        page.click("#answer-filters button[type=submit]")
    empty = page.locator("#answer-list-empty")
    expect(empty).to_contain_text("No answers match “blockade” in the answers' outputs")
    page.screenshot(path=str(screenshots / "first-hour-analyst-search-outputs.png"), full_page=True)
    with page.expect_navigation():
        page.click("#search-elsewhere")
    expect(page.locator("#search-in input[value=questions]")).to_be_checked()
    expect(page.locator("#answer-pager")).to_contain_text("“blockade” searched in the questions")
    rows = page.locator("#answer-table tbody tr")
    expect(rows.first).to_be_visible()
    assert rows.count() >= 10
    for key in page.locator("#answer-table td.key").all_text_contents():
        assert "esc3-strait" in key, key  # the three-option strait scenario, where the blockade is an option
    page.screenshot(path=str(screenshots / "first-hour-analyst-search-questions.png"), full_page=True)
    assert page.problems == []


def test_the_contents_never_cover_a_chart_and_the_forest_title_fits(page, live_server, analyst,
                                                                   demo_like, settings, screenshots):  # noqa: F811
    settings.CFPD_DASHBOARD_IN_WORKER = False  # the board built by the request
    log_in(page, live_server, analyst.username)
    for width, height in WIDTHS:
        page.set_viewport_size({"width": width, "height": height})
        page.goto(f"{live_server.url}/analysis/cfpd/?iterations=200")
        expect(page.locator("#panel-robustness .chart")).to_have_attribute("data-drawn", "1")
        found = assert_contents_cover_nothing(page, width)
        if width > 1000:  # a column of its own, still in view far down the page
            assert found["inView"], found
        page.locator("#panel-contrasts").scroll_into_view_if_needed()
        page.evaluate("() => window.scrollBy(0, -40)")
        page.screenshot(path=str(screenshots / f"first-hour-analyst-dashboard-{width}.png"))
        assert_forest_fits(page, width)
        page.locator("#panel-contrasts").screenshot(path=str(screenshots / f"first-hour-analyst-forest-{width}.png"))
    assert page.problems == []


def test_an_exported_report_keeps_the_contents_off_the_charts(page, analyst, demo_like, tmp_path,  # noqa: F811
                                                             screenshots):
    call_command("export_report", "--url-query", "iterations=200", "--user", analyst.username,
                 "--out", tmp_path / "report.html", stdout=io.StringIO(), stderr=io.StringIO())
    for width, height in WIDTHS:
        page.set_viewport_size({"width": width, "height": height})
        page.goto((tmp_path / "report.html").as_uri())
        expect(page.locator("#panel-robustness .chart")).to_have_attribute("data-drawn", "1")
        assert_contents_cover_nothing(page, width)
        assert_forest_fits(page, width)
        page.locator("#panel-differences").scroll_into_view_if_needed()
        page.screenshot(path=str(screenshots / f"first-hour-analyst-report-{width}.png"))
    assert page.problems == []
