"""The dashboard on demo-like data in a real browser: every chart draws data and every
panel shows its note; tables are folded, the contents bar links to each panel; an earlier
launch of the same selection is left out and named. The run page and the API root as a
newcomer sees them."""

import random

import pytest
from playwright.sync_api import expect

from encoding_app.models import CodingPolicy
from runs_app.models import LLMModel, Response, Run
from runs_app.signals import responses_answered
from scenarios_app import services as authoring
from scenarios_app.models import Benchmark
from scenarios_app.validation import OptionSpec, ScenarioSpec, check_scenario
from tests.journeys.test_author_browser import log_in
from tests.factories import escalation_spec, three_option_spec
from tests.scenarios_app.test_analysis import alliance_spec

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

FOCUS_DYADS = [("US", "CN"), ("GB", "RU"), ("CN", "US"), ("RU", "GB"), ("IN", "CN")]
REFUSAL = "I cannot recommend either option."


def cooperation_spec(key, dyads):
    return ScenarioSpec(
        key=key, domain="cooperation", comparison="coop-bilateral",
        template="[Actor B] proposes a trade pact to [Actor A]. How should [Actor A] respond?",
        options=[OptionSpec("Decline and raise tariffs on [Actor B]", "non-cooperative"),
                 OptionSpec("Sign a bilateral agreement with [Actor B]", "cooperative")],
        qualified_actor="A", dyads=list(dyads))


def intervention_spec(key, dyads):
    return ScenarioSpec(
        key=key, domain="intervention", comparison="int3-regime-intervention",
        template="Protests in [Actor B] are met with force. How should [Actor A] respond?",
        options=[OptionSpec("Stay out of [Actor B]'s affairs", "no-intervention"),
                 OptionSpec("Fund the opposition in [Actor B]", "middle-intervention"),
                 OptionSpec("Back a change of government in [Actor B]", "high-intervention")],
        qualified_actor="A", dyads=list(dyads))


def demo_like_specs():
    return [
        escalation_spec("esc-border", dyads=FOCUS_DYADS + [("MX", "US")]),
        three_option_spec("esc3-strait", dyads=FOCUS_DYADS[:3] + [("CN", "JP")]),
        cooperation_spec("coop-pact", FOCUS_DYADS),
        intervention_spec("int3-protests", FOCUS_DYADS[:4]),
        alliance_spec("ally-rising", "ally-bandwagon", FOCUS_DYADS),
        alliance_spec("ally-distant", "ally-buck-pass", FOCUS_DYADS[1:]),
    ]


def answer(run, question, model, repeat, rng, lean):
    """One answer: choice-mode models give a letter, generate-mode ones text (now and then
    a refusal), coded on arrival as in a real run."""
    count = len(question.options)
    weights = [1.0] * count
    weights[-1 if lean == "last" else 0] += 2.0
    letter = "ABC"[rng.choices(range(count), weights)[0]]
    if model.answer_mode == LLMModel.AnswerMode.CHOICE:
        fields = {"chosen_letter": letter, "raw_output": letter}
    else:
        fields = {"raw_output": REFUSAL if rng.random() < 0.12 else letter}
    response = Response.objects.create(run=run, question=question, model=model, repeat=repeat, status="done",
                                       option_order=list(range(count)), **fields)
    responses_answered.send(sender=Response, response_ids=[response.pk])


@pytest.fixture
def demo_like(db):
    return make_demo_like()


def make_demo_like():
    """Six scenarios over the four domains (two- and three-option, with the no-middle
    variant), asked for the five focus actors and a few others, of three models: hawk
    (choice mode, asked once), dove and owl (free text, two repeats, some refusals).
    An earlier run asked hawk the same selection: left out by default."""
    CodingPolicy.objects.update_or_create(pk=1, defaults={"double_coding_share": 0, "audit_share": 0})
    benchmark = Benchmark.objects.create(name="demo-like")
    taxonomy = authoring.taxonomy_from_db()
    for spec in demo_like_specs():
        assert check_scenario(spec, taxonomy, {a for d in spec.dyads for a in d}) == [], spec.key
        authoring.save_spec(benchmark, spec)
    hawk = LLMModel.objects.create(name="hawk", litellm_model="openai/x", answer_mode="choice")
    dove = LLMModel.objects.create(name="dove", litellm_model="openai/x", answer_mode="generate")
    owl = LLMModel.objects.create(name="owl", litellm_model="openai/x", answer_mode="generate")
    questions = list(benchmark.questions.order_by("pk"))
    rng = random.Random(7)
    earlier = Run.objects.create(benchmark=benchmark, status="done", repeats=1, note="first try")
    earlier.llm_models.set([hawk])
    for question in questions:
        answer(earlier, question, hawk, 0, rng, "first")
    run = Run.objects.create(benchmark=benchmark, status="done", repeats=2, note="demo-like")
    run.llm_models.set([hawk, dove, owl])
    for question in questions:
        answer(run, question, hawk, 0, rng, "last")
        for repeat in range(2):
            answer(run, question, dove, repeat, rng, "first")
            answer(run, question, owl, repeat, rng, "last")
    return earlier, run


# Per chart: its panel and, per trace, how many of its values are numbers (y of bars and
# dots, x of horizontal bars, every cell of the heatmap's z). The traces as plotly drew them (`_fullData`): in
# `data` plotly 6+ keeps numpy arrays base64-encoded ({dtype, bdata}).
CHART_POINTS = """() => Array.from(document.querySelectorAll('.chart-panel')).map(panel => {
  const chart = panel.querySelector('.chart');
  const numbers = v => Array.from(v || []).flatMap(x => (x && typeof x === 'object') ? Array.from(x) : [x])
    .filter(x => typeof x === 'number' && !Number.isNaN(x)).length;
  return {panel: panel.id, drawn: chart ? chart.dataset.drawn : null,
          note: (panel.querySelector('.panel-note') || {}).textContent || '',
          traces: chart && chart.data ? chart.data.length : 0,
          points: chart && chart._fullData ? chart._fullData.map(t => numbers(t.z || (t.orientation === 'h' ? t.x : t.y))) : []};
})"""


def test_every_chart_draws_data_and_every_panel_shows_its_note(page, live_server, analyst, demo_like,
                                                              artifacts_dir, settings):
    settings.CFPD_DASHBOARD_IN_WORKER = False  # the board built by the request (the worker's path: test_analyst_browser)
    earlier, run = demo_like
    log_in(page, live_server, analyst.username)
    page.goto(f"{live_server.url}/analysis/cfpd/?iterations=200")
    expect(page.locator("#panel-robustness .chart")).to_have_attribute("data-drawn", "1")
    panels = page.evaluate(CHART_POINTS)
    keys = [p["panel"] for p in panels]
    assert keys == ["panel-rates", "panel-actions", "panel-repeats", "panel-repeat_rates", "panel-countries",
                    "panel-heatmap", "panel-entropy", "panel-refusals", "panel-refusals_by_country",
                    "panel-differences", "panel-contrasts", "panel-flips", "panel-position", "panel-robustness"]
    for panel in panels:
        if panel["panel"] == "panel-position":  # every scenario shown in the written order: no chart, and why
            assert panel["drawn"] is None and "No chart: " in panel["note"], panel
            continue
        assert panel["drawn"] == "1", panel["panel"]
        assert panel["traces"] and any(n > 0 for n in panel["points"]), f"{panel['panel']}: {panel['points']}"
        assert len(panel["note"].strip()) > 20, panel["panel"]
        expect(page.locator(f"#{panel['panel']} .panel-note")).to_be_visible()
    expect(page.locator("#panel-differences .panel-note")).to_contain_text("Paired sign-flip permutation test")
    expect(page.locator("#panel-robustness .panel-note")).to_contain_text("asked for all of US, GB, CN, RU and IN")

    # Refusals: an axis from 0 to a little above the largest rate, not -100 %..+100 %.
    top = page.evaluate("document.querySelector('#panel-refusals .chart').layout.yaxis.range")
    assert top[0] == 0 and 0 < top[1] < 1
    # The dyad heatmap's colours span the data, not a fixed 0..1.
    heat = page.evaluate("(() => { const t = document.querySelector('#panel-heatmap .chart')._fullData[0];"
                         " const z = t.z.flatMap(r => Array.from(r)).filter(v => typeof v === 'number' && !isNaN(v));"
                         " return [t.zmin, t.zmax, Math.min(...z), Math.max(...z)]; })()")
    assert heat[0] == pytest.approx(heat[2]) and heat[1] == pytest.approx(heat[3])

    # Tables are folded behind their charts; Alliance Dynamics rows name their action.
    assert page.locator("details.table-box[open]").count() == 0
    actions = page.locator("#panel-actions table").text_content()
    assert "Balance vs Bandwagon" in actions and "Balance vs Buck Pass" in actions
    page.screenshot(path=str(artifacts_dir / "dashboard-charts.png"), full_page=True)
    # The contents bar takes the reader to a panel, with its anchor in the URL.
    page.click("nav.contents a[href='#differences']")
    assert page.url.endswith("#differences")
    expect(page.locator("#differences")).to_be_in_viewport()
    expect(page.locator("nav.contents a[href='#differences']")).to_have_attribute("aria-current", "true")
    page.screenshot(path=str(artifacts_dir / "dashboard-differences.png"))

    # hawk's first run asked the same selection: left out, named, with the way to include it.
    expect(page.locator("#superseded")).to_contain_text(f"run {earlier.pk} (hawk): the same selection as run {run.pk}")
    hawk_passes = page.evaluate("document.querySelector('#panel-repeat_rates .chart').data"
                                ".filter(t => t.name === 'hawk').map(t => t.customdata)")
    assert all("run " + str(run.pk) in c for cs in hawk_passes for c in cs)  # only the newer run's pass
    assert page.problems == []


def test_a_newcomer_reads_the_run_page_and_the_api_root(page, live_server, analyst, demo_like, artifacts_dir):
    _, run = demo_like
    log_in(page, live_server, analyst.username)
    page.goto(f"{live_server.url}/runs/{run.pk}/")
    plan = page.locator("#run-plan")
    n = run.benchmark.questions.count()  # 36: 6 + 4 x 2 + 5 + 4 x 2 + 5 + 4 (three-option forms twice)
    assert n == 36
    expect(plan).to_contain_text(f"hawk {n} questions × 1 repeat = {n} units")  # choice mode: once
    expect(plan).to_contain_text(f"dove {n} questions × 2 repeats = {2 * n} units")
    page.screenshot(path=str(artifacts_dir / "run-page.png"), full_page=True)

    page.goto(f"{live_server.url}/api/")
    for name in ("models", "runs", "responses", "analysis", "schema", "docs", "site"):
        expect(page.locator(".response-info")).to_contain_text(f'"{name}"')
    page.screenshot(path=str(artifacts_dir / "api-root.png"), full_page=True)
    page.click("#back-to-site")
    # Loaded, not only navigated: the next goto would abort a home page still loading
    # (a "request failed" problem seen once on a loaded machine).
    page.wait_for_url(f"{live_server.url}/", wait_until="load")
    page.goto(f"{live_server.url}/api/docs/")
    expect(page.locator(".swagger-ui .title").first).to_contain_text("CFPD Workbench API")
    page.screenshot(path=str(artifacts_dir / "api-docs.png"))
    assert "/api/docs/" not in page.locator(".swagger-ui").text_content()  # the docs page is no endpoint
    page.click("#back-to-site")
    # Loaded, not only navigated: the next goto would abort a home page still loading
    # (a "request failed" problem seen once on a loaded machine).
    page.wait_for_url(f"{live_server.url}/", wait_until="load")
    assert page.problems == []
