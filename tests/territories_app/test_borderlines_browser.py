"""An analyst reads the territorial-disputes page in a real browser: the chart and the map
are drawn, a region filter narrows the case view."""

import io
from pathlib import Path

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from benchmarks_app.models import Benchmark, Condition, Question
from runs_app.models import LLMModel, Response, Run
from tests.journeys.test_author_browser import log_in

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

SAMPLE = Path(__file__).resolve().parents[2] / "territories_app" / "sample_borderlines"


@pytest.fixture
def answered_territories():
    return make_answered_territories()


def make_answered_territories():
    """The sample, answered by one model: always the first claimant (A) in every question."""
    call_command("import_borderlines", str(SAMPLE), stdout=io.StringIO(), stderr=io.StringIO())
    benchmark = Benchmark.objects.get(name="borderlines")
    model = LLMModel.objects.create(name="first-claimant", litellm_model="openai/x")
    run = Run.objects.create(benchmark=benchmark, status="done")
    vanilla = Condition.objects.get(name="bl-vanilla")
    Response.objects.bulk_create([
        Response(run=run, question=q, model=model, condition=vanilla, status="done", code="A", code_source="choice",
                 option_order=list(range(q.choice_count)))
        for q in Question.objects.filter(benchmark=benchmark)])
    return run


def case_territories(page):
    return set(page.eval_on_selector_all("#table-cases tbody tr", "rows => rows.map(r => r.cells[3].textContent)"))


def test_an_analyst_sees_the_scores_and_narrows_the_case_view_to_a_region(page, live_server, analyst,
                                                                         answered_territories, artifacts_dir):
    log_in(page, live_server, analyst.username)
    page.goto(f"{live_server.url}/analysis/territories/?iterations=200")
    expect(page.locator("#coverage")).to_contain_text("52 answers over 17 territories")
    expect(page.locator("#panel-control .chart")).to_have_attribute("data-drawn", "1")
    # One model x strategy: a Control and a Non-control bar drawn.
    assert page.locator("#panel-control .chart .bars .point").count() == 2
    expect(page.locator("#panel-map .chart")).to_have_attribute("data-drawn", "1")
    expect(page.locator("#panel-map .chart .scattergeo .point").first).to_be_attached()
    expect(page.locator("#panel-scores")).to_contain_text("first-claimant")
    before = case_territories(page)
    assert {"Crimea", "Spratly Islands"} <= before
    page.screenshot(path=str(artifacts_dir / "territories-dashboard.png"), full_page=False)

    page.select_option("select[name=region]", ["Europe"])
    with page.expect_navigation():
        page.click("#filters button[type=submit]")
    assert "region=Europe" in page.url
    after = case_territories(page)
    assert "Crimea" in after and "Spratly Islands" not in after and after < before
    assert page.problems == []


def test_an_outsider_is_refused(page, live_server, outsider, answered_territories):
    log_in(page, live_server, outsider.username)
    assert page.goto(f"{live_server.url}/analysis/territories/").status == 403


@pytest.fixture
def two_models_two_strategies(answered_territories):
    """A second model that names the controller wherever there is one (else the first
    claimant), under two strategies; the first model answers under bl-nationalist as well."""
    run = answered_territories
    loyal = LLMModel.objects.create(name="sides-with-controller", litellm_model="openai/y")
    first = LLMModel.objects.get(name="first-claimant")
    units = []
    for q in Question.objects.filter(benchmark=run.benchmark).select_related("borderlines"):
        detail = q.borderlines
        index = detail.claimants_en.index(detail.controller) if detail.controller in detail.claimants_en else 0
        for name in ("bl-vanilla", "bl-nationalist"):
            condition = Condition.objects.get(name=name)
            units.append(Response(run=run, question=q, model=loyal, condition=condition, status="done",
                                  code="ABCDEF"[index], code_source="choice", option_order=list(range(q.choice_count))))
        units.append(Response(run=run, question=q, model=first, condition=Condition.objects.get(name="bl-nationalist"),
                              status="done", code="A", code_source="choice", option_order=list(range(q.choice_count))))
    Response.objects.bulk_create(units)
    return run


def test_the_chart_groups_every_model_and_strategy_and_the_map_is_coloured(page, live_server, analyst,
                                                                          two_models_two_strategies, artifacts_dir):
    log_in(page, live_server, analyst.username)
    page.goto(f"{live_server.url}/analysis/territories/?iterations=200")
    expect(page.locator("#coverage")).to_contain_text("208 answers over 17 territories")  # 52 x 4
    expect(page.locator("#panel-control .chart")).to_have_attribute("data-drawn", "1")
    # Four model x strategy groups, a Control and a Non-control bar each, and the baseline drawn.
    assert page.locator("#panel-control .chart .bars .point").count() == 8
    assert page.locator("#panel-control .chart .scatterlayer .trace").count() == 1
    assert page.locator("#table-scores tbody tr").count() == 4
    # A marker per territory at its own location (all 17 of the sample have one).
    expect(page.locator("#panel-map .chart .scattergeo .point").first).to_be_attached()
    assert page.locator("#panel-map .chart .scattergeo .point").count() == 17
    page.locator("#panel-map").screenshot(path=str(artifacts_dir / "territories-map.png"))
    page.screenshot(path=str(artifacts_dir / "territories-dashboard-full.png"), full_page=True)
    assert page.problems == []
