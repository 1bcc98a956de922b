"""The contrasts and the flip view on the CFPD dashboard: the panels' figures by hand, their
CSV, the API's field, and the forest plot's rows."""

import io

import pandas as pd
import pytest
from django.urls import reverse

from scenarios_app.analysis import dashboard
from scenarios_app.analysis.tidy_query import AnalysisFilter
from tests.conftest import PASSWORD
from tests.scenarios_app.test_contrast_report import F, N, seeded  # noqa: F401 (the fixture)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def board_built_in_the_request(settings):
    settings.CFPD_DASHBOARD_IN_WORKER = False


def _one(table, **keys):
    for column, value in keys.items():
        table = table[table[column] == value]
    assert len(table) == 1, table
    return table.iloc[0]


def test_the_contrasts_panel_by_hand(seeded):  # noqa: F811
    board = dashboard.build(AnalysisFilter(runs=(seeded.runs.get().pk,)), iterations=1000)
    table = board.panels["contrasts"].table
    # hawk, US − CN, Use of force: s1 1 − 0, s2 1 − 1 -> 50 points (tests/scenarios_app/test_contrast_report.py)
    hawk = _one(table, kind="actor", model="hawk", category=F)
    assert (hawk["left"], hawk["right"], hawk["estimate"], hawk["n_scenarios"]) == ("US", "CN", 50.0, 2)
    # dove − hawk, Use of force, over the 2 shared scenarios: (0 − 1/2 + 0 − 1) / 2 = −75 points, exact p 0.5
    models = _one(table, kind="model", category=F)
    assert (models["left"], models["right"], models["estimate"], models["p_value"]) == ("dove", "hawk", -75.0, 0.5)
    assert "exact sign-flip (4 patterns)" == models["p_method"]
    assert (table["p_adjusted"] >= table["p_value"]).all()
    figure = board.panels["contrasts"].figure
    drawn = [y for trace in figure["data"] for y in trace["y"]]
    # the headline category only (Use of force): hawk and dove's actor contrasts, the models' contrast
    assert sorted(drawn) == sorted(["US − CN · hawk · Escalation (2) · Use of force",
                                    "US − CN · dove · Escalation (2) · Use of force",
                                    "dove − hawk · Escalation (2) · Use of force"])
    assert figure["layout"]["shapes"][0]["x0"] == 0  # zero marked
    assert "Benjamini" in board.panels["contrasts"].note and "Miller" in board.panels["contrasts"].note
    # the 3 drawn contrasts rest on 2 scenarios each: p >= 2 / 2^2 = 0.5, and the note says so
    assert ("No contrast here can be significant: over 2 scenarios the sign-flip p cannot fall below 2 / 2^2 = 0.5"
            in board.panels["contrasts"].note)


def test_the_flip_view_by_hand(seeded):  # noqa: F811
    board = dashboard.build(AnalysisFilter(runs=(seeded.runs.get().pk,)), iterations=200)
    flips = board.panels["flips"]
    assert flips.table[["model", "scenario", "opposing_actor", "left", "right", "left_answer", "right_answer"]] \
        .values.tolist() == [["hawk", "b/s1.v1:full", "RU", "US", "CN", F, N]]
    # compared: per model s1 and s2 against RU (US vs CN) -> 2 each; hawk flips 1 of 2, dove 0 of 2
    bars = {trace["name"]: (trace["y"][0], trace["text"][0]) for trace in flips.figure["data"]}
    assert bars == {"dove": (0.0, "0 of 2"), "hawk": (0.5, "1 of 2")}
    assert "4 pairs compared" in flips.note


def test_csv_and_api(client, analyst, seeded):  # noqa: F811
    assert client.login(username=analyst.username, password=PASSWORD)
    run = seeded.runs.get().pk
    response = client.get(reverse("analysis-panel-csv", args=["contrasts"]), {"run": run, "iterations": 200})
    table = pd.read_csv(io.StringIO(response.content.decode()))
    assert {"kind", "left", "right", "estimate", "ci_low", "ci_high", "se_clustered", "p_value", "p_method",
            "p_adjusted", "significant", "n_scenarios"} <= set(table.columns) and len(table) == 6
    data = client.get(reverse("api-analysis"), {"run": run, "panel": ["contrasts", "flips"], "iterations": 200}).json()
    assert list(data["panels"]) == ["contrasts", "flips"]
    assert {r["estimate"] for r in data["panels"]["contrasts"]["rows"] if r["category"] == F} == {50.0, 0.0, -75.0}
    assert data["panels"]["flips"]["rows"][0]["left_answer"] == F


def test_holm_on_request_in_the_page_the_csv_and_the_api_and_a_bad_correction_named(client, analyst,
                                                                                    seeded):  # noqa: F811
    assert client.login(username=analyst.username, password=PASSWORD)
    run = seeded.runs.get().pk
    url = reverse("api-analysis")
    bh = client.get(url, {"run": run, "panel": "contrasts", "iterations": 200}).json()["panels"]["contrasts"]
    holm = client.get(url, {"run": run, "panel": "contrasts", "iterations": 200,
                            "adjust": "holm"}).json()["panels"]["contrasts"]
    p = [row["p_value"] for row in holm["rows"]]
    assert p == [row["p_value"] for row in bh["rows"]]  # the same tests, another correction
    # Holm over the 6 contrasts: the i-th smallest p times (6 - i + 1), running maximum, capped at 1
    ordered = sorted(p)
    running, expected = 0.0, {}
    for i, value in enumerate(ordered):
        running = max(running, min(1.0, value * (len(p) - i)))
        expected.setdefault(value, running)
    assert [row["p_adjusted"] for row in holm["rows"]] == pytest.approx([expected[value] for value in p])
    assert "Holm (family-wise error)" in holm["note"] and "Benjamini" in bh["note"]
    csv = client.get(reverse("analysis-panel-csv", args=["contrasts"]), {"run": run, "iterations": 200,
                                                                          "adjust": "holm"})
    table = pd.read_csv(io.StringIO(csv.content.decode()))
    assert table["p_adjusted"].tolist() == pytest.approx([row["p_adjusted"] for row in holm["rows"]])
    bad = client.get(url, {"run": run, "adjust": "bonferroni"})
    assert bad.status_code == 400 and "adjust" in bad.json()
    page = client.get(reverse("analysis-dashboard"), {"run": run, "adjust": "holm"})
    assert '<option value="holm" selected>Holm</option>' in page.content.decode()
