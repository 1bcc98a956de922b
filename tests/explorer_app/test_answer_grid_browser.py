"""An analyst opens a run's grid from the run page, clicks a cell and lands on its answer (one
answer) or on the answers list filtered to the cell (two repeats); then compares the run
with the earlier run of the same benchmark and sees the changed answers side by side.
Seeded as the dashboards' browser tests are (`demo_like`: hawk asked once in an earlier
run, then hawk, dove and owl — two repeats each for dove and owl — in the demo-like run)."""

import re

import pytest
from playwright.sync_api import expect

from runs_app.models import Response, Run
from tests.journeys.test_author_browser import log_in
from tests.scenarios_app.test_dashboard_charts import demo_like  # noqa: F401  (fixture)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

def test_an_analyst_opens_a_runs_grid_clicks_cells_and_compares_two_runs(
        page, live_server, analyst, demo_like, screenshots):  # noqa: F811
    earlier, run = demo_like
    page.set_viewport_size({"width": 1366, "height": 900})
    log_in(page, live_server, analyst.username)
    page.goto(f"{live_server.url}/runs/{run.pk}/")
    with page.expect_navigation():
        page.click("#run-grid-link")
    grid = page.locator("#answer-grid")
    expect(grid).to_be_visible()
    expect(grid.locator("thead th.model-head")).to_have_text(["dove", "hawk", "owl"])
    questions = run.benchmark.questions.count()
    expect(grid.locator("tbody tr")).to_have_count(min(questions, 50))
    expect(page.locator("#grid-legend")).to_contain_text("R refusal")
    page.screenshot(path=str(screenshots / "answer-grid.png"), full_page=True)

    # hawk was asked once: its cell is one answer, and opens that answer's page
    hawk_cell = grid.locator("tbody tr").first.locator("td.cell[data-model=hawk]")
    expect(hawk_cell).to_have_attribute("data-n", "1")
    code = hawk_cell.get_attribute("data-code")
    with page.expect_navigation():
        hawk_cell.locator("a").click()
    answer_id = int(re.search(r"/answers/(\d+)/$", page.url).group(1))
    answer = Response.objects.get(pk=answer_id)
    assert (answer.run_id, answer.model.name, answer.code) == (run.pk, "hawk", code)
    expect(page.locator("h1")).to_contain_text(f"Answer {answer_id}")

    # dove answered twice: its cell opens the answers list filtered to the cell
    page.go_back()
    dove_cell = grid.locator("tbody tr").first.locator("td.cell[data-model=dove]")
    expect(dove_cell).to_have_attribute("data-n", "2")
    with page.expect_navigation():
        dove_cell.locator("a").click()
    assert "/answers/?" in page.url and "model=dove" in page.url and f"run={run.pk}" in page.url

    # compare with the earlier run, from the grid's header
    page.go_back()
    page.select_option("#grid-compare select[name=b]", str(earlier.pk))
    with page.expect_navigation():
        page.click("#grid-compare button[type=submit]")
    # run A is this run, B the earlier one: hawk's answers are matched, dove's and owl's only in A
    expect(page.locator("#compare-counts")).to_contain_text("matched")
    changed = Response.objects.filter(run=earlier).count()
    expect(page.locator("#by-model tr[data-model=hawk]")).to_be_visible()
    rows = page.locator("#changed tbody tr")
    assert rows.count() > 0
    expect(rows.first.locator("a.answer-link")).to_have_count(2)
    expect(page.locator("body")).to_contain_text("Newcomb")
    page.screenshot(path=str(screenshots / "answer-compare.png"), full_page=True)
    with page.expect_navigation():
        rows.first.locator("a.answer-link").nth(1).click()
    assert re.search(r"/answers/\d+/$", page.url)
    assert Response.objects.get(pk=int(page.url.rstrip("/").rsplit("/", 1)[1])).run_id == earlier.pk
    assert changed > 0
    assert page.problems == []


def test_runs_of_two_benchmarks_are_refused_on_the_compare_page(page, live_server, analyst, demo_like):  # noqa: F811
    earlier, run = demo_like
    from benchmarks_app.models import Benchmark
    other = Run.objects.create(benchmark=Benchmark.objects.create(name="elsewhere", family="cfpd"), status="done")
    page.set_viewport_size({"width": 1366, "height": 900})
    log_in(page, live_server, analyst.username)
    response = page.goto(f"{live_server.url}/answers/compare/?a={run.pk}&b={other.pk}")
    assert response.status == 400
    expect(page.locator("#compare-error")).to_contain_text("one benchmark")
