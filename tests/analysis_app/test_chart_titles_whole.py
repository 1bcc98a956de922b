"""Every chart's title, axis titles and legend read whole on a phone (390 px) and a laptop
(1,366 px), in a real browser (issue 38: "Paired difference of rates (model A − model B),
9…" was cut at the right edge at 390 px). A title's text is all drawn (plotly's own
layout text, line breaks aside), and its box lies inside its figure; and the page itself is
no wider than the window (it was 456-536 px wide at 390 px).

And each chart is laid out clear: its title lies above its plot (the dyads heatmap's third
title line covered the grid's top row at 390 px), close under the figure's top (about
100 px lay blank above it, the room counted twice: plotly's automargin and dashboard.js's
taller margin), and its y tick labels inside the figure (the codified actions' long labels
were cut at its left edge).

The same on the pages beyond the three boards: a model's profile and the models'
comparison, the crisis metric's validation page, and exported reports (one HTML file,
opened from disk: the same script lays it out there)."""

import io
import re

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from tests.journeys.test_author_browser import log_in
from tests.territories_app.test_borderlines_browser import answered_territories  # noqa: F401  (fixture)
from tests.scenarios_app.test_dashboard_charts import demo_like  # noqa: F401  (fixture)
from tests.journeys.test_dashboard_first_day import worker_fills_in
from tests.crisis_app.test_crisis_dashboard import make_scores

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

# Per drawn chart, per text (title, subtitle, axis titles, legend entries): what it says,
# what plotly was asked to write, and how far its box passes the figure's edges.
TEXTS = """() => Array.from(document.querySelectorAll('.chart-panel .chart[data-drawn="1"]')).flatMap(chart => {
  const svg = chart.querySelector('.main-svg');
  if (!svg) return [];
  const s = svg.getBoundingClientRect();
  const lay = chart.layout || {};
  const asked = {'.gtitle': lay.title && lay.title.text,
                 '.gtitle-subtitle': lay.title && lay.title.subtitle && lay.title.subtitle.text};
  return ['.gtitle', '.gtitle-subtitle', '.xtitle', '.ytitle', '.legendtext'].flatMap(selector =>
    Array.from(chart.querySelectorAll(selector)).map(text => {
      const r = text.getBoundingClientRect();
      return {panel: chart.closest('.chart-panel').id, selector, text: text.textContent,
              asked: asked[selector] || null,
              over: Math.max(0, s.left - r.left, r.right - s.right, s.top - r.top, r.bottom - s.bottom),
              box: [r.left - s.left, r.top - s.top, s.right - r.right, s.bottom - r.bottom].map(Math.round)};
    }));
})"""

# Per drawn chart, the boxes, relative to its figure's top left, of its title (with its
# subtitle), its plot (the plotting area, or a map's), its legend, its y-axis title and each
# y tick label.
BOXES = """() => Array.from(document.querySelectorAll('.chart-panel .chart[data-drawn="1"]')).flatMap(chart => {
  const svg = chart.querySelector('.main-svg');
  if (!svg) return [];
  const s = svg.getBoundingClientRect();
  const box = r => ({left: r.left - s.left, top: r.top - s.top, right: r.right - s.left, bottom: r.bottom - s.top});
  const union = selector => {
    const rs = Array.from(chart.querySelectorAll(selector)).map(e => e.getBoundingClientRect())
      .filter(r => r.width && r.height);
    return rs.length ? box({left: Math.min(...rs.map(r => r.left)), top: Math.min(...rs.map(r => r.top)),
                            right: Math.max(...rs.map(r => r.right)), bottom: Math.max(...rs.map(r => r.bottom))})
                     : null;
  };
  return [{panel: chart.closest('.chart-panel').id, width: s.width,
           title: union('.gtitle, .gtitle-subtitle'), plot: union('.nsewdrag, .heatmaplayer image, .geolayer .bg rect'),
           legend: union('.legend .bg'), ytitle: union('.ytitle'),
           ticks: Array.from(chart.querySelectorAll('.ytick text')).map(t => ({text: t.textContent,
                                                                              ...box(t.getBoundingClientRect())}))}];
})"""
# How far below the figure's top a title may begin: its own padding and a little more.
TITLE_GAP = 40


def crossing(a, b):
    """How far boxes `a` and `b` lie over each other, vertically (0 if they do not meet)."""
    if not a or not b or a["right"] <= b["left"] or b["right"] <= a["left"]:
        return 0
    return max(0, min(a["bottom"], b["bottom"]) - max(a["top"], b["top"]))


def check_laid_out_clear(page, url, width, screenshots, name):
    """Faults in each chart's layout on the page drawn at `width`: a title over its plot, its
    legend or its y-axis title, far below the figure's top, a y-axis title taller than the
    plot, a y tick label past the figure's left edge.
    Saves each chart's picture (layout-<page>-<panel>-<width>.png)."""
    faults = []
    for chart in page.evaluate(BOXES):
        where = f"{url} at {width} px, {chart['panel']}"
        title, plot, legend = chart["title"], chart["plot"], chart["legend"]
        if not title or not plot:
            faults.append(f"{where}: no title ({title}) or no plot ({plot}) found")
            continue
        if crossing(title, plot) > 1:
            faults.append(f"{where}: the title {title} lies over the plot {plot}")
        if crossing(title, legend) > 1:
            faults.append(f"{where}: the title {title} lies over the legend {legend}")
        # A y-axis title is centred on the plot's height: one longer than the plot is tall
        # passed its top, towards the title (the validation page's at 390 px).
        ytitle = chart["ytitle"]
        if crossing(title, ytitle) > 1:
            faults.append(f"{where}: the title {title} lies over the y-axis title {ytitle}")
        if ytitle and (ytitle["top"] < plot["top"] - 1 or ytitle["bottom"] > plot["bottom"] + 1):
            faults.append(f"{where}: the y-axis title {ytitle} is taller than the plot {plot}")
        if title["top"] > TITLE_GAP:
            faults.append(f"{where}: {title['top']:.0f} px blank above the title")
        cut = [f"{t['text']!r} ({t['left']:.0f} px)" for t in chart["ticks"] if t["left"] < -0.5]
        if cut:
            faults.append(f"{where}: y tick labels past the figure's left edge: {', '.join(cut)}")
    for panel in page.locator(".chart-panel:has(.chart[data-drawn='1'])").all():
        shot = screenshots / f"layout-{name}-{panel.get_attribute('id')}-{width}.png"
        panel.locator(".chart").first.screenshot(path=str(shot))
    return faults


def plain(text):
    """A text without plotly's line breaks and tags, without spaces (lines are tspans)."""
    return re.sub(r"\s+", "", re.sub(r"<[^>]+>", "", text or ""))


def check_titles_whole(page, url, width, screenshots, shot):
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(url, timeout=90_000)
    for chart in page.locator(".chart-panel .chart[data-drawn]").all():
        expect(chart).to_have_attribute("data-fitted", "1", timeout=30_000)
    texts = page.evaluate(TEXTS)
    assert any(t["selector"] == ".gtitle" for t in texts), url
    cut = [t for t in texts if t["over"] > 1 or "…" in t["text"]
           or (t["asked"] and plain(t["asked"]) != plain(t["text"]))]
    page.screenshot(path=str(screenshots / shot), full_page=True)
    # Nothing wider than the window (a long Contents link, a select of long options): the
    # page never scrolls sideways; wide tables scroll inside their own box.
    wide = page.evaluate("document.documentElement.scrollWidth")
    sideways = [f"{url} at {width} px: the page is {wide} px wide"] if wide > width else []
    return sideways + [f"{url} at {width} px: {t}" for t in cut]


@pytest.mark.parametrize("width", [390, 1366])
def test_every_chart_title_reads_whole_on_every_dashboard(
        width, page, live_server, analyst, demo_like, answered_territories, monkeypatch, screenshots):  # noqa: F811
    from analysis_app import tasks

    make_scores()
    queued = []
    monkeypatch.setattr(tasks.compute_figure, "delay", queued.append)
    log_in(page, live_server, analyst.username)
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{live_server.url}/analysis/cfpd/?iterations=200")
    worker_fills_in(page, queued)
    cut, unclear = [], []
    for name, path in [("analysis", "/analysis/cfpd/?iterations=200"),
                       ("crisis", "/analysis/crisis/?iterations=200"),
                       ("territories", "/analysis/territories/?iterations=200")]:
        cut += check_titles_whole(page, live_server.url + path, width, screenshots, f"titles-{name}-{width}.png")
        unclear += check_laid_out_clear(page, live_server.url + path, width, screenshots, name)
    assert cut == [], "\n".join(cut)
    assert unclear == [], "\n".join(unclear)
    assert page.problems == []


def check_page(page, url, width, screenshots, name):
    """Every chart of the page at `url` drawn at `width`: whole and laid out clear."""
    faults = check_titles_whole(page, url, width, screenshots, f"titles-{name}-{width}.png")
    return faults + check_laid_out_clear(page, url, width, screenshots, name)


@pytest.mark.parametrize("width", [390, 1366])
def test_every_chart_title_reads_whole_on_a_profile_and_the_comparison(
        width, page, live_server, analyst, demo_like, answered_territories, settings, screenshots):  # noqa: F811
    from tests.analysis_app.test_model_profiles import seed_three_families

    settings.CFPD_DASHBOARD_IN_WORKER = False  # the headline figures computed by the request
    seed_three_families()
    log_in(page, live_server, analyst.username)
    faults = []
    for name, path in [("profile", "/models/hawk/"),
                       ("compare", "/models/compare/?model=hawk&model=dove&model=owl")]:
        faults += check_page(page, live_server.url + path, width, screenshots, name)
        # Every family's chart was there to check (a comparison of three: two differences).
        expect(page.locator(".chart-panel .chart[data-drawn='1']")).to_have_count(3)
    assert faults == [], "\n".join(faults)
    assert page.problems == []


def test_every_chart_title_reads_whole_on_the_validation_page(page, live_server, analyst, screenshots, monkeypatch):
    from analysis_app import tasks

    queued = []
    monkeypatch.setattr(tasks.compute_figure, "delay", queued.append)
    log_in(page, live_server, analyst.username)
    page.goto(f"{live_server.url}/analysis/crisis/validation/")
    for figure_id in list(queued):  # the worker, run in place (the bundled encoders)
        tasks.compute_figure(figure_id)
    faults = []
    for width in (390, 1366):
        faults += check_page(page, f"{live_server.url}/analysis/crisis/validation/", width, screenshots,
                             "validation")
        expect(page.locator(".chart-panel .chart[data-drawn='1']")).to_have_count(2)  # minilm, minilm-bf16
    assert faults == [], "\n".join(faults)
    assert page.problems == []


def test_every_chart_title_reads_whole_in_exported_reports_opened_from_disk(
        page, analyst, demo_like, answered_territories, tmp_path, screenshots):  # noqa: F811
    """Exported as one HTML file each (the CFPD, crisis and territories boards, a profile and
    a comparison), opened from disk with the network off: the file's own copy of the script
    lays its charts out as the site does, a legend under a title included."""
    from tests.analysis_app.test_model_profiles import seed_three_families

    seed_three_families()
    pages = [("report-analysis", "/analysis/cfpd/", "iterations=200"),
             ("report-crisis", "/analysis/crisis/", "iterations=200"),
             ("report-territories", "/analysis/territories/", "iterations=200"),
             ("report-profile", "/models/hawk/", ""),
             ("report-compare", "/models/compare/", "model=hawk&model=dove&model=owl")]
    for name, path, query in pages:
        call_command("export_report", "--page", path, "--url-query", query, "--user", analyst.username,
                     "--out", tmp_path / f"{name}.html", stdout=io.StringIO(), stderr=io.StringIO())
    page.context.set_offline(True)
    faults = []
    for width in (390, 1366):
        for name, _, _ in pages:
            faults += check_page(page, (tmp_path / f"{name}.html").as_uri(), width, screenshots, name)
    assert faults == [], "\n".join(faults)
    assert page.problems == []
