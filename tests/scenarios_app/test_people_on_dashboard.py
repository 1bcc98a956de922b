"""Panels of people on the CFPD dashboard (issue 40): beside the models, labelled as people,
their rates a hand count, their intervals clustered by respondent and scenario, respondents
who failed an attention check left out, and never a row of a model's figures."""

import pytest
from django.urls import reverse
from django.utils import timezone

from encoding_app.models import CodingPolicy
from panels_app.models import Panel, PanelAnswer, PanelQuestion, Respondent
from runs_app.models import LLMModel, Run
from scenarios_app import services as authoring
from scenarios_app.analysis import dashboard
from scenarios_app.analysis.tidy_query import AnalysisFilter
from scenarios_app.models import Benchmark
from tests.conftest import PASSWORD
from tests.factories import escalation_spec
from tests.scenarios_app.test_contrast_report import _answer

pytestmark = pytest.mark.django_db

F, N = "Use of force", "No use of force"
Z = 1.959963984540054  # scipy.stats.norm.ppf(0.975)


@pytest.fixture(autouse=True)
def board_built_in_the_request(settings):
    settings.CFPD_DASHBOARD_IN_WORKER = False


def _respond(panel, choices, failed_checks=0):
    """choices: {question: canonical letter} (A = No use of force, B = Use of force)."""
    respondent = Respondent.objects.create(panel=panel, token=f"t{Respondent.objects.count()}-{panel.pk}",
                                           failed_checks=failed_checks, consented_at=timezone.now())
    for position, (question, letter) in enumerate(choices.items()):
        PanelAnswer.objects.create(respondent=respondent, position=position, question=question, code=letter,
                                   chosen_letter=letter, answered_at=timezone.now())
    return respondent


@pytest.fixture
def people():
    """Benchmark b: three two-option escalation scenarios s1-s3, each asked with US advised against RU.

    hawk (a model): Use of force in s1 and s2, No use of force in s3.
    Panel "IR scholars": r1 and r2 choose Use of force in all three, r3 No use of force in all
    three; r4 failed an attention check and chose No use of force in all three (left out).
    """
    CodingPolicy.objects.update_or_create(pk=1, defaults={"double_coding_share": 0, "audit_share": 0})
    benchmark = Benchmark.objects.create(name="b")
    for key in ("s1", "s2", "s3"):
        authoring.save_spec(benchmark, escalation_spec(key=key, dyads=[("US", "RU")]))
    hawk = LLMModel.objects.create(name="hawk", litellm_model="openai/x", answer_mode="choice")
    run = Run.objects.create(benchmark=benchmark, status="done")
    _answer(run, hawk, benchmark, {("s1", "US"): "B", ("s2", "US"): "B", ("s3", "US"): "A"})
    questions = list(benchmark.questions.order_by("cfpd__scenario__key"))
    panel = Panel.objects.create(name="IR scholars", stands_for="IR scholars, US", benchmark=benchmark,
                                 consent_text="You agree.")
    PanelQuestion.objects.bulk_create(PanelQuestion(panel=panel, question=q) for q in questions)
    for letter in ("B", "B", "A"):
        _respond(panel, {q: letter for q in questions})
    _respond(panel, {q: "A" for q in questions}, failed_checks=1)
    return run


def _one(table, **keys):
    for column, value in keys.items():
        table = table[table[column] == value]
    assert len(table) == 1, table
    return table.iloc[0]


def test_the_panels_rates_are_a_hand_count_with_intervals_clustered_by_respondent(people):
    board = dashboard.build(AnalysisFilter(runs=(people.pk,)), iterations=200)
    table = board.panels["people"].table
    label = "People: IR scholars (3 respondents)"  # r4 left out: failed an attention check
    force = _one(table, source="people", who=label, category=F)
    # Use of force: s1 2/3, s2 2/3, s3 2/3 (r1, r2 of r1-r3; r4 not counted: with r4 it would be 2/4)
    # -> mean over scenarios 2/3; 9 answers, 3 respondents, 3 scenarios.
    assert force["rate"] == pytest.approx(2 / 3)
    assert (force["n_answers"], force["n_respondents"], force["n_scenarios"]) == (9, 3, 3)
    assert hawk_row_has_no_people_counts(table)
    # Two-way clustered SE (tests/analysis_app/test_stats_two_way.py, the same case): 2/9.
    # ci_low = 2/3 - 1.96 · 2/9 = 0.2311; the answers taken as independent (SE sqrt(2/81)) give
    # 2/3 - 1.96 · 0.1571 = 0.3587, clustered by scenario alone (SE 0) 2/3: both would fail here.
    assert force["ci_low"] == pytest.approx(2 / 3 - Z * 2 / 9)
    assert force["ci_high"] == 1.0  # 2/3 + 0.4355 cut at 1
    no_force = _one(table, source="people", who=label, category=N)
    assert no_force["rate"] == pytest.approx(1 / 3)
    assert (no_force["ci_low"], no_force["ci_high"]) == (0.0, pytest.approx(1 / 3 + Z * 2 / 9))
    assert force["interval"] == "clustered by respondent and scenario"
    # The model beside them, as the rates panel has it: hawk, Use of force 2 of 3 scenarios.
    hawk = _one(table, source="model", who="hawk", category=F)
    assert hawk["rate"] == pytest.approx(2 / 3) and hawk["interval"] == "bootstrap over scenarios"
    assert "left out (1 respondent of the panels shown)" in board.panels["people"].note


def test_people_are_never_in_a_models_figures(people):
    board = dashboard.build(AnalysisFilter(runs=(people.pk,)), iterations=200)
    assert board.models == ["hawk"]
    for key, panel in board.panels.items():
        if key != "people" and "model" in panel.table:
            assert not panel.table["model"].astype(str).str.startswith("People").any(), key
    names = [trace["name"] for trace in board.panels["people"].figure["data"]]
    assert names == ["hawk", "People: IR scholars (3 respondents)"]
    people_bar = board.panels["people"].figure["data"][1]
    assert people_bar["marker"]["pattern"]["shape"] == "/"  # hatched: never read as a model's bar


def test_a_filter_narrows_people_and_without_panels_there_is_no_people_panel(people):
    assert "people" not in dashboard.build(AnalysisFilter(runs=(people.pk,), domains=("crisis",)),
                                           iterations=200).panels
    Panel.objects.all().delete()
    assert "people" not in dashboard.build(AnalysisFilter(runs=(people.pk,)), iterations=200).panels


def test_the_page_shows_the_panel_labelled_as_people_and_a_new_answer_moves_it(client, analyst, people):
    assert client.login(username=analyst.username, password=PASSWORD)
    html = client.get(reverse("analysis-dashboard"), {"run": people.pk, "iterations": 200}).content.decode()
    assert 'id="panel-people"' in html and "People beside the models" in html
    assert "People: IR scholars (3 respondents)" in html
    panel = Panel.objects.get()
    _respond(panel, {q: "A" for q in panel.benchmark.questions.all()})  # a fourth respondent who passed
    html = client.get(reverse("analysis-dashboard"), {"run": people.pk, "iterations": 200}).content.decode()
    assert "People: IR scholars (4 respondents)" in html  # the data version moved with people's answers
    csv = client.get(reverse("analysis-panel-csv", args=["people"]), {"run": people.pk, "iterations": 200})
    assert csv.status_code == 200 and "People: IR scholars (4 respondents)" in csv.content.decode()


def hawk_row_has_no_people_counts(table) -> bool:
    """A model's row counts no respondents: empty (None), never 0."""
    models = table[table["source"] == "model"]
    return models["n_respondents"].isna().all() and models["n_answers"].isna().all()


def _dove(run):
    """A second model, dove: No use of force in s1-s3 (rate of Use of force 0 in each)."""
    dove = LLMModel.objects.create(name="dove", litellm_model="openai/y", answer_mode="choice")
    _answer(run, dove, run.benchmark, {("s1", "US"): "A", ("s2", "US"): "A", ("s3", "US"): "A"})


def test_the_panels_rates_per_country_beside_the_models_by_hand(people):
    board = dashboard.build(AnalysisFilter(runs=(people.pk,)), iterations=200)
    table = board.panels["people_countries"].table
    label = "People: IR scholars (3 respondents)"
    # Every scenario asked with US advised: US, Use of force 2/3 in each of s1-s3 -> 2/3, the interval as overall
    # (the same answers): 2/3 - 1.96 · 2/9, cut at 1 above.
    force = _one(table, source="people", who=label, qualified_actor="US", category=F)
    assert force["rate"] == pytest.approx(2 / 3)
    assert (force["ci_low"], force["ci_high"]) == (pytest.approx(2 / 3 - Z * 2 / 9), 1.0)
    assert (force["n_scenarios"], force["n_respondents"], force["n_answers"]) == (3, 3, 9)
    assert force["interval"] == "clustered by respondent and scenario"
    # hawk as the per-country panel has it: US, Use of force in s1, s2 of s1-s3 -> 2/3, no interval there.
    hawk = _one(table, source="model", who="hawk", qualified_actor="US", category=F)
    assert hawk["rate"] == pytest.approx(2 / 3) and hawk["ci_low"] != hawk["ci_low"]  # NaN
    assert set(table["qualified_actor"]) == {"US"}  # no answer advised another actor
    names = [trace["name"] for trace in board.panels["people_countries"].figure["data"]]
    assert names == ["hawk", label]


def test_people_minus_each_model_by_hand(people):
    _dove(people)
    board = dashboard.build(AnalysisFilter(runs=(people.pk,)), iterations=200)
    table = board.panels["people_contrasts"].table
    label = "People: IR scholars (3 respondents)"
    # People minus dove, Use of force: 2/3 - 0 = 66.67 points. dove's scenario rates are all 0 (no residual),
    # so the variance is people's own: SE 2/9 = 22.22 points (the two-way case above); interval
    # 66.667 ± 1.96 · 22.222 = [23.112, 110.2] cut at 100; z = (2/3) / (2/9) = 3, p = 2 · (1 - Φ(3)) = 0.0027.
    dove = _one(table, people=label, model="dove", category=F)
    assert (dove["people_rate"], dove["model_rate"]) == (pytest.approx(2 / 3), 0.0)
    assert dove["estimate"] == pytest.approx(200 / 3)
    assert dove["se_clustered"] == pytest.approx(200 / 9)
    assert (dove["ci_low"], dove["ci_high"]) == (pytest.approx(200 / 3 - Z * 200 / 9), 100.0)
    assert dove["p_value"] == pytest.approx(0.0026998, abs=1e-6)
    # People minus hawk: 2/3 - 2/3 = 0. hawk's scenario rates 1, 1, 0 (residuals 1/3, 1/3, -2/3, W 3);
    # people's weighted residuals 1/9 (chose it), -2/9 (did not), W 3.
    # By scenario: people's sums 0 in each; hawk's (1/3)/3, (1/3)/3, (-2/3)/3 -> 1/81 + 1/81 + 4/81 = 6/81.
    # By respondent: r1, r2 (3/9)/3 = 1/9, r3 (-6/9)/3 = -2/9 -> 6/81; hawk's rows alone 6/81 -> 12/81.
    # Each row alone: people 6 · (1/27)² + 3 · (2/27)² = 2/81; hawk 6/81 -> 8/81.
    # V = 6/81 + 12/81 - 8/81 = 10/81 -> SE sqrt(10)/9 = 35.14 points; p = 1.
    hawk = _one(table, people=label, model="hawk", category=F)
    assert hawk["estimate"] == pytest.approx(0.0, abs=1e-9)
    assert hawk["se_clustered"] == pytest.approx(100 * 10 ** 0.5 / 9)
    assert hawk["p_value"] == pytest.approx(1.0)
    # Benjamini–Hochberg over the four (two models, two categories): dove's 0.0027 · 4/2 = 0.0054.
    assert dove["p_adjusted"] == pytest.approx(0.0026998 * 2, abs=1e-6) and dove["significant"]
    assert "clustered two ways, by respondent and by scenario" in board.panels["people_contrasts"].note
    assert board.panels["people_contrasts"].figure is not None


def test_the_page_shows_people_per_country_and_minus_each_model(client, analyst, people):
    _dove(people)
    assert client.login(username=analyst.username, password=PASSWORD)
    html = client.get(reverse("analysis-dashboard"), {"run": people.pk, "iterations": 200}).content.decode()
    assert 'id="panel-people_countries"' in html and "People beside the models, per country" in html
    assert 'id="panel-people_contrasts"' in html and "People minus each model" in html
    # The numbers the analyst reads (three places): people's US rate of Use of force and its lower bound
    # 2/3 - 1.96 · 2/9 = 0.231; people minus dove 66.667 points, SE 22.222, lower bound
    # 66.667 - 43.555 = 23.112, p 0.003.
    for shown in ("0.667", "0.231", "66.667", "22.222", "23.112", "0.003"):
        assert f"<td>{shown}</td>" in html.replace("<td class=\"num\">", "<td>"), shown
    csv = client.get(reverse("analysis-panel-csv", args=["people_contrasts"]), {"run": people.pk, "iterations": 200})
    assert csv.status_code == 200
    assert "People: IR scholars (3 respondents),dove,Escalation" in csv.content.decode().replace('"', "")


def test_the_people_charts_are_plotly_json_that_plotly_validates_unchanged(people):
    import json

    import plotly.graph_objects as go

    _dove(people)
    board = dashboard.build(AnalysisFilter(runs=(people.pk,)), iterations=200)
    for key in ("people", "people_countries", "people_contrasts"):
        chart = board.panels[key].figure
        assert json.loads(go.Figure(chart).to_json()) == chart, key
