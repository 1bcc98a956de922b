"""An analyst's first day, in a real browser: every dashboard page opens, and every chart
either draws data points or says in words why it has none (no empty axes, no bars all
at 0 %). The metric's validation page answers at once with a placeholder (its encoders
are the worker's to load) and fills in when the worker is done."""

import pytest
from playwright.sync_api import expect

from tests.journeys.test_author_browser import log_in
from tests.territories_app.test_borderlines_browser import answered_territories  # noqa: F401  (fixture)
from tests.scenarios_app.test_dashboard_charts import demo_like  # noqa: F401  (fixture)
from tests.crisis_app.test_crisis_dashboard import make_scores

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


# Per panel: whether its chart was drawn, how many numbers its traces carry (plotly's own
# `_fullData`: y or x of bars and dots, z of heatmaps, lat of map markers), its "no chart"
# sentence if any, its note, and whether it is a table by design.
PANELS = """() => Array.from(document.querySelectorAll('.chart-panel')).map(panel => {
  const chart = panel.querySelector('.chart');
  const numbers = v => Array.from(v || []).flatMap(x => (x && typeof x === 'object') ? Array.from(x) : [x])
    .filter(x => typeof x === 'number' && !Number.isNaN(x)).length;
  const empty = panel.querySelector('.empty-note');
  return {panel: panel.id, drawn: chart ? chart.dataset.drawn || '' : null,
          points: chart && chart._fullData ? chart._fullData.map(t => Math.max(numbers(t.z), numbers(t.y),
                                                                              numbers(t.x), numbers(t.lat))) : [],
          empty: empty ? empty.textContent : '', note: (panel.querySelector('.panel-note') || {}).textContent || '',
          table_only: !chart && !empty};
})"""
TABLES = {"panel-scores", "panel-cases", "panel-summary", "panel-groups"}


def worker_fills_in(page, queued):
    """The worker, run in place, builds the boards the page asked for; the page polls,
    reloads by itself and draws its charts (before the test goes on: a navigation while
    plotly loads is a failed request)."""
    from analysis_app import tasks

    expect(page.locator("#computing")).to_contain_text("Computing…")
    while queued:
        tasks.compute_figure(queued.pop(0))
    expect(page.locator("#computing")).to_have_count(0, timeout=15_000)
    expect(page.locator("#panel-rates .chart")).to_have_attribute("data-drawn", "1", timeout=30_000)


def check_every_chart(page, url, expect_sentences=()):
    """Open `url`; every panel draws points or says why not. Returns the panels."""
    page.goto(url, timeout=90_000)  # a cold build on a loaded 2-core machine: not what this test measures
    for chart in page.locator(".chart-panel .chart").all():
        expect(chart).to_have_attribute("data-drawn", "1")
    panels = page.evaluate(PANELS)
    assert panels, url
    for panel in panels:
        name = panel["panel"]
        if panel["table_only"]:
            assert name in TABLES, f"{url} {name}: neither a chart nor a sentence"
            continue
        if panel["drawn"] is None:  # no chart: a sentence in words says why
            assert "No chart" in panel["empty"], f"{url} {name}"
            assert "No chart:" in panel["note"], f"{url} {name}: the note does not say why: {panel['note']}"
        else:
            assert any(n > 0 for n in panel["points"]), f"{url} {name}: drawn without data {panel['points']}"
    for panel_id, sentence in expect_sentences:
        expect(page.locator(f"#{panel_id} .panel-note")).to_contain_text(sentence)
    assert page.problems == []
    return {p["panel"]: p for p in panels}


def test_an_analyst_opens_every_dashboard_and_every_chart_shows_data_or_says_why_not(
        page, live_server, analyst, demo_like, answered_territories, monkeypatch, screenshots):  # noqa: F811
    from analysis_app import tasks
    from crisis_app import validation_report
    from crisis_app.bertscore_scorer import EncoderNotAvailable

    make_scores()
    queued = []
    monkeypatch.setattr(tasks.compute_figure, "delay", queued.append)
    log_in(page, live_server, analyst.username)

    # The CFPD board is the worker's to build: a placeholder, then the page fills in by itself.
    page.goto(f"{live_server.url}/analysis/cfpd/?iterations=200")
    expect(page.locator("#computing")).to_contain_text("Computing…")
    page.screenshot(path=str(screenshots / "first-day-analysis-computing.png"), full_page=True)
    worker_fills_in(page, queued)
    cfpd = check_every_chart(page, f"{live_server.url}/analysis/cfpd/?iterations=200")
    assert {"panel-rates", "panel-actions", "panel-differences", "panel-refusals"} <= set(cfpd)
    assert cfpd["panel-refusals"]["drawn"] == "1"  # dove and owl refuse now and then
    page.screenshot(path=str(screenshots / "first-day-analysis.png"), full_page=True)

    # Hawk alone never refuses: the refusal panels say so instead of bars at 0 %.
    page.goto(f"{live_server.url}/analysis/cfpd/?iterations=200&model=hawk")
    worker_fills_in(page, queued)
    hawk = check_every_chart(page, f"{live_server.url}/analysis/cfpd/?iterations=200&model=hawk",
                             [("panel-refusals", "no model refused any"),
                              ("panel-refusals_by_country", "no model refused any")])
    assert hawk["panel-refusals"]["drawn"] is None and hawk["panel-refusals_by_country"]["drawn"] is None

    crisis = check_every_chart(page, f"{live_server.url}/analysis/crisis/?iterations=200")
    assert crisis["panel-curve"]["drawn"] == "1" and crisis["panel-boxes"]["drawn"] == "1"

    territories = check_every_chart(page, f"{live_server.url}/analysis/territories/?iterations=200")
    assert territories["panel-map"]["drawn"] == "1" and territories["panel-control"]["drawn"] == "1"
    # The map marks the territories themselves: the Scarborough Shoal is a marker of its own.
    expect(page.locator("#panel-map .chart .scattergeo .point").first).to_be_attached()
    assert page.locator("#panel-map .chart .scattergeo .point").count() == 17
    page.screenshot(path=str(screenshots / "first-day-territories.png"), full_page=True)

    unknown = check_every_chart(page, f"{live_server.url}/analysis/territories/?iterations=200&unknown=1",
                                [("panel-control", "no territory in this filter has a known controller")])
    assert unknown["panel-control"]["drawn"] is None

    # The validation page answers at once: its encoders are the worker's to load.
    def unavailable(name):
        raise EncoderNotAvailable(f"no {name} encoder in this test")

    monkeypatch.setattr(validation_report, "load_scorer", unavailable)
    page.goto(f"{live_server.url}/analysis/crisis/validation/", timeout=90_000)
    expect(page.locator("#panel-minilm")).to_contain_text("Computing…")
    assert len(queued) == 3
    for figure_id in queued:  # the worker, run in place
        tasks.compute_figure(figure_id)
    # The page polls and fills in by itself.
    expect(page.locator("#panel-minilm")).to_contain_text("Not available on this machine: no minilm encoder",
                                                          timeout=10_000)
    expect(page.locator("#figures-waiting")).to_have_count(0)
    assert page.problems == []
