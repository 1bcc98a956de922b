"""The paired contrasts' forest plots of the territorial-disputes and crisis pages in a real
browser (issue 29): each drawn with data (a dot per row, zero marked), its method named,
its CSV linked; screenshots at 1366 px."""

import pytest
from playwright.sync_api import expect

from tests.journeys.test_author_browser import log_in
from tests.territories_app.test_borderlines_browser import answered_territories, two_models_two_strategies  # noqa: F401
from tests.crisis_app.test_crisis_contrast_panels import add_run_g
from tests.crisis_app.test_crisis_dashboard import make_scores

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


# The forest plot as plotly drew it: its zero line, and per trace the finite x values, the rows,
# the stars and the dark markers.
DRAWN = """(selector) => { const chart = document.querySelector(selector);
  const numbers = v => Array.from(v || []).filter(x => typeof x === 'number' && !Number.isNaN(x)).length;
  return {shapes: (chart.layout.shapes || []).map(s => [s.x0, s.x1]),
          points: chart.querySelectorAll('.scatterlayer .point').length,
          traces: chart._fullData.map(t => ({points: numbers(t.x), rows: Array.from(t.y || []).length,
                                            stars: Array.from(t.text || []).filter(x => x === '★').length,
                                            dark: Array.from((t.marker || {}).color || []).filter(c => c === '#1f2d3d').length}))}; }"""


def forest(page, key):
    expect(page.locator(f"#panel-{key} .chart")).to_have_attribute("data-drawn", "1")
    drawn = page.evaluate(DRAWN, f"#panel-{key} .chart")
    assert [0, 0] in drawn["shapes"], drawn  # zero marked
    for trace in drawn["traces"]:
        assert trace["stars"] == trace["dark"]  # the significant ones dark with ★, the others neither
    return drawn


def test_the_territories_forest_plot_is_drawn_with_data(page, live_server, analyst,
                                                       two_models_two_strategies, screenshots):  # noqa: F811
    page.set_viewport_size({"width": 1366, "height": 900})
    log_in(page, live_server, analyst.username)
    page.goto(f"{live_server.url}/analysis/territories/?iterations=200")
    drawn = forest(page, "contrasts")
    # Control − Non-control for 2 models x 2 strategies, and per strategy the two models' gap and KB CS: 8
    assert sum(t["points"] for t in drawn["traces"]) == sum(t["rows"] for t in drawn["traces"]) == 8, drawn
    assert drawn["points"] == 8
    note = page.locator("#panel-contrasts .panel-note")
    for named in ("cluster bootstrap over territories", "Miller 2024", "Benjamini–Hochberg"):
        expect(note).to_contain_text(named)
    assert page.locator("#panel-contrasts a[href*='contrasts.csv']").count() >= 1
    page.locator("#panel-contrasts").screenshot(path=str(screenshots / "famcontrasts-territories-forest.png"))

    page.select_option("select[name=adjust]", "holm")  # Holm picked in the form
    with page.expect_navigation():
        page.click("#filters button[type=submit]")
    assert "adjust=holm" in page.url
    expect(page.locator("#panel-contrasts .panel-note")).to_contain_text("Holm (family-wise error)")
    assert page.problems == []


def test_the_crisis_forest_plot_is_drawn_with_data(page, live_server, analyst, screenshots):
    add_run_g(make_scores())
    page.set_viewport_size({"width": 1366, "height": 900})
    log_in(page, live_server, analyst.username)
    page.goto(f"{live_server.url}/analysis/crisis/?iterations=200")
    drawn = forest(page, "contrasts")
    # model-a T=1 − T=0.2 and model-a − model-b at T=0.2
    assert sum(t["points"] for t in drawn["traces"]) == sum(t["rows"] for t in drawn["traces"]) == 2, drawn
    note = page.locator("#panel-contrasts .panel-note")
    for named in ("cluster bootstrap", "Miller 2024", "Benjamini–Hochberg", "sign-flip"):
        expect(note).to_contain_text(named)
    assert page.locator("#panel-contrasts a[href*='contrasts.csv']").count() >= 1
    page.locator("#panel-contrasts").screenshot(path=str(screenshots / "famcontrasts-crisis-forest.png"))
    assert page.problems == []
