"""The contrasts' forest plot and the flip view in a real browser, on the demo-like answers
of tests/scenarios_app/test_dashboard_charts.py: both drawn with data, their methods named, their
CSV links there; screenshots at 1366 px."""

import pytest
from playwright.sync_api import expect

from tests.journeys.test_author_browser import log_in
from tests.scenarios_app.test_dashboard_charts import demo_like  # noqa: F401 (the fixture)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


# Per trace of a chart as plotly drew it: its name and how many finite numbers it plots
# (x of the forest plot's horizontal dots, y of the flip view's bars).
DRAWN = """([selector, axis]) => { const chart = document.querySelector(selector);
  const numbers = v => Array.from(v || []).filter(x => typeof x === 'number' && !Number.isNaN(x)).length;
  return {drawn: chart.dataset.drawn, shapes: (chart.layout.shapes || []).map(s => [s.x0, s.x1]),
          traces: chart._fullData.map(t => ({name: t.name, points: numbers(t[axis]),
                                            rows: Array.from(t.y || []).length,
                                            stars: Array.from(t.text || []).filter(x => x === '★').length,
                                            dark: Array.from((t.marker || {}).color || []).filter(c => c === '#1f2d3d').length}))}; }"""


def test_the_forest_plot_and_the_flip_view_are_drawn_with_data(page, live_server, analyst, demo_like,  # noqa: F811
                                                             settings, screenshots):
    settings.CFPD_DASHBOARD_IN_WORKER = False
    page.set_viewport_size({"width": 1366, "height": 900})
    log_in(page, live_server, analyst.username)
    page.goto(f"{live_server.url}/analysis/cfpd/?iterations=200")
    expect(page.locator("#panel-contrasts .chart")).to_have_attribute("data-drawn", "1")
    forest = page.evaluate(DRAWN, ["#panel-contrasts .chart", "x"])
    assert [0, 0] in forest["shapes"]  # zero marked
    assert sum(t["points"] for t in forest["traces"]) == sum(t["rows"] for t in forest["traces"]) >= 10, forest
    for trace in forest["traces"]:  # the significant ones dark with ★, the others neither
        assert trace["stars"] == trace["dark"]
    expect(page.locator("#panel-contrasts .panel-note")).to_contain_text("cluster bootstrap over scenarios")
    expect(page.locator("#panel-contrasts .panel-note")).to_contain_text("Benjamini–Hochberg")
    expect(page.locator("#panel-contrasts .panel-note")).to_contain_text("Miller 2024")
    page.locator("#panel-contrasts").screenshot(path=str(screenshots / "stats-forest-plot.png"))

    expect(page.locator("#panel-flips .chart")).to_have_attribute("data-drawn", "1")
    flips = page.evaluate(DRAWN, ["#panel-flips .chart", "y"])
    assert {t["name"] for t in flips["traces"]} == {"hawk", "dove", "owl"}
    assert all(t["points"] == 1 for t in flips["traces"])
    expect(page.locator("#panel-flips .panel-note")).to_contain_text("only in the advised state")
    page.locator("#panel-flips details").first.click()  # the flipped pairs, side by side
    expect(page.locator("#panel-flips table")).to_contain_text("left_answer")
    page.locator("#panel-flips").screenshot(path=str(screenshots / "stats-flip-view.png"))
    for key in ("contrasts", "flips"):
        assert page.locator(f"#panel-{key} a[href*='{key}.csv']").count() >= 1, key
    assert page.problems == []
