"""The position-bias panels of the CFPD dashboard: answers coded through their stored option
order, figures by hand, the chart, the CSV, the API field, and why there is no chart when
every scenario was shown in one order."""

import io
import json

import pandas as pd
import plotly.graph_objects as go
import pytest
from django.urls import reverse

from encoding_app.models import CodingPolicy
from runs_app.models import LLMModel, Response, Run
from runs_app.signals import responses_answered
from scenarios_app import services as authoring
from scenarios_app.analysis import dashboard
from scenarios_app.analysis.tidy_query import AnalysisFilter, position_answers
from scenarios_app.models import Benchmark
from tests.conftest import PASSWORD
from tests.factories import escalation_spec

pytestmark = pytest.mark.django_db
F = "Use of force"  # canonical option 1 (B as written); option 0 is No use of force
ACTORS = ["US", "CN", "GB", "IN"]


@pytest.fixture(autouse=True)
def board_built_in_the_request(settings):
    settings.CFPD_DASHBOARD_IN_WORKER = False


def _ask(run, model, benchmark, key, orders):
    """The model answers "A" to each question of scenario `key` (advised: ACTORS in turn), shown in `orders`."""
    questions = {q.cfpd.actor_a.code: q for q in benchmark.questions.select_related("cfpd__actor_a", "cfpd__scenario")
                 if q.cfpd.scenario.key == key}
    for actor, order in zip(ACTORS, orders):
        response = Response.objects.create(run=run, question=questions[actor], model=model, option_order=order,
                                           status="done", chosen_letter="A", raw_output="A")
        responses_answered.send(sender=Response, response_ids=[response.pk])


@pytest.fixture
def shown():
    """hawk always answers A. s1 balanced: [0,1] for US and CN, [1,0] for GB and IN (chosen 0, 0, 1, 1).
    s2: [0,1] three times, [1,0] once (chosen 0, 0, 0, 1). A second run shows s1 in the written order only."""
    CodingPolicy.objects.update_or_create(pk=1, defaults={"double_coding_share": 0, "audit_share": 0})
    benchmark = Benchmark.objects.create(name="b")
    for key in ("s1", "s2"):
        authoring.save_spec(benchmark, escalation_spec(key=key, dyads=[(a, "RU") for a in ACTORS]))
    hawk = LLMModel.objects.create(name="hawk", litellm_model="openai/x", answer_mode="choice")
    balanced = Run.objects.create(benchmark=benchmark, status="done", balanced_options=True, note="balanced")
    _ask(balanced, hawk, benchmark, "s1", [[0, 1], [0, 1], [1, 0], [1, 0]])
    _ask(balanced, hawk, benchmark, "s2", [[0, 1], [0, 1], [0, 1], [1, 0]])
    written = Run.objects.create(benchmark=benchmark, status="done", note="written")
    _ask(written, hawk, benchmark, "s1", [[0, 1]] * 4)
    return balanced, written


def test_the_answers_come_with_their_order_and_canonical_choice(shown):
    balanced, _ = shown
    table, categories = position_answers(AnalysisFilter(runs=(balanced.pk,)))
    s1 = table[table["scenario"] == "b/s1.v1:full"].sort_values("order")
    # shown [0,1], "A" -> option 0 (twice); shown [1,0], "A" -> option 1 (twice)
    assert s1[["order", "chosen", "n"]].values.tolist() == [[(0, 1), 0, 2], [(1, 0), 1, 2]]
    assert categories["b/s1.v1:full"] == ["No use of force", F]


def test_the_position_panel_by_hand(shown):
    balanced, _ = shown
    board = dashboard.build(AnalysisFilter(runs=(balanced.pk,)), iterations=5000, seed=2)
    table = board.panels["position"].table
    a, b = table.iloc[0], table.iloc[1]
    # observed: all 8 at A. expected A: s1 q = (1/2, 1/2): 2 x 1/2 + 2 x 1/2 = 2; s2 q = (3/4, 1/4):
    # 3 x 3/4 + 1 x 1/4 = 2.5 -> 4.5; B: 3.5. chi-square = 3.5^2/4.5 + 3.5^2/3.5 = 2.7222 + 3.5 = 6.2222
    assert (a["model"], a["position"], a["observed"], b["observed"]) == ("hawk", "A", 8, 0)
    assert (a["expected"], b["expected"]) == pytest.approx((4.5, 3.5))
    assert a["chi_square"] == pytest.approx(6.2222, abs=1e-4)
    # exact p: s1's A count is 4 (1/6), 0 (1/6) or 2 (4/6); s2's 4 (1/4) or 2 (3/4); only 4 + 4 = 8 is
    # as far from 4.5 as observed: p = 1/6 x 1/4 = 1/24 = 0.0417
    assert a["p_value"] == pytest.approx(1 / 24, abs=0.012)
    figure = board.panels["position"].figure
    assert [trace["name"] for trace in figure["data"]] == ["observed share", "expected from content"]
    assert figure["data"][0]["x"][1] == ["A", "B"] and "hawk (2 options)<br>p = 0.0" in figure["data"][0]["x"][0][0]
    assert "stratified permutation test" in board.panels["position"].note and "No chart" not in board.panels[
        "position"].note
    rates = board.panels["position_rates"].table.set_index("category")
    # Use of force: s1 observed 2/4, balanced (2/2 + 0/2)/2 = 1/2; s2 observed 1/4, balanced: at A shown once,
    # chosen once -> 1, at B shown 3 times, never -> 0: 1/2 (No use of force likewise 1/2). Means: 0.375 and 0.5
    assert rates.loc[F, "rate_observed"] == pytest.approx(0.375)
    assert rates.loc[F, "rate_balanced"] == pytest.approx(0.5)
    assert rates.loc[F, "difference"] == pytest.approx(12.5)
    for key in ("position", "position_rates"):  # plain JSON that plotly's validation takes unchanged
        chart = board.panels[key].figure
        assert json.loads(go.Figure(chart).to_json()) == chart, key


def test_the_written_order_only_says_why_there_is_no_chart(shown):
    _, written = shown
    board = dashboard.build(AnalysisFilter(runs=(written.pk,)), iterations=200)
    panel = board.panels["position"]
    assert panel.figure is None and panel.table.empty and "position_rates" not in board.panels
    assert "No chart: no answer in this filter was shown in a shuffled or balanced order" in panel.note


def test_a_shuffled_run_that_showed_each_scenario_in_one_order_says_why(shown):
    _, written = shown
    Run.objects.filter(pk=written.pk).update(permute_options=True)  # shuffled, yet each scenario shown as [0, 1]
    board = dashboard.build(AnalysisFilter(runs=(written.pk,)), iterations=200)
    panel = board.panels["position"]
    # one order: expected equals observed (4 at A, 0 at B), no test
    assert panel.table["observed"].tolist() == [4, 0] and panel.table["expected"].tolist() == pytest.approx([4, 0])
    assert panel.figure is None and panel.table["p_value"].isna().all() and "No chart: " in panel.note
    assert board.panels["position_rates"].figure is None and "No chart" in board.panels["position_rates"].note


def test_only_the_runs_that_varied_the_order_count(shown):
    balanced, written = shown
    both = dashboard.build(AnalysisFilter(runs=(balanced.pk, written.pk)), iterations=200)
    # the written run's 4 answers at A are not in it: still 8 at A, 0 at B
    assert both.panels["position"].table["observed"].tolist() == [8, 0]


def test_csv_and_api(client, analyst, shown):
    balanced, _ = shown
    assert client.login(username=analyst.username, password=PASSWORD)
    response = client.get(reverse("analysis-panel-csv", args=["position"]), {"run": balanced.pk, "iterations": 200})
    table = pd.read_csv(io.StringIO(response.content.decode()))
    assert {"model", "choice_count", "position", "observed_share", "expected_share", "chi_square", "p_value",
            "p_error", "permutations"} <= set(table.columns) and len(table) == 2
    response = client.get(reverse("analysis-panel-csv", args=["position_rates"]), {"run": balanced.pk,
                                                                                    "iterations": 200})
    assert "rate_balanced" in response.content.decode().splitlines()[0]
    data = client.get(reverse("api-analysis"), {"run": balanced.pk, "panel": ["position", "position_rates"],
                                                "iterations": 200}).json()
    assert list(data["panels"]) == ["position", "position_rates"]
    assert [r["observed"] for r in data["panels"]["position"]["rows"]] == [8, 0]
    assert "permutation" in data["panels"]["position"]["note"]
